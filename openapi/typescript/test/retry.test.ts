/**
 * Which answers are retried, after how long, and with what request (no service needed:
 * the answers come from a scripted `fetch`; live.test.ts meets a real 429).
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { NetworkError } from "../src/errors.js";
import { retryAfterMs, retryingFetch, type RetryNotice } from "../src/retry.js";

/** A fetch that answers each request with the next of `statuses`, and what it was sent. */
function scripted(...answers: (Response | Error)[]) {
  const sent: Request[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    sent.push(request);
    const answer = answers.shift();
    if (answer === undefined) throw new Error("more requests than answers");
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch, sent };
}

function refusal(status: number, retryAfter?: string): Response {
  const headers: Record<string, string> = { "Content-Type": "application/problem+json" };
  if (retryAfter !== undefined) headers["Retry-After"] = retryAfter;
  return new Response('{"code":"rate_limited"}', { status, headers });
}

function recorder() {
  const waits: number[] = [];
  const notices: RetryNotice[] = [];
  return {
    waits,
    notices,
    sleep: async (ms: number) => { waits.push(ms); },
    onRetry: (notice: RetryNotice) => { notices.push(notice); },
  };
}

const move = () => new Request("http://service/v1/games/g/actions", {
  method: "POST",
  headers: { "If-Match": '"7"', "Idempotency-Key": "key-1", "Content-Type": "application/json" },
  body: '{"type":"draw","source":"stock"}',
});

test("Retry-After is read as seconds or as an HTTP date, and nothing else", () => {
  const now = Date.parse("Sun, 06 Nov 1994 08:49:37 GMT");
  assert.equal(retryAfterMs("2"), 2_000);
  assert.equal(retryAfterMs("Sun, 06 Nov 1994 08:49:40 GMT", now), 3_000);
  assert.equal(retryAfterMs("Sun, 06 Nov 1994 08:49:00 GMT", now), 0);
  assert.equal(retryAfterMs(null), undefined);
  assert.equal(retryAfterMs("soon"), undefined);
});

test("a 429 is retried after its Retry-After, and the retry is the same request", async () => {
  const { fetch, sent } = scripted(refusal(429, "3"), new Response("{}", { status: 200 }));
  const clock = recorder();
  const response = await retryingFetch({ fetch, ...clock })(move());
  assert.equal(response.status, 200);
  assert.deepEqual(clock.waits, [3_000]);
  assert.equal(sent.length, 2);
  for (const request of sent) {
    assert.equal(request.headers.get("Idempotency-Key"), "key-1");
    assert.equal(request.headers.get("If-Match"), '"7"');
    assert.equal(await request.text(), '{"type":"draw","source":"stock"}');
  }
});

test("a move answered 503 is retried with its Idempotency-Key; a creation without one is not",
  async () => {
    const keyed = scripted(refusal(503, "1"), new Response("{}", { status: 200 }));
    assert.equal((await retryingFetch({ fetch: keyed.fetch, ...recorder() })(move())).status, 200);
    const unkeyed = scripted(refusal(503, "1"));
    const create = new Request("http://service/v1/games", { method: "POST", body: "{}" });
    assert.equal((await retryingFetch({ fetch: unkeyed.fetch, ...recorder() })(create)).status, 503);
    assert.equal(unkeyed.sent.length, 1);
  });

test("a wait never exceeds maxDelayMs, and a missing Retry-After waits defaultDelayMs", async () => {
  const { fetch } = scripted(refusal(429, "3600"), refusal(429), new Response("{}"));
  const clock = recorder();
  await retryingFetch({ fetch, maxDelayMs: 5_000, defaultDelayMs: 250, ...clock })(
    new Request("http://service/v1/games/g"));
  assert.deepEqual(clock.waits, [5_000, 250]);
  assert.deepEqual(clock.notices.map((n) => [n.status, n.attempt]), [[429, 1], [429, 2]]);
});

test("after its retries the last refusal is the answer", async () => {
  const { fetch, sent } = scripted(refusal(429, "1"), refusal(429, "1"), refusal(429, "1"));
  const response = await retryingFetch({ fetch, retries: 2, ...recorder() })(
    new Request("http://service/v1/games/g"));
  assert.equal(response.status, 429);
  assert.equal(sent.length, 3);
});

test("a dropped connection is retried for a GET, not for a POST without a key", async () => {
  const dropped = () => new TypeError("fetch failed");
  const read = scripted(dropped(), new Response("{}"));
  const got = await retryingFetch({ fetch: read.fetch, ...recorder() })(
    new Request("http://service/v1/games/g"));
  assert.equal(got.status, 200);
  const failure = dropped();
  const create = scripted(failure);
  await assert.rejects(retryingFetch({ fetch: create.fetch, ...recorder() })(
    new Request("http://service/v1/games", { method: "POST", body: "{}" })),
  (error: unknown) => error instanceof NetworkError && error.cause === failure);
  assert.equal(create.sent.length, 1);
});

test("an aborted request stops waiting at once", async () => {
  const { fetch } = scripted(refusal(429, "60"));
  const abort = new AbortController();
  const pending = retryingFetch({ fetch })(
    new Request("http://service/v1/games/g", { signal: abort.signal }));
  setTimeout(() => abort.abort(new Error("stop")), 20);
  await assert.rejects(pending, /stop/);
});
