/**
 * `backIfAway` on scripted views (no service needed: the answers come from a scripted
 * `fetch`; live.test.ts brings a seat back on a real one): `{"type": "back"}` exactly when
 * the view shows the reader's own seat away, and nothing otherwise.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { backIfAway, createApi, isAway, move, type GameView } from "../src/index.js";

/** A fetch that answers every request with `view` (as an action does), and what it was sent. */
function service(view: object) {
  const sent: Request[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    sent.push(request);
    return new Response(JSON.stringify(view), {
      status: 200, headers: { "Content-Type": "application/json", ETag: '"8"' },
    });
  };
  return { api: createApi({ baseUrl: "http://service", fetch }), sent };
}

/** Seat 0's view of a game in progress with seats of these kinds: only the fields
 * `isAway` reads, and a turn move, so the cast says no more than the test gives. */
function seatView(kinds: string[], status = "in_progress"): GameView {
  return {
    version: 7, status,
    players: kinds.map((kind, seat) => ({ seat, kind })),
    you: { seat: 0, hand: ["3S"], can_abort: false },
    legal_actions: [{ type: "draw", source: "stock" }],
  } as unknown as GameView;
}

test("on a view of its own seat away, back is sent once, before any move", async () => {
  const { api, sent } = service(seatView(["human", "human"]));
  let view = seatView(["away", "human"]);
  assert.equal(isAway(view), true);
  const back = await backIfAway(api, { gameId: "g", token: "tok", view });
  assert.ok(back?.data);
  view = back.data;
  assert.equal(await backIfAway(api, { gameId: "g", token: "tok", view }), undefined); // once
  const action = view.legal_actions[0];
  assert.ok(action);
  await move(api, { gameId: "g", token: "tok", version: view.version, action });
  const bodies = await Promise.all(sent.map((request) => request.text()));
  assert.deepEqual(bodies.map((body) => JSON.parse(body)),
    [{ type: "back" }, { type: "draw", source: "stock" }]);
  const [first] = sent;
  assert.ok(first);
  assert.equal(first.method, "POST");
  assert.equal(new URL(first.url).pathname, "/v1/games/g/actions");
  assert.equal(first.headers.get("Authorization"), "Bearer tok");
  assert.ok(first.headers.get("Idempotency-Key")); // a 503 may retry it
  assert.equal(first.headers.get("If-Match"), null); // the stand-in moves on meanwhile
});

test("nothing is sent for a present seat, another seat away, or a game over", async () => {
  const { api, sent } = service(seatView(["human", "human"]));
  for (const view of [seatView(["human", "away"]), seatView(["human", "human"]),
    seatView(["away", "human"], "finished")]) {
    assert.equal(isAway(view), false);
    assert.equal(await backIfAway(api, { gameId: "g", token: "tok", view }), undefined);
  }
  assert.equal(sent.length, 0);
});
