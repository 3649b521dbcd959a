/**
 * The client against a running service: `THREE_THIRTEEN_URL` (set by
 * tests/clients/test_typescript_client.py to its gunicorn; skipped without it).
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ApiError, backIfAway, createApi, followAccount, followGame, move, ProblemError, type Api, type Fetch,
  type GameEvent, type GameStreamMessage, type RetryNotice,
} from "../src/index.js";

const BASE_URL = process.env.THREE_THIRTEEN_URL;
const live = { skip: BASE_URL === undefined ? "THREE_THIRTEEN_URL is not set" : false };
const url = (): string => BASE_URL ?? "";

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** A game of two named seats: its id, both tokens, and who is to play at which version. */
async function twoPlayerGame(api: Api) {
  const { data: created } = await api.POST("/v1/games", {
    body: { players: [{ name: "a" }, { name: "b" }] },
  });
  const tokens = created.seats.map((s) => (s.kind === "human" ? s.token : ""));
  return { gameId: created.game_id, tokens };
}

/** The seat to play's own view, read with its token. */
async function turn(api: Api, gameId: string, tokens: string[]) {
  const { data: spectator } = await api.GET("/v1/games/{game_id}", {
    params: { path: { game_id: gameId } },
  });
  const token = tokens[spectator.round.current_seat ?? 0] ?? "";
  const { data: view } = await api.GET("/v1/games/{game_id}", {
    params: { path: { game_id: gameId } }, headers: { Authorization: `Bearer ${token}` },
  });
  return { token, view };
}

/** Every event of a game, paged through `GET …/events`. */
async function eventLog(api: Api, gameId: string): Promise<GameEvent[]> {
  const events: GameEvent[] = [];
  for (let after = 0; ;) {
    const { data: page } = await api.GET("/v1/games/{game_id}/events", {
      params: { path: { game_id: gameId }, query: { after } },
    });
    events.push(...page.events);
    after = page.next_after;
    if (!page.more) return events;
  }
}

const eventsOf = (messages: GameStreamMessage[]): GameEvent[] =>
  messages.flatMap((m) => (m.type === "event" ? [m.event] : []));

test("a finished game's stream reads the same in NDJSON and in Server-Sent Events, every event once",
  live, async () => {
    const api = createApi({ baseUrl: url() });
    const { data: created } = await api.POST("/v1/games", {
      body: { players: [{ bot: "greedy" }, { bot: "greedy" }], rules: { preset: "classic" } },
    });
    const gameId = created.game_id;
    const watched = await all(followGame(api, gameId)); // until the bots finish it
    const ndjson = await all(followGame(api, gameId, { format: "ndjson" }));
    const sse = await all(followGame(api, gameId, { format: "sse" }));
    assert.deepEqual(sse, ndjson);
    const log = await eventLog(api, gameId);
    assert.deepEqual(eventsOf(ndjson), log);
    assert.deepEqual(eventsOf(watched), log);
    const last = ndjson.at(-1);
    assert.equal(last?.type === "end" && last.reason, "finished");
    const final = ndjson.at(-2);
    assert.ok(final?.type === "view" && final.view.status === "finished");
    assert.equal(final.view.winners.length > 0, true); // a finished view narrows: no `!`
  });

/** A fetch whose first `cuts.length` streams break after that many bytes, mid-line. */
function cutting(cuts: number[]): { fetch: Fetch; opened: () => number } {
  let opened = 0;
  const fetch: Fetch = async (request) => {
    const response = await globalThis.fetch(request);
    if (!new URL(request.url).pathname.endsWith("/stream") || response.body === null) return response;
    const limit = cuts[opened++];
    if (limit === undefined) return response;
    const reader = response.body.getReader();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await reader.read();
        if (done) return controller.close();
        const room = limit - sent;
        sent += value.length;
        if (value.length < room) return controller.enqueue(value);
        controller.enqueue(value.slice(0, room));
        await reader.cancel();
        controller.error(new TypeError("terminated")); // what undici says when a socket closes
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch, opened: () => opened };
}

test("a stream that drops mid-line resumes from its last event: nothing lost, nothing repeated",
  live, async () => {
    const api = createApi({ baseUrl: url() });
    const { gameId, tokens } = await twoPlayerGame(api);
    for (let moves = 0; moves < 16; moves += 1) {
      const { token, view } = await turn(api, gameId, tokens);
      const action = view.legal_actions[0];
      assert.ok(action);
      await move(api, { gameId, token, version: view.version, action });
    }
    const cut = cutting([700, 350, 900]);
    const cutApi = createApi({ baseUrl: url(), fetch: cut.fetch });
    const messages: GameStreamMessage[] = [];
    for await (const message of followGame(cutApi, gameId, { reconnectDelayMs: 10 })) {
      messages.push(message);
      if (message.type === "view") break; // a connection sends every event before its view
    }
    assert.equal(cut.opened(), 4);
    assert.deepEqual(eventsOf(messages), await eventLog(api, gameId));
  });

test("a move sends If-Match and an Idempotency-Key: a stale version is 412, a repeated key replays",
  live, async () => {
    const api = createApi({ baseUrl: url() });
    const { gameId, tokens } = await twoPlayerGame(api);
    const { token, view } = await turn(api, gameId, tokens);
    const action = view.legal_actions[0];
    assert.ok(action);
    const first = await move(api, { gameId, token, version: view.version, action, idempotencyKey: "k1" });
    assert.equal(first.data.version, view.version + 1);
    assert.equal(first.response.headers.get("ETag"), `"${view.version + 1}"`);
    const again = await move(api, { gameId, token, version: view.version, action, idempotencyKey: "k1" });
    assert.equal(again.response.headers.get("Idempotent-Replayed"), "true");
    assert.deepEqual(again.data, first.data);
    const stale = await move(api, { gameId, token, version: view.version, action }).then(
      () => assert.fail("a stale version was accepted"), (error: unknown) => error);
    // thrown as a ProblemError: its code narrows without a cast, its problem has the fields
    assert.ok(stale instanceof ProblemError && stale.code === "version_conflict");
    assert.equal(stale.status, 412);
    assert.equal(stale.problem?.current_version, view.version + 1);
  });

