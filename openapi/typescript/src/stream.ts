/**
 * Typed stream iteration with resume: `for await (const message of followGame(…))`
 * yields each message of a game's stream, narrowed on `type` (`event`, `view`,
 * `analysis` of a finished game's analysis, `end`), until the game is finished; `followAccount` does the same for `/v1/me/stream`.
 *
 * The messages are the document's: NDJSON lines are the stream operation's own item
 * type (types.ts), and a Server-Sent Event becomes the NDJSON message of its name (an
 * `event: view` whose `data` is a `GameView` is `{type: "view", view}`), which is what
 * the document's `contentSchema` of each SSE variant says (a test holds the two forms of
 * the document to each other: tests/clients/test_typescript_client.py).
 *
 * Resume (docs/streams.md): a stream ends with `end`. After `finished` there is nothing
 * more; after `max_duration`, `shutdown` or `unavailable` this waits `retry_ms` and
 * reconnects with `Last-Event-ID` set to the last event's `seq`, so no event is lost or
 * repeated (views are whole, so a reconnect's first view may repeat the last one). A
 * connection that drops or falls silent is reconnected the same way. Every `end` is
 * yielded, so a caller can see the reconnects; iteration stops after `finished`.
 *
 * What it throws (errors.ts): a refusal as a `ProblemError` (after retry.ts's retries: a
 * `429` is waited out), a message that is not JSON as a `ProtocolError`, and, once
 * `maxReconnects` connections in a row failed or fell silent with no message, a
 * `StreamLost` (a `NetworkError`) whose `cause` is the last failure. Aborting its
 * `signal` ends the iteration with the signal's reason.
 */
import type { Api } from "./client.js";
import { bearer } from "./client.js";
import { ProblemError, ProtocolError, StreamLost } from "./errors.js";
import { ndjson, parsed, serverSentEvents, type SseEvent } from "./framing.js";
import { abortableSleep } from "./retry.js";
import type { AccountStreamMessage, GameStreamMessage, StreamEndMessage } from "./types.js";

export interface FollowOptions {
  /** A seat token (its hand and own view) or account key; none: a spectator. */
  token?: string;
  /** Start after this event `seq` (0: from the first event). */
  after?: number;
  /** `ndjson` (the default) or `sse`: the same messages either way. */
  format?: "ndjson" | "sse";
  /** Stops the iteration (the pending read rejects with the signal's reason). */
  signal?: AbortSignal;
  /** The wait before reconnecting a dropped connection, in ms (1 000). */
  reconnectDelayMs?: number;
  /** Reconnects in a row with no message in between before giving up (5). */
  maxReconnects?: number;
  /** No byte for this long is a dead connection, in ms (45 000: three heartbeats). */
  idleMs?: number;
}

/** What every stream's messages have in common: events carry the cursor, `end` the hint. */
type Message =
  | { type: "event"; event: { seq: number } } | { type: "view" } | { type: "analysis" }
  | StreamEndMessage;

/** What one connection's request answers (the client's answer with `parseAs: "stream"`). */
type Opened = { data: ReadableStream<Uint8Array> | null; response: Response };

const ACCEPT = { ndjson: "application/x-ndjson", sse: "text/event-stream" } as const;

/** A game's stream: events, then your view, on every move; ends when the game does. */
export function followGame(
  api: Api, gameId: string, options: FollowOptions = {},
): AsyncGenerator<GameStreamMessage> {
  return follow<GameStreamMessage>(options, (cursor, signal) => api.GET(
    "/v1/games/{game_id}/stream", {
      params: { path: { game_id: gameId }, header: { "Last-Event-ID": String(cursor) } },
      headers: headers(options),
      parseAs: "stream",
      signal,
    }));
}

/**
 * An account's stream of notes (`challenge`, `your_turn`, `game_finished`…), with
 * `options.token` the account's key unless the client was created with it.
 */
export function followAccount(
  api: Api, options: FollowOptions = {},
): AsyncGenerator<AccountStreamMessage> {
  return follow<AccountStreamMessage>(options, (cursor, signal) => api.GET("/v1/me/stream", {
    params: { header: { "Last-Event-ID": String(cursor) } },
    headers: headers(options),
    parseAs: "stream",
    signal,
  }));
}

function headers(options: FollowOptions): Record<string, string> {
  const accept = { Accept: ACCEPT[options.format ?? "ndjson"] };
  return options.token === undefined ? accept : { ...accept, ...bearer(options.token) };
}

async function* follow<M extends Message>(
  options: FollowOptions,
  open: (cursor: number, signal: AbortSignal) => Promise<Opened>,
): AsyncGenerator<M> {
  const signal = options.signal ?? new AbortController().signal;
  const format = options.format ?? "ndjson";
  const idleMs = options.idleMs ?? 45_000;
  const maxReconnects = options.maxReconnects ?? 5;
  let cursor = options.after ?? 0;
  let quietTries = 0; // connections in a row that brought no message
  for (;;) {
    let end: StreamEndMessage | undefined;
    let dropped: unknown;
    try {
      const body = await connect(open, cursor, signal);
      for await (const message of messages<M>(body, format, idleMs)) {
        quietTries = 0;
        if (message.type === "event") cursor = message.event.seq;
        yield message;
        if (message.type === "end") {
          end = message;
          break;
        }
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof ProblemError || error instanceof ProtocolError) throw error;
      dropped = error; // the connection broke or fell silent: resume from the cursor
    }
    if (end?.reason === "finished") return;
    quietTries += 1;
    if (quietTries > maxReconnects) throw new StreamLost(quietTries, { cause: dropped });
    await abortableSleep(end?.retry_ms ?? options.reconnectDelayMs ?? 1_000, signal);
  }
}

/** Open one connection; a refusal (after retry.ts's retries) is thrown as a `ProblemError`. */
async function connect(
  open: (cursor: number, signal: AbortSignal) => Promise<Opened>,
  cursor: number,
  signal: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  const { data, response } = await open(cursor, signal);
  if (data) return data;
  throw new ProtocolError(`a stream answered ${response.status} without a body`);
}

/**
 * The messages of one connection's body. The JSON is the service's, typed as the
 * document types it (as openapi-fetch types `response.json()`): this is the one place
 * a parsed value becomes `M`.
 */
async function* messages<M extends Message>(
  body: ReadableStream<Uint8Array>, format: "ndjson" | "sse", idleMs: number,
): AsyncGenerator<M> {
  if (format === "ndjson") {
    for await (const value of ndjson(body, idleMs)) yield value as M;
    return;
  }
  for await (const event of serverSentEvents(body, idleMs)) {
    const message = fromSse(event);
    if (message !== undefined) yield message as M;
  }
}

/** The NDJSON message an SSE event stands for: its name is the message's `type`. */
function fromSse({ event, data }: SseEvent): object | undefined {
  const value = parsed(data);
  switch (event) {
    case "event":
      return { type: "event", event: value };
    case "view":
      return { type: "view", view: value };
    case "analysis":
      return { type: "analysis", ...(value as object) };
    case "end":
      return { type: "end", ...(value as object) };
    default:
      return undefined; // an event name this client does not know yet: skipped
  }
}
