/**
 * bot.ts: a Three-Thirteen bot that plays a whole game against the reference `greedy` bot.
 * Run: npm run build && node dist/examples/bot.js http://127.0.0.1:8000
 *
 * It follows its seat's stream and sends one request per move, on each view that has
 * legal actions (and `back` on one that shows its seat away): no polling, and no read
 * before a move (the stream brought the view).
 */
import {
  backIfAway, createApi, followGame, move, ProblemError, type GameView, type LegalAction,
} from "../src/index.js";

/** Go out when allowed; take a wild off the pile; otherwise drop the costliest card. */
function choose({ legal_actions: legal, round, rules }: GameView): LegalAction | undefined {
  if (legal.length === 0) return undefined; // not our turn
  const wild = (card: string) => card === "JK" || card[0] === round.wild_rank;
  const cost = (card: string) => (wild(card) ? -1 : rules.card_values[card[0] ?? ""] ?? 25);
  const goOut = legal.find((a) => a.type === "go_out");
  if (goOut) return goOut;
  if (legal[0]?.type === "draw") {
    const take = round.discard_top !== null && wild(round.discard_top);
    return legal.find((a) => a.type === "draw" && a.source === (take ? "discard" : "stock"));
  }
  const discards = legal.flatMap((a) => (a.type === "discard" ? [a] : []));
  return discards.sort((a, b) => cost(b.card) - cost(a.card))[0] ?? legal[0];
}

const api = createApi({ baseUrl: process.argv[2] ?? "http://127.0.0.1:8000" });
// every call answers its `data` or throws an ApiError (a ProblemError for a refusal)
const { data: created } = await api.POST("/v1/games", {
  body: { players: [{ name: "my-bot" }, { bot: "greedy" }], rules: { preset: "classic" } },
});
const { game_id: gameId, seats } = created;
const mine = seats[0];
if (mine?.kind !== "human") throw new Error("seat 0 is not a named seat");

let final: GameView | undefined;
let decided = -1; // the version of the last view acted on: a resumed stream may repeat it
for await (const message of followGame(api, gameId, { token: mine.token })) {
  if (message.type !== "view") continue;
  const view = message.view;
  if (view.status === "finished") final = view;
  if (view.version <= decided) continue;
  decided = view.version;
  try {
    // its seat away (its clock ran out twice: the bot was down): back first, once; the
    // stream then brings the view to play on
    if (await backIfAway(api, { gameId, token: mine.token, view })) continue;
    const action = choose(view);
    if (action) await move(api, { gameId, token: mine.token, version: view.version, action });
  } catch (error) {
    // a view the game has moved past (412 version_conflict, a 409) is no error: the
    // stream brings the new one
    if (!(error instanceof ProblemError && [409, 412].includes(error.status))) throw error;
  }
}
if (final?.status !== "finished") throw new Error("the stream ended before the game");
const { players, winners } = final;
for (const player of players) console.log(`${player.name}: ${player.total}`);
console.log(`winners: ${winners.map((seat) => players[seat]?.name).join(", ")}`);