test("a refusal of the service is a ProblemError with its status, code, problem and headers",
  live, async () => {
    const api = createApi({ baseUrl: url() });
    const error = await api.GET("/v1/games/{game_id}", { params: { path: { game_id: "nosuchgame" } } })
      .then(() => assert.fail("an unknown game was found"), (thrown: unknown) => thrown);
    assert.ok(error instanceof ProblemError && error instanceof ApiError);
    assert.equal(error.status, 404);
    assert.equal(error.code, "unknown_game");
    assert.equal(error.problem?.status, 404);
    assert.match(error.headers.get("Content-Type") ?? "", /^application\/problem\+json/);
    // a stream's refusal is thrown the same way, before any message
    await assert.rejects(followGame(api, "nosuchgame").next(),
      (thrown: unknown) => thrown instanceof ProblemError && thrown.code === "unknown_game");
  });

test("a seat whose clock ran out twice comes back with backIfAway, then moves as its player",
  live, async () => {
    const api = createApi({ baseUrl: url() });
    const { data: created } = await api.POST("/v1/games", {
      body: { players: [{ name: "a" }, { bot: "greedy" }], turn_seconds: 2, rules: { preset: "classic" } },
    });
    const { game_id: gameId, seats } = created;
    const mine = seats[0];
    assert.ok(mine?.kind === "human");
    const token = mine.token;
    let backAt: number | undefined; // the version of the view that came back
    let movedAt: number | undefined;
    for await (const message of followGame(api, gameId, { token })) {
      if (message.type !== "view") continue;
      const { view } = message;
      assert.equal(view.status, "in_progress", "the game ended before the seat came back");
      if (backAt === undefined) { // idle (no move of its own) until the seat is away
        const back = await backIfAway(api, { gameId, token, view });
        if (back === undefined) continue;
        assert.equal(back.data.players[0]?.kind, "human");
        backAt = back.data.version;
        continue;
      }
      const action = view.legal_actions[0];
      if (action === undefined) continue;
      const sent = await move(api, { gameId, token, version: view.version, action });
      movedAt = sent.data.version;
      break;
    }
    assert.ok(backAt !== undefined && movedAt !== undefined && movedAt > backAt);
    const log = await eventLog(api, gameId);
    const away = log.filter((e) => e.type === "turn_timed_out" && e.seat === 0 && e.away).at(-1);
    assert.ok(away);
    const after = log.filter((e) => e.seq > away.seq);
    assert.equal(after.filter((e) => e.type === "seat_back").length, 1);
    // the stand-in may have drawn before the seat came back: its first own action is then
    // the discard
    assert.ok(after.some((e) => "by" in e && "seat" in e && e.seat === 0 && e.by === "player"));
  });

test("a stream refused 429 too_many_waits opens once the Retry-After it was given has passed",
  live, async () => {
    // the service counts a token's parked requests per worker (MAX_WAITS_PER_TOKEN, 10 by
    // default): streams of one seat are opened until one is refused, then the others closed
    const held: { stop: AbortController; stream: AsyncGenerator<GameStreamMessage> }[] = [];
    const notices: (RetryNotice & { at: number })[] = [];
    const api = createApi({
      baseUrl: url(),
      retries: 30,
      onRetry: (notice) => {
        notices.push({ ...notice, at: Date.now() });
        for (const { stop } of held.splice(0)) stop.abort(new Error("freeing the slot"));
      },
    });
    const { gameId, tokens } = await twoPlayerGame(api);
    const token = tokens[0] ?? "";
    let opened: number | undefined;
    for (let streams = 0; streams < 40 && notices.length === 0; streams += 1) {
      const stop = new AbortController();
      const stream = followGame(api, gameId, { token, signal: stop.signal });
      const first = await stream.next(); // the events, then the view: it is parked now
      assert.equal(first.done, false);
      opened = Date.now();
      if (notices.length === 0) held.push({ stop, stream });
      else await stream.return(undefined);
    }
    const refused = notices[0];
    assert.ok(refused, "40 streams of one token were all let through");
    assert.equal(refused.status, 429);
    assert.ok(refused.delayMs >= 1_000, `Retry-After gave ${refused.delayMs} ms`);
    assert.ok(opened !== undefined && opened - refused.at >= refused.delayMs);
  });

test("an account's stream, on the client's own key, yields its notes narrowed on type",
  live, async () => {
    const api = createApi({ baseUrl: url() });
    const handle = `ts-${Date.now().toString(36)}`;
    const { data: account } = await api.POST("/v1/accounts", { body: { handle } });
    const mine = createApi({ baseUrl: url(), token: account.key });
    await mine.POST("/v1/challenges", {
      body: { to: ["greedy"], turn_seconds: null }, // a reference bot accepts at once
    });
    let started: string | undefined;
    for await (const message of followAccount(mine)) {
      if (message.type !== "event" || message.event.type !== "game_started") continue;
      assert.deepEqual(message.event.players, [handle, "greedy"]);
      assert.equal(message.event.seat, 0);
      started = message.event.game_id;
      break; // closes the stream
    }
    assert.equal(typeof started, "string");
  });
