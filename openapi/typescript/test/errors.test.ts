/**
 * What the client throws, one kind at a time, and that each is an `ApiError` (no service
 * needed: problems come from a scripted `fetch`; the refused connection and the server
 * that never answers are real sockets on loopback; live.test.ts meets a real refusal).
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";

import {
  ApiError, createApi, followGame, move, NetworkError, ProblemError, ProtocolError, StreamLost,
  TimeoutError, type RetryNotice,
} from "../src/index.js";

async function listening(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The root of a port nobody listens on: one listened on a moment ago, then closed. */
async function closedPort(): Promise<string> {
  const server = createServer();
  const url = await listening(server);
  await new Promise((resolve) => server.close(resolve));
  return url;
}

/** What `call` threw (the test fails if it gave an answer). */
async function thrown(call: Promise<unknown>): Promise<unknown> {
  return call.then(() => assert.fail("the call gave an answer"), (error: unknown) => error);
}

const DRAW = { type: "draw", source: "stock" } as const;

test("a 4xx answer is thrown as a ProblemError: its status, code, detail, problem and headers",
  async () => {
    const problem = {
      type: "urn:three-thirteen:problem:not_your_turn", title: "Conflict", status: 409,
      detail: "it is seat 1's turn", code: "not_your_turn", current_seat: 1,
    };
    const api = createApi({
      baseUrl: "http://service",
      fetch: async () => new Response(JSON.stringify(problem), {
        status: 409, headers: { "Content-Type": "application/problem+json", "X-Request-Id": "r1" },
      }),
    });
    const error = await thrown(move(api, { gameId: "g", token: "t", version: 3, action: DRAW }));
    assert.ok(error instanceof ProblemError && error instanceof ApiError);
    assert.equal(error.status, 409);
    assert.equal(error.code, "not_your_turn");
    assert.equal(error.detail, "it is seat 1's turn");
    assert.deepEqual(error.problem, problem);
    assert.equal(error.problem?.current_seat, 1);
    assert.equal(error.headers.get("X-Request-Id"), "r1");
    assert.equal(error.message, "409 not_your_turn: it is seat 1's turn");
  });

test("an error answer without a problem (a proxy's page) is a ProblemError coded http_error",
  async () => {
    const api = createApi({
      baseUrl: "http://service",
      fetch: async () => new Response("<h1>Bad gateway</h1>", {
        status: 502, headers: { "Content-Type": "text/html" },
      }),
    });
    const error = await thrown(api.GET("/v1/rules/presets"));
    assert.ok(error instanceof ProblemError);
    assert.equal(error.status, 502);
    assert.equal(error.code, "http_error");
    assert.equal(error.problem, undefined);
  });

test("a server that is down is a NetworkError wrapping fetch's TypeError, after the retries",
  async () => {
    const notices: RetryNotice[] = [];
    const api = createApi({
      baseUrl: await closedPort(), retries: 2, sleep: async () => undefined,
      onRetry: (notice) => { notices.push(notice); },
    });
    const read = await thrown(api.GET("/v1/games/{game_id}", { params: { path: { game_id: "g" } } }));
    assert.ok(read instanceof NetworkError && read instanceof ApiError);
    assert.ok(read.cause instanceof TypeError); // what fetch threw, kept
    assert.match(read.message, /ECONNREFUSED/);
    assert.deepEqual(notices.map((n) => [n.status, n.attempt]), [[undefined, 1], [undefined, 2]]);
    // a creation may not be repeated: thrown at once
    notices.length = 0;
    const create = await thrown(api.POST("/v1/games", { body: { players: [{ name: "a" }] } }));
    assert.ok(create instanceof NetworkError);
    assert.equal(notices.length, 0);
  });

test("a server that never answers is a TimeoutError after timeoutMs, and is not retried",
  async () => {
    const arrived: IncomingMessage[] = [];
    const server = createServer((request) => { arrived.push(request); }); // never answers
    try {
      const api = createApi({ baseUrl: await listening(server), timeoutMs: 200 });
      const error = await thrown(api.GET("/v1/rules/presets"));
      assert.ok(error instanceof TimeoutError && error instanceof ApiError);
      assert.equal(error.ms, 200);
      assert.equal(arrived.length, 1);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

test("a success whose body is not JSON, or a stream line that is none, is a ProtocolError",
  async () => {
    const api = createApi({
      baseUrl: "http://service",
      fetch: async (request) => new Response(
        new URL(request.url).pathname.endsWith("/stream") ? "{\"type\":\"event\"\n" : "<html>",
        { status: 200, headers: { "Content-Type": "text/html" } }),
    });
    assert.ok(await thrown(api.GET("/v1/rules/presets")) instanceof ProtocolError);
    assert.ok(await thrown(followGame(api, "g").next()) instanceof ProtocolError);
  });

test("a stream whose server is down ends in StreamLost, a NetworkError, after its reconnects",
  async () => {
    const api = createApi({ baseUrl: await closedPort(), retries: 0 });
    const error = await thrown(followGame(api, "g", { maxReconnects: 2, reconnectDelayMs: 1 }).next());
    assert.ok(error instanceof StreamLost && error instanceof NetworkError);
    assert.equal(error.attempts, 3);
    assert.ok(error.cause instanceof NetworkError);
  });

test("a call aborted by the caller rejects with the caller's reason, as fetch does", async () => {
  const server = createServer(() => undefined); // never answers
  try {
    const api = createApi({ baseUrl: await listening(server) });
    const stop = new AbortController();
    const reason = new Error("no longer wanted");
    const pending = thrown(api.GET("/v1/rules/presets", { signal: stop.signal }));
    stop.abort(reason);
    assert.equal(await pending, reason);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
