/**
 * account-bot.ts: a Three-Thirteen bot that runs unattended on its account's key: it
 * plays every game its account is seated in and accepts every challenge, until stopped.
 * Run: npm run build && THREE_THIRTEEN_KEY=<key> node dist/examples/account-bot.js http://127.0.0.1:8000
 *
 * On every connection it first does what is due (a turn in any game in progress, `back`
 * in one whose seat went away while it was down, the challenges waiting for it), then
 * follows its account stream from the last note it read: each `your_turn` is a turn to
 * play, each `challenge` one to accept. It keeps nothing of its own: killed and started
 * again, it finds everything from its key.
 */
import {
  backIfAway, createApi, followAccount, move, NetworkError, ProblemError, TimeoutError,
  type GameView, type LegalAction,
} from "../src/index.js";

const key = process.env.THREE_THIRTEEN_KEY ?? "";
if (key === "") throw new Error("set THREE_THIRTEEN_KEY to the account's key");
const api = createApi({ baseUrl: process.argv[2] ?? "http://127.0.0.1:8000", token: key });

/** Go out when allowed; otherwise draw from the stock and drop the costliest card. */
function choose({ legal_actions: legal, rules }: GameView): LegalAction | undefined {
  const cost = (card: string) => rules.card_values[card[0] ?? ""] ?? 25;
  const discards = legal.flatMap((a) => (a.type === "discard" ? [a] : []));
  return legal.find((a) => a.type === "go_out")
    ?? discards.sort((a, b) => cost(b.card) - cost(a.card))[0]
    ?? legal.find((a) => a.type === "draw" && a.source === "stock");
}

/** Every move its seat of `gameId` may make now: a whole turn, or none. */
async function playTurn(gameId: string): Promise<void> {
  const game = { params: { path: { game_id: gameId } } };
  let view: GameView = (await api.GET("/v1/games/{game_id}", game)).data;
  for (;;) {
    try {
      // its seat away (its clock ran out twice while the bot was down): back first, once
      const back = await backIfAway(api, { gameId, token: key, view });
      if (back) view = back.data;
      const action = view.status === "finished" ? undefined : choose(view);
      if (action === undefined) return;
      console.log(`${gameId} v${view.version}: ${JSON.stringify(action)}`);
      view = (await move(api, { gameId, token: key, version: view.version, action })).data;
    } catch (error) {
      // the game moved on meanwhile (a clock ran out: 409, 412): read it and decide again
      if (!(error instanceof ProblemError && [409, 412].includes(error.status))) throw error;
      view = (await api.GET("/v1/games/{game_id}", game)).data;
    }
  }
}

/** Accept a challenge; one answered or expired meanwhile is `409 challenge_closed`. */
async function accept(challengeId: string): Promise<void> {
  try {
    await api.POST("/v1/challenges/{challenge_id}/accept", {
      params: { path: { challenge_id: challengeId } },
    });
  } catch (error) {
    if (!(error instanceof ProblemError && error.code === "challenge_closed")) throw error;
  }
}

const { data: me } = await api.GET("/v1/me");
let after = me.last_note; // the stream's notes from here on are new
for (;;) {
  try {
    const { data: mine } = await api.GET("/v1/me/games", { params: { query: { status: "in_progress" } } });
    for (const game of mine.games) await playTurn(game.game_id);
    const { data: waiting } = await api.GET("/v1/challenges");
    for (const challenge of waiting.challenges) {
      const { to, accepted } = challenge;
      if (to.includes(me.handle) && !accepted.includes(me.handle)) await accept(challenge.challenge_id);
    }
    for await (const message of followAccount(api, { after })) {
      if (message.type === "end") break; // the stream ended: look at everything again
      const note = message.event;
      after = note.seq;
      if (note.type === "your_turn") await playTurn(note.game_id);
      else if (note.type === "challenge") await accept(note.challenge_id);
    }
  } catch (error) {
    // the service unreachable (restarting, say): wait a moment and come back to it
    if (!(error instanceof NetworkError || error instanceof TimeoutError)) throw error;
    console.error(`${error.message}: retrying in a second`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}
