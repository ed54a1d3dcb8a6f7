import assert from "node:assert/strict";
import { RefusedIds } from "./refused_ids.ts";

const billing = { id: "w1", name: "billing" };
const orders = { id: "w2", name: "orders" };
const rule = 'Invalid function id "greet": a function id is two or more parts';

Deno.test("RefusedIds.notFound() says which worker was refused the id and why", () => {
  type Step = (r: RefusedIds) => void;
  const cases: [string, Step[], string, string][] = [
    ["nothing refused", [], "greet", "Function greet not found"],
    [
      "refused to one worker",
      [(r) => r.add(billing, "greet", rule)],
      "greet",
      `Function greet not found: worker "billing" tried to register it and was refused: ${rule}`,
    ],
    [
      "another id refused",
      [(r) => r.add(billing, "greet", rule)],
      "hello",
      "Function hello not found",
    ],
    [
      "refused to two workers: the latest refusal",
      [(r) => r.add(orders, "greet", "first"), (r) => r.add(billing, "greet", "second")],
      "greet",
      'Function greet not found: worker "billing" tried to register it and was refused: second',
    ],
    [
      "refused again to the first worker: the latest refusal",
      [
        (r) => r.add(orders, "greet", "first"),
        (r) => r.add(billing, "greet", "second"),
        (r) => r.add(orders, "greet", "third"),
      ],
      "greet",
      'Function greet not found: worker "orders" tried to register it and was refused: third',
    ],
    [
      "the worker left",
      [(r) => r.add(billing, "greet", rule), (r) => r.forget("w1")],
      "greet",
      "Function greet not found",
    ],
    [
      "another worker left",
      [(r) => r.add(billing, "greet", "why"), (r) => r.forget("w2")],
      "greet",
      'Function greet not found: worker "billing" tried to register it and was refused: why',
    ],
    [
      "one of two workers left",
      [
        (r) => r.add(orders, "greet", "first"),
        (r) => r.add(billing, "greet", "second"),
        (r) => r.forget("w1"),
      ],
      "greet",
      'Function greet not found: worker "orders" tried to register it and was refused: first',
    ],
  ];
  for (const [name, steps, id, message] of cases) {
    const refused = new RefusedIds();
    for (const step of steps) step(refused);
    const error = refused.notFound(id);
    assert.deepEqual({ code: error.code, message: error.message }, {
      code: "function_not_found",
      message,
    }, name);
  }
});

Deno.test("RefusedIds names the worker as it is called when the call comes", () => {
  const refused = new RefusedIds();
  const worker = { id: "w1", name: "worker-1ce8b7c5" };
  refused.add(worker, "greet", "why");
  worker.name = "greeter"; // said its name after registering (iii-sdk does)
  assert.match(refused.notFound("greet").message, /worker "greeter" tried/);
});

Deno.test("RefusedIds keeps the latest ids of each worker up to its limit", () => {
  const refused = new RefusedIds({ perWorker: 3 });
  for (const id of ["a", "b", "c", "a", "d"]) refused.add(billing, id, `why ${id}`);
  for (const id of ["e", "f", "g"]) refused.add(orders, id, `why ${id}`); // a limit per worker
  const said = (id: string) => /worker "(\w+)"/.exec(refused.notFound(id).message)?.[1] ?? "-";
  assert.deepEqual(
    ["a", "b", "c", "d", "e", "f", "g"].map(said),
    // "b" is the oldest of billing's: "a" was refused again after it.
    ["billing", "-", "billing", "billing", "orders", "orders", "orders"],
  );
});

Deno.test("RefusedIds keeps no id over 1024 characters: what it holds stays small", () => {
  const refused = new RefusedIds();
  const id = "x".repeat(100_000);
  refused.add(billing, id, "why");
  assert.equal(refused.notFound(id).message, `Function ${id} not found`);
});
