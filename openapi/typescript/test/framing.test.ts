/** The two framings of a stream body, fed in awkward chunks (no service needed). */
import assert from "node:assert/strict";
import { test } from "node:test";

import { lines, ndjson, serverSentEvents, StreamSilent } from "../src/framing.js";

/** A body that arrives in exactly these chunks. */
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

test("lines end at LF, CRLF or CR, even when a chunk splits the line or its CRLF", async () => {
  const got = await all(lines(body("a\r", "\nb", "c\rd\n\n", "e"), 1_000));
  assert.deepEqual(got, ["a", "bc", "d", "", "e"]);
});

test("a character split across chunks is decoded whole", async () => {
  const bytes = new TextEncoder().encode("♠\n");
  const split = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.slice(0, 1));
      controller.enqueue(bytes.slice(1));
      controller.close();
    },
  });
  assert.deepEqual(await all(lines(split, 1_000)), ["♠"]);
});

test("ndjson skips the empty heartbeat lines", async () => {
  const got = await all(ndjson(body('{"type":"event"}\n', "\n", '{"type":"end"}\n'), 1_000));
  assert.deepEqual(got, [{ type: "event" }, { type: "end" }]);
});

test("server-sent events carry their name, joined data, last id and retry; comments are skipped",
  async () => {
    const got = await all(serverSentEvents(body(
      "retry: 1000\n\n",
      ": ping\n\n",
      "id: 14\nevent: event\ndata: {\"seq\":14}\n\n",
      "event: view\ndata: {\"a\":\ndata: 1}\n\n",
      "event: end\nretry: 500\ndata:{\"reason\":\"finished\"}\n\n",
    ), 1_000));
    assert.deepEqual(got, [
      { event: "event", data: '{"seq":14}', id: "14", retry: undefined },
      { event: "view", data: '{"a":\n1}', id: "14", retry: undefined },
      { event: "end", data: '{"reason":"finished"}', id: "14", retry: 500 },
    ]);
  });

test("a body silent for longer than the idle time is taken for a dead connection", async () => {
  const silent = new ReadableStream<Uint8Array>({ start() { /* never sends */ } });
  await assert.rejects(all(lines(silent, 50)), StreamSilent);
});
