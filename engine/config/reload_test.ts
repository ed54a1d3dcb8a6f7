import assert from "node:assert/strict";
import { parseConfig, type ParseConfigOptions } from "./parse.ts";
import { planReload } from "./reload.ts";

const options: ParseConfigOptions = { file: "engine-config.yaml", env: () => undefined };
const BEFORE = "port: 49134\nworkers:\n  - name: a\n    path: ./a\n  - name: b\n    path: ./b\n";

function current() {
  const result = parseConfig(BEFORE, options);
  assert.ok(result.ok);
  return result.config;
}

Deno.test("planReload() ignores an invalid edit and names its line", () => {
  const plan = planReload(current(), BEFORE.replace("path: ./b", "path: 3"), options);
  assert.ok(plan.kind === "reject");
  assert.equal(
    plan.error.message,
    "engine-config.yaml:6:11: workers[1].path: Expected a string, got 3: quote it",
  );
});

Deno.test("planReload() finds what a valid edit changes", async (t) => {
  const cases: [
    string,
    string,
    { added: string[]; removed: string[]; changed: string[]; keys: string[] } | "unchanged",
  ][] = [
    ["a comment only", `# note\n${BEFORE}`, "unchanged"],
    ["a worker added", `${BEFORE}  - name: c\n    path: ./c\n`, {
      added: ["c"],
      removed: [],
      changed: [],
      keys: [],
    }],
    ["a worker removed", "port: 49134\nworkers:\n  - name: a\n    path: ./a\n", {
      added: [],
      removed: ["b"],
      changed: [],
      keys: [],
    }],
    ["a worker changed", BEFORE.replace("./b", "./b2"), {
      added: [],
      removed: [],
      changed: ["b"],
      keys: [],
    }],
    ["the port", BEFORE.replace("49134", "50000"), {
      added: [],
      removed: [],
      changed: [],
      keys: ["port"],
    }],
    [
      "global middleware",
      `${BEFORE}rest_api:\n  middleware:\n    - function_id: auth::check\n`,
      { added: [], removed: [], changed: [], keys: ["rest_api"] },
    ],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => {
      const plan = planReload(current(), text, options);
      if (expected === "unchanged") {
        assert.equal(plan.kind, "unchanged");
        return;
      }
      assert.ok(plan.kind === "apply", plan.kind);
      assert.deepEqual({
        added: plan.workers.added.map((w) => w.name),
        removed: plan.workers.removed.map((w) => w.name),
        changed: plan.workers.changed.map((c) => c.next.name),
        keys: plan.changedKeys,
      }, expected);
    });
  }
});
