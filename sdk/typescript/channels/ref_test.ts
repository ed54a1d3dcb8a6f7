import assert from "node:assert/strict";
import { channelUrl, isChannelRef, MAX_REF_DEPTH, replaceChannelRefs } from "./ref.ts";
import { channelFailure } from "./failure.ts";
import { HandshakeError } from "../websocket/handshake.ts";

const READ = { channel_id: "c1", access_key: "k1", direction: "read" } as const;
const WRITE = { channel_id: "c2", access_key: "k2", direction: "write" } as const;

Deno.test("isChannelRef() accepts only the ref shape", () => {
  const cases: [unknown, boolean][] = [
    [READ, true],
    [{ ...WRITE, extra: 1 }, true],
    [{ ...READ, direction: "both" }, false],
    [{ channel_id: "c", access_key: 1, direction: "read" }, false],
    [{ access_key: "k", direction: "read" }, false],
    [null, false],
    ["c1", false],
  ];
  for (const [value, expected] of cases) {
    assert.equal(isChannelRef(value), expected, JSON.stringify(value));
  }
});

Deno.test("channelUrl() builds /ws/channels/{id}?key=&dir= on the engine URL", () => {
  const cases: [string, string][] = [
    ["ws://127.0.0.1:49134", "ws://127.0.0.1:49134/ws/channels/c1?key=k1&dir=read"],
    ["ws://127.0.0.1:49134/", "ws://127.0.0.1:49134/ws/channels/c1?key=k1&dir=read"],
    ["wss://engine.example/base", "wss://engine.example/base/ws/channels/c1?key=k1&dir=read"],
  ];
  for (const [url, expected] of cases) assert.equal(channelUrl(url, READ), expected);
  const odd = { channel_id: "a b", access_key: "k&dir=write", direction: "read" } as const;
  assert.equal(
    channelUrl("ws://h:1", odd),
    "ws://h:1/ws/channels/a%20b?key=k%26dir%3Dwrite&dir=read",
  );
});

Deno.test("replaceChannelRefs() replaces refs at any depth and copies only the path to them", () => {
  const open = (ref: { direction: string; channel_id: string }) =>
    `${ref.direction}:${ref.channel_id}`;
  const untouched = { a: [1, { b: "x" }], c: null };
  assert.equal(replaceChannelRefs(untouched, open), untouched);
  assert.equal(replaceChannelRefs(READ, open), "read:c1");
  assert.equal(replaceChannelRefs(7, open), 7);

  const input = { keep: { n: 1 }, list: [WRITE, { deep: { ref: READ } }], body: "b" };
  const out = replaceChannelRefs(input, open) as typeof input;
  assert.deepEqual(out, {
    keep: { n: 1 },
    list: ["write:c2", { deep: { ref: "read:c1" } }],
    body: "b",
  });
  assert.equal(out.keep, input.keep); // no copy where there is no ref
  assert.deepEqual(input.list[0], WRITE); // the input is not changed

  const proto = JSON.parse(`{"__proto__": ${JSON.stringify(READ)}}`);
  const replaced = replaceChannelRefs(proto, open) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(replaced), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(replaced, "__proto__")?.value, "read:c1");

  let deep: unknown = READ;
  for (let i = 0; i <= MAX_REF_DEPTH; i++) deep = [deep];
  assert.equal(replaceChannelRefs(deep, open), deep); // too deep: left as it is
  let nested: unknown = READ;
  for (let i = 0; i < MAX_REF_DEPTH; i++) nested = [nested];
  assert.notEqual(replaceChannelRefs(nested, open), nested);
});

Deno.test("channelFailure() names the channel, the end and the cause", () => {
  const refused = new HandshakeError("WebSocket handshake failed: HTTP 409 Conflict", {
    status: 409,
    body: JSON.stringify({
      error: { code: "CHANNEL_CLAIMED", message: 'Channel "c1": its read end is claimed already' },
    }),
  });
  const cases: [Parameters<typeof channelFailure>, string, RegExp][] = [
    [
      [READ, { code: 1006, reason: "", wasClean: false }, refused],
      "channel_refused",
      /^Channel "c1": the engine refused to open its reader \(HTTP 409\): Channel "c1": its read end is claimed already$/,
    ],
    [
      [READ, { code: 1011, reason: "writer broke off", wasClean: true }],
      "channel_broken",
      /^Channel "c1" broke off: the engine closed the reader \(code 1011: writer broke off\)$/,
    ],
    [
      [READ, { code: 1006, reason: "", wasClean: false }],
      "channel_broken",
      /its connection dropped \(no close frame\)/,
    ],
    [
      [WRITE, { code: 1000, reason: "reader closed", wasClean: true }],
      "channel_closed",
      /^Channel "c2" cannot be written to: the engine closed the writer \(code 1000: reader closed\)$/,
    ],
    [
      [WRITE, { code: 1006, reason: "", wasClean: false }, new Error("connect ECONNREFUSED")],
      "channel_broken",
      /^Channel "c2" broke off: connect ECONNREFUSED$/,
    ],
  ];
  for (const [args, code, message] of cases) {
    const err = channelFailure(...args);
    assert.equal(err.code, code);
    assert.match(err.message, message);
  }
});
