import assert from "node:assert/strict";
import { Channel } from "../../engine/channels/channel.ts";
import { MemoryLogger } from "./_testing.ts";
import { ResponseStream } from "./streamed_response.ts";

/** A response stream whose writer sent `frames`, then `chunk` (which commits it) and its end. */
async function streamed(frames: unknown[], chunk = "body"): Promise<ResponseStream> {
  const channel = new Channel({ id: "c", key: "k", bufferSize: 64, createdAt: 0 });
  const committed = Promise.withResolvers<void>();
  const stream = new ResponseStream(channel, () => committed.resolve());
  for (const frame of frames) channel.push(JSON.stringify(frame));
  channel.push(new TextEncoder().encode(chunk));
  channel.endWrite();
  await committed.promise;
  return stream;
}

Deno.test("ResponseStream repeats a header whose set_headers value is a list, as a returned response does", async () => {
  const stream = await streamed([
    { type: "set_status", status_code: 201 },
    { type: "set_headers", headers: { "set-cookie": ["a=1", "b=2"], "x-one": "1" } },
  ]);
  const log = new MemoryLogger();
  const response = stream.toResponse("f", log, () => {});
  assert.equal(response.status, 201);
  assert.deepEqual(response.headers.getSetCookie(), ["a=1", "b=2"]);
  assert.equal(response.headers.get("x-one"), "1");
  assert.equal(await response.text(), "body");
  assert.deepEqual(log.entries, []);
});

Deno.test("ResponseStream names each set_headers value it cannot send, and why", async () => {
  const stream = await streamed([
    {
      type: "set_headers",
      headers: {
        "x-map": { a: 1 },
        "x-crlf": "a\r\nx-injected: 1",
        "x-wide": "✓",
        "x-list": ["ok", null],
        "x-kept": "yes",
      },
    },
  ]);
  const log = new MemoryLogger();
  const response = stream.toResponse("orders::export", log, () => {});
  assert.equal(response.headers.get("x-kept"), "yes");
  assert.equal(response.headers.get("x-injected"), null);
  for (const name of ["x-map", "x-crlf", "x-wide", "x-list"]) {
    assert.equal(response.headers.get(name), null, name);
  }
  await response.body?.cancel();
  assert.equal(log.entries.length, 1);
  const [entry] = log.entries;
  assert.equal(entry!.level, "warn");
  assert.equal(
    entry!.message,
    'Function "orders::export" streamed a response: ignored header "x-map" has a map, not a string; ' +
      'header "x-crlf" holds "\\r" (U+000D), which would end the header: remove it; ' +
      'header "x-wide" holds "✓" (U+2713), which a header cannot carry: percent-encode the value; ' +
      'header "x-list" has a list holding null, not a string',
  );
});
