/**
 * The two framings of a stream's body, read as they arrive: NDJSON (one JSON value per
 * line, an empty line a heartbeat) and Server-Sent Events (the WHATWG event-stream
 * format: `field: value` lines, a blank line ends an event, `:` a comment).
 *
 * Why by hand: `EventSource` cannot send `Authorization` and exists only in browsers,
 * and a bot reads the same body with `fetch` in Node; both framings are a few lines.
 * The reader uses `getReader()` rather than async iteration of the body, which not
 * every browser has.
 *
 * What they throw (errors.ts): a silence longer than `idleMs` is a `StreamSilent` (a
 * `TimeoutError`), a body whose reading failed (the connection cut) a `NetworkError`, and
 * an NDJSON line that is not JSON a `ProtocolError`.
 */
import { ApiError, NetworkError, ProtocolError, StreamSilent } from "./errors.js";

export { StreamSilent };

/** The body's text lines (`\n`, `\r\n` or `\r` ends one), a line split across chunks joined. */
export async function* lines(
  body: ReadableStream<Uint8Array>, idleMs: number,
): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  let afterCr = false; // a `\r` ended the last line: a `\n` first in the next chunk is its pair
  try {
    for (;;) {
      const { value, done } = await readWithin(reader, idleMs);
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      if (afterCr && buffered.startsWith("\n")) buffered = buffered.slice(1);
      afterCr = false;
      let end: RegExpExecArray | null;
      while ((end = /\r\n|\r|\n/.exec(buffered)) !== null) {
        if (end[0] === "\r" && end.index === buffered.length - 1) afterCr = true;
        yield buffered.slice(0, end.index);
        buffered = buffered.slice(end.index + end[0].length);
      }
    }
    buffered += decoder.decode();
    if (buffered !== "") yield buffered; // a last line without its newline
  } finally {
    // also on an early `return` of the consumer: closes the connection
    await reader.cancel().catch(() => undefined);
  }
}

async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>, ms: number,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silent = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StreamSilent(ms)), ms);
  });
  try {
    return await Promise.race([reader.read(), silent]);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new NetworkError("the stream's body could not be read", { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/** Each NDJSON line's value; empty lines (heartbeats) are skipped. */
export async function* ndjson(
  body: ReadableStream<Uint8Array>, idleMs: number,
): AsyncGenerator<unknown> {
  for await (const line of lines(body, idleMs)) {
    if (line.trim() !== "") yield parsed(line);
  }
}

/** A line's JSON value; a line that is none is a `ProtocolError`. */
export function parsed(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch (error) {
    throw new ProtocolError(`a stream line is not JSON: ${line.slice(0, 80)}`, { cause: error });
  }
}

/** One dispatched Server-Sent Event. */
export interface SseEvent {
  /** `message` when the event named none. */
  event: string;
  /** The `data` lines joined by `\n`. */
  data: string;
  /** The last `id` seen on the stream so far (the event's, or an earlier one's). */
  id: string | undefined;
  /** The `retry` field of this event, in ms. */
  retry: number | undefined;
}

/** The events of a `text/event-stream` body; comments (`: ping`) are skipped. */
export async function* serverSentEvents(
  body: ReadableStream<Uint8Array>, idleMs: number,
): AsyncGenerator<SseEvent> {
  let event = "";
  let data: string[] = [];
  let id: string | undefined;
  let retry: number | undefined;
  for await (const line of lines(body, idleMs)) {
    if (line === "") {
      if (data.length > 0) yield { event: event || "message", data: data.join("\n"), id, retry };
      event = "";
      data = [];
      retry = undefined;
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id" && !value.includes("\0")) id = value;
    else if (field === "retry" && /^\d+$/.test(value)) retry = Number(value);
  }
}
