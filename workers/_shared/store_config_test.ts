import assert from "node:assert/strict";
import { z } from "zod";
import {
  openChosenStore,
  resolveStorePath,
  storeConfigFields,
  storeLocation,
  type StoreOpeners,
} from "./store_config.ts";

const Schema = z.strictObject(storeConfigFields("./data/things.db"));

Deno.test("storeConfigFields() defaults to SQLite at the worker's own file", () => {
  assert.deepEqual(Schema.parse({}), {
    adapter: "sqlite",
    path: "./data/things.db",
    synchronous: "normal",
    url: "redis://localhost:6379",
  });
});

const refused: [string, unknown, string, RegExp][] = [
  ["an unknown adapter", { adapter: "kv" }, "adapter", /sqlite/],
  ["an empty path", { path: "" }, "path", /.+/],
  ["an unknown synchronous mode", { synchronous: "off" }, "synchronous", /normal/],
  [
    "a URL that is not redis",
    { url: "http://localhost:6379" },
    "url",
    /^must be a URL starting with "redis:\/\/" or "rediss:\/\/"$/,
  ],
  ["a redis URL that does not parse", { url: "redis://[" }, "url", /redis:\/\//],
  ...["redis://cache:6379/abc", "redis://cache/0/1", "redis://cache?db=x", "redis://cache/-1"].map((
    url,
  ): [string, unknown, string, RegExp] => [
    `a redis URL whose database is not a number (${url})`,
    { url },
    "url",
    /^must name the database after the host as a number \("redis:\/\/host:6379\/0"\), not "[^"]+"$/,
  ]),
  [
    "a redis URL with a parameter ioredis would take as an option",
    { url: "redis://cache:6379?famly=6" },
    "url",
    /^must not have the parameter "famly": a Redis URL takes only "db" \(.*\) and "family" \(4 or 6/,
  ],
  [
    "a redis URL overriding the command time-out",
    { url: "rediss://:pw@cache/0?commandTimeout=1" },
    "url",
    /^must not have the parameter "commandTimeout": /,
  ],
  [
    "a redis URL with a family other than 4 or 6",
    { url: "redis://cache?family=ipv6" },
    "url",
    /^must give the parameter "family" as 4 or 6, not "ipv6"$/,
  ],
];

Deno.test("storeConfigFields() takes a redis URL with or without a database number", () => {
  for (
    const url of [
      "redis://cache",
      "redis://cache:6379/",
      "redis://:pw@cache:6379/15",
      "rediss://cache/0",
      "redis://cache?db=3&family=6",
      "redis://cache/1?family=4",
    ]
  ) {
    assert.equal(Schema.parse({ url }).url, url);
  }
});

for (const [what, raw, field, message] of refused) {
  Deno.test(`storeConfigFields() refuses ${what}, naming the field`, () => {
    const parsed = Schema.safeParse(raw);
    assert.equal(parsed.success, false);
    const issue = parsed.error?.issues[0];
    assert.deepEqual(issue?.path, [field]);
    assert.match(issue?.message ?? "", message);
  });
}

Deno.test("resolveStorePath() resolves relative paths against the base folder", () => {
  assert.equal(resolveStorePath("./data/state.db", "/srv/app"), "/srv/app/data/state.db");
  assert.equal(resolveStorePath("/var/lib/state.db", "/srv/app"), "/var/lib/state.db");
});

Deno.test("storeLocation() gives the absolute file, the redacted URL, or nothing", () => {
  const base = Schema.parse({});
  assert.deepEqual(storeLocation(base, "/srv/app"), { path: "/srv/app/data/things.db" });
  assert.deepEqual(
    storeLocation({ ...base, adapter: "redis", url: "redis://:secret@cache:6380/2" }, "/srv"),
    { url: "redis://:***@cache:6380/2" },
  );
  assert.deepEqual(storeLocation({ ...base, adapter: "memory" }, "/srv/app"), {});
});

/** Openers that say which one ran and with what. */
const openers: StoreOpeners<string> = {
  memory: () => "memory",
  sqlite: (file) => `sqlite ${file.path} ${file.synchronous}`,
  redis: (server) => Promise.resolve(`redis ${server.url} ${server.log ? "logged" : "silent"}`),
};

Deno.test("openChosenStore() calls the opener of the chosen adapter with its settings", async () => {
  const base = Schema.parse({ synchronous: "full", url: "redis://cache:6379" });
  const cases: [typeof base.adapter, string][] = [
    ["memory", "memory"],
    ["sqlite", "sqlite /srv/app/data/things.db full"],
    ["redis", "redis redis://cache:6379 silent"],
  ];
  for (const [adapter, opened] of cases) {
    assert.equal(
      await openChosenStore({ ...base, adapter }, { baseDir: "/srv/app" }, openers),
      opened,
    );
  }
});

Deno.test("openChosenStore() rejects, not throws, when an opener throws", async () => {
  const failing = {
    ...openers,
    sqlite: () => {
      throw new Error('Cannot open the state database "x.db": busy');
    },
  };
  const opening = openChosenStore(Schema.parse({}), { baseDir: "/srv" }, failing);
  await assert.rejects(opening, /Cannot open the state database "x\.db": busy/);
});
