import assert from "node:assert/strict";
import { diffWorkers, equal } from "./diff.ts";
import type { WorkerEntry } from "./schema.ts";

const http: WorkerEntry = {
  name: "engine-http",
  config: { port: 3111, cors: { allowed_origins: ["a"] } },
};
const math: WorkerEntry = { name: "math", path: "./math" };
const state: WorkerEntry = { name: "engine-state", config: { adapter: "sqlite" } };

Deno.test("diffWorkers() sorts entries into added, removed, changed and unchanged", async (t) => {
  const cases: [string, WorkerEntry[], WorkerEntry[], ReturnType<typeof diffWorkers>][] = [
    ["nothing", [], [], { added: [], removed: [], changed: [], unchanged: [] }],
    ["same lists", [http, math], [http, math], {
      added: [],
      removed: [],
      changed: [],
      unchanged: [http, math],
    }],
    ["reordered", [http, math], [math, http], {
      added: [],
      removed: [],
      changed: [],
      unchanged: [math, http],
    }],
    ["added", [http], [http, math], { added: [math], removed: [], changed: [], unchanged: [http] }],
    ["removed", [http, math], [math], {
      added: [],
      removed: [http],
      changed: [],
      unchanged: [math],
    }],
    [
      "config changed",
      [http],
      [{ name: "engine-http", config: { port: 3112, cors: { allowed_origins: ["a"] } } }],
      {
        added: [],
        removed: [],
        changed: [{
          previous: http,
          next: { name: "engine-http", config: { port: 3112, cors: { allowed_origins: ["a"] } } },
        }],
        unchanged: [],
      },
    ],
    [
      "path changed",
      [math],
      [{ name: "math", path: "./math2" }],
      {
        added: [],
        removed: [],
        changed: [{ previous: math, next: { name: "math", path: "./math2" } }],
        unchanged: [],
      },
    ],
    [
      "config keys reordered",
      [http],
      [{ name: "engine-http", config: { cors: { allowed_origins: ["a"] }, port: 3111 } }],
      {
        added: [],
        removed: [],
        changed: [],
        unchanged: [{
          name: "engine-http",
          config: { cors: { allowed_origins: ["a"] }, port: 3111 },
        }],
      },
    ],
    [
      "everything at once",
      [http, math],
      [state, { name: "math", path: "./other" }],
      {
        added: [state],
        removed: [http],
        changed: [{ previous: math, next: { name: "math", path: "./other" } }],
        unchanged: [],
      },
    ],
  ];
  for (const [name, previous, next, expected] of cases) {
    await t.step(name, () => assert.deepEqual(diffWorkers(previous, next), expected));
  }
});

Deno.test("equal() compares JSON-like values structurally", async (t) => {
  const cases: [unknown, unknown, boolean][] = [
    [1, 1, true],
    [1, "1", false],
    [null, null, true],
    [null, {}, false],
    [[1, 2], [1, 2], true],
    [[1, 2], [2, 1], false],
    [[1], { 0: 1 }, false],
    [{ a: 1, b: [2] }, { b: [2], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: 2 }, false],
    [{ a: 1, b: undefined }, { a: 1 }, true],
    [{ a: { b: { c: 1 } } }, { a: { b: { c: 2 } } }, false],
  ];
  for (const [a, b, expected] of cases) {
    await t.step(`${JSON.stringify(a)} vs ${JSON.stringify(b)}`, () => {
      assert.equal(equal(a, b), expected);
      assert.equal(equal(b, a), expected);
    });
  }
});
