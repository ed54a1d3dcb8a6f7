/**
 * RouteTable against a reference model: the table as it was first written,
 * comparing every new route with every live one. Random sequences of adds,
 * replacements and removals must get the same outcomes, the same refusal
 * messages (naming the same route) and the same live routes in the same order.
 */
import assert from "node:assert/strict";
import { parsePattern, type Route, routeKey, RouteTable, type Segment } from "./routes.ts";

type Outcome = { kind: "changed" | "unchanged" } | { kind: "refused"; reason: string };

/** The reference: each change checks every live route. */
class ModelTable {
  #byKey = new Map<string, Route[]>();
  #keyOf = new Map<string, string>();

  routes(): Route[] {
    return [...this.#byKey.values()].map((stack) => stack[stack.length - 1]!);
  }

  get(triggerId: string): Route | undefined {
    const key = this.#keyOf.get(triggerId);
    return key === undefined
      ? undefined
      : this.#byKey.get(key)?.find((r) => r.triggerId === triggerId);
  }

  add(route: Route): Outcome {
    const base = this.#without(route.triggerId);
    const key = routeKey(route);
    for (const [otherKey, stack] of base.byKey) {
      const other = stack[stack.length - 1]!;
      if (otherKey === key) {
        if (other.functionId !== route.functionId) {
          return {
            kind: "refused",
            reason: `Cannot bind route ${q(key)} to function ${q(route.functionId)}: ` +
              `already bound to function ${q(other.functionId)} by trigger ${q(other.triggerId)}`,
          };
        }
        continue;
      }
      const clash = paramClash(route.segments, other.segments);
      if (clash) {
        return {
          kind: "refused",
          reason:
            `Cannot register route ${q(key)}: parameter ":${clash[0]}" clashes with ":${
              clash[1]
            }" ` +
            `of route ${q(otherKey)}: parameters at the same position need the same name`,
        };
      }
    }
    base.byKey.set(key, [...(base.byKey.get(key) ?? []), route]);
    base.keyOf.set(route.triggerId, key);
    this.#byKey = base.byKey;
    this.#keyOf = base.keyOf;
    return { kind: "changed" };
  }

  remove(triggerId: string): Outcome {
    if (!this.#keyOf.has(triggerId)) return { kind: "unchanged" };
    ({ byKey: this.#byKey, keyOf: this.#keyOf } = this.#without(triggerId));
    return { kind: "changed" };
  }

  #without(triggerId: string) {
    const byKey = new Map(this.#byKey);
    const keyOf = new Map(this.#keyOf);
    const key = keyOf.get(triggerId);
    if (key !== undefined) {
      const rest = byKey.get(key)!.filter((r) => r.triggerId !== triggerId);
      if (rest.length === 0) byKey.delete(key);
      else byKey.set(key, rest);
      keyOf.delete(triggerId);
    }
    return { byKey, keyOf };
  }
}

function paramClash(a: readonly Segment[], b: readonly Segment[]): [string, string] | undefined {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.kind === "param" && y.kind === "param") {
      if (x.name !== y.name) return [x.name, y.name];
    } else if (x.kind !== "literal" || y.kind !== "literal" || x.value !== y.value) {
      return undefined;
    }
  }
  return undefined;
}

function q(value: string): string {
  return JSON.stringify(value);
}

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const SEGMENTS = ["a", "b", ":x", ":y", ":id"];
const METHODS = ["GET", "POST"] as const;

function randomRoute(pick: (n: number) => number): Route {
  const parts = Array.from({ length: pick(4) }, () => SEGMENTS[pick(SEGMENTS.length)]!);
  if (pick(6) === 0) parts.push(""); // a trailing slash
  const parsed = parsePattern(`/${parts.join("/")}`);
  if (parsed.kind !== "ok") return randomRoute(pick); // a parameter named twice
  return {
    ...parsed.value,
    method: METHODS[pick(2)]!,
    functionId: `f${pick(2)}`,
    triggerId: `t${pick(12)}`,
    workerId: "w",
    middlewareFunctionIds: [],
  };
}

const summary = (routes: Route[]) =>
  routes.map((r) => `${routeKey(r)} ${r.functionId} ${r.triggerId}`);

Deno.test("RouteTable decides and orders as the every-route reference does", () => {
  for (let seed = 1; seed <= 200; seed++) {
    const pick = random(seed);
    const table = new RouteTable();
    const model = new ModelTable();
    for (let step = 0; step < 60; step++) {
      const remove = pick(4) === 0;
      const triggerId = `t${pick(12)}`;
      const route = randomRoute(pick);
      const what = remove ? `remove ${triggerId}` : `add ${routeKey(route)} ${route.triggerId}`;
      const context = `seed ${seed}, step ${step}: ${what}`;
      const expected = remove ? model.remove(triggerId) : model.add(route);
      assert.deepEqual(remove ? table.remove(triggerId) : table.add(route), expected, context);
      assert.deepEqual(summary(table.routes()), summary(model.routes()), context);
      for (let t = 0; t < 12; t++) {
        assert.equal(table.get(`t${t}`), model.get(`t${t}`), `${context}: get t${t}`);
      }
    }
  }
});
