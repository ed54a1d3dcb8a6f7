import assert from "node:assert/strict";
import { MAX_KEY, REDACTED, redactor } from "./redact.ts";
import { LogStore, MIN_SECRET } from "./logs.ts";
import { TraceStore } from "./traces.ts";

Deno.test("redactor() replaces values under secret keys, at any depth and in any case", () => {
  const redact = redactor(["x-session"]);
  const cases: [unknown, unknown][] = [
    [{ authorization: "Bearer t" }, { authorization: REDACTED }],
    [{ headers: { Cookie: "a=b", accept: "*/*" } }, {
      headers: { Cookie: REDACTED, accept: "*/*" },
    }],
    [{ list: [{ "X-API-Key": "k" }, 3] }, { list: [{ "X-API-Key": REDACTED }, 3] }],
    [{ "x-session": { nested: true } }, { "x-session": REDACTED }],
    [{ response: { channel_id: "c1", access_key: "k", direction: "write" } }, {
      response: { channel_id: "c1", access_key: REDACTED, direction: "write" },
    }],
    [{ "http.request.header.authorization": "t" }, {
      "http.request.header.authorization": REDACTED,
    }],
    [[["authorization", "Bearer t"], ["accept", "*/*"]], [["authorization", REDACTED], [
      "accept",
      "*/*",
    ]]],
    [{ user: "ann", password: "hunter2", Token: "t", refresh_token: "r", "X-Auth-Token": "x" }, {
      user: "ann",
      password: REDACTED,
      Token: REDACTED,
      refresh_token: REDACTED,
      "X-Auth-Token": REDACTED,
    }],
    [{ db: { secret: "s", api_key: "k", client_secret: "c" } }, {
      db: { secret: REDACTED, api_key: REDACTED, client_secret: REDACTED },
    }],
    ["authorization", "authorization"],
    [null, null],
    [42, 42],
  ];
  for (const [input, expected] of cases) {
    assert.deepEqual(redact(input), expected, JSON.stringify(input));
  }
});

Deno.test("redactor() returns the same object when nothing is secret, and never mutates", () => {
  const redact = redactor();
  const clean = { a: { b: [1, { c: "d" }] } };
  assert.equal(redact(clean), clean);
  const dirty = { a: { authorization: "t" }, b: { c: 1 } };
  const out = redact(dirty) as typeof dirty;
  assert.equal(dirty.a.authorization, "t");
  assert.equal(out.b, dirty.b, "untouched branches are shared");
});

Deno.test("LogStore.write() redacts data before storing and before the sink sees it", () => {
  const printed: unknown[] = [];
  const logs = new LogStore({ redact: ["x-tenant-secret"], sink: (e) => printed.push(e.data) });
  logs.write({
    time: 1,
    level: "warn",
    message: "Rejected",
    source: "engine-http",
    data: { headers: { authorization: "Bearer s3cret", "x-tenant-secret": "t" } },
  });
  const expected = { headers: { authorization: REDACTED, "x-tenant-secret": REDACTED } };
  assert.deepEqual(logs.query()[0]!.data, expected);
  assert.deepEqual(printed, [expected]);
  assert.ok(!JSON.stringify(logs.query()).includes("s3cret"));
});

Deno.test("TraceStore.record() redacts span attributes", () => {
  const traces = new TraceStore(10, { redact: ["x-custom"] });
  traces.record({
    traceId: "t".repeat(32),
    spanId: "s".repeat(16),
    kind: "http",
    name: "GET /",
    start: 1,
    durationMs: 1,
    status: "ok",
    attributes: { "http.request.header.cookie": "a=b", "x-custom": "c", method: "GET" },
  });
  assert.deepEqual(traces.trace("t".repeat(32))[0]!.attributes, {
    "http.request.header.cookie": REDACTED,
    "x-custom": REDACTED,
    method: "GET",
  });
});

Deno.test("redactor() decides the same for a key however often and among however many keys it sees it", () => {
  const redact = redactor(["x-session"]);
  // 5,000 keys in all, more than it remembers (in maps of 1,000: larger ones are cut).
  for (let part = 0; part < 5; part++) {
    const many = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [`k${part * 1000 + i}`, i]),
    );
    assert.equal(redact(many), many, "none of them secret");
  }
  for (let round = 0; round < 3; round++) {
    assert.deepEqual(redact({ Authorization: "t", "X-Session": "s", accept: "*" }), {
      Authorization: REDACTED,
      "X-Session": REDACTED,
      accept: "*",
    });
  }
});

Deno.test("redactor() cuts what is nested past 32 levels: no secret or unbounded list hides there", () => {
  const redact = redactor();
  let deep: unknown = { password: "hunter2", items: Array.from({ length: 100_000 }, (_, i) => i) };
  for (let i = 0; i < 40; i++) deep = { k: deep };
  const text = JSON.stringify(redact(deep));
  assert.ok(!text.includes("hunter2"), "the password nested 40 levels deep was kept");
  assert.ok(text.length < 2_000, `${text.length} characters kept of a 100,000-item list`);
  assert.match(text, /nested more than 32 levels deep: cut/);
  // Shallow enough: kept as it is.
  let shallow: unknown = "leaf";
  for (let i = 0; i < 30; i++) shallow = { k: shallow };
  assert.equal(redact(shallow), shallow);
});

Deno.test("redactor() cuts a key longer than MAX_KEY, keeping its value, order and secrecy", () => {
  const redact = redactor();
  const long = "k".repeat(MAX_KEY + 500);
  const secretLong = `${"h".repeat(MAX_KEY)}.authorization`;
  const input = JSON.parse(
    JSON.stringify({ a: 1, [long]: { x: 2 }, [secretLong]: "Bearer t" }).replace(
      '{"a":1',
      '{"__proto__":"p","a":1',
    ),
  );
  const out = redact(input) as Record<string, unknown>;
  const keys = Object.keys(out);
  assert.deepEqual(keys.map((k) => k.length <= MAX_KEY + 40), [true, true, true, true]);
  assert.equal(keys[0], "__proto__", "kept as a key, not made the prototype");
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.equal(out.a, 1);
  assert.match(keys[2]!, /^k{1024} … \[500 more characters cut\]$/);
  assert.deepEqual(out[keys[2]!], { x: 2 });
  assert.equal(out[keys[3]!], REDACTED);
  assert.equal(Object.keys(input)[2], long, "the input is not changed");
});

Deno.test("LogStore.write() replaces the engine's secret values in messages, in the store and the sink", () => {
  const seen: string[] = [];
  const store = new LogStore({
    sink: (e) => seen.push(e.message),
    secrets: ["s3cr3t-token", "abc", undefined],
  });
  const log = store.logger({ source: "worker" });
  log.info("ENGINE_TOKEN=s3cr3t-token HOME=/root s3cr3t-token");
  log.info("abc is too short to be searched for");
  const stored = store.query().map((e) => e.message);
  const expected = [
    `ENGINE_TOKEN=${REDACTED} HOME=/root ${REDACTED}`,
    "abc is too short to be searched for",
  ];
  assert.deepEqual(stored, expected);
  assert.deepEqual(seen, expected);
  assert.ok(MIN_SECRET > "abc".length);
});
