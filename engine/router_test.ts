import assert from "node:assert/strict";
import { FunctionRegistry } from "./registry/functions.ts";
import { route } from "./router.ts";

function registry(entries: [string, string][]) {
  const r = new FunctionRegistry<string>();
  for (const [id, owner] of entries) r.add(id, owner, {});
  return r;
}

Deno.test("route() answers not_found for an id no one provides", () => {
  assert.deepEqual(route(registry([["a::b", "w1"]]), "x::y", () => 0), { kind: "not_found" });
});

Deno.test("route() picks the replica with the fewest calls in flight", () => {
  const r = registry([["a::b", "w1"], ["a::b", "w2"], ["a::b", "w3"]]);
  const cases: [Record<string, number>, string][] = [
    [{ w1: 3, w2: 1, w3: 2 }, "w2"],
    [{ w1: 0, w2: 5, w3: 5 }, "w1"],
    [{ w1: 9, w2: 9, w3: 0 }, "w3"],
  ];
  for (const [load, expected] of cases) {
    for (let tick = 0; tick < 3; tick++) {
      const out = route(r, "a::b", (o) => load[o] ?? 0, tick);
      assert.deepEqual(
        out,
        { kind: "routed", owner: expected, info: {}, replicas: 3 },
        JSON.stringify({ load, tick }),
      );
    }
  }
});

Deno.test("route() rotates between equally idle replicas", () => {
  const r = registry([["a::b", "w1"], ["a::b", "w2"]]);
  const owners = [0, 1, 2, 3].map((tick) =>
    (route(r, "a::b", () => 0, tick) as { owner: string }).owner
  );
  assert.deepEqual(owners, ["w1", "w2", "w1", "w2"]);
});
