import assert from "node:assert/strict";
import { FunctionRegistry } from "./functions.ts";

Deno.test("FunctionRegistry.add() reports a new id once and keeps one replica per owner", () => {
  const r = new FunctionRegistry<string>();
  assert.equal(r.add("a::b", "w1", {}), true);
  assert.equal(r.add("a::b", "w1", { description: "again" }), false);
  assert.equal(r.replicas("a::b").length, 1);
  assert.equal(r.replicas("a::b")[0]!.info.description, "again");
  assert.equal(r.add("a::b", "w2", {}), false);
  assert.deepEqual(r.replicas("a::b").map((x) => x.owner), ["w1", "w2"]);
});

Deno.test("FunctionRegistry.remove() only removes the owner's replica and reports when the id is gone", () => {
  const r = new FunctionRegistry<string>();
  r.add("a::b", "w1", {});
  r.add("a::b", "w2", {});
  assert.equal(r.remove("a::b", "w3"), false);
  assert.equal(r.remove("a::b", "w1"), false);
  assert.deepEqual(r.replicas("a::b").map((x) => x.owner), ["w2"]);
  assert.equal(r.remove("a::b", "w2"), true);
  assert.equal(r.has("a::b"), false);
  assert.equal(r.size, 0);
});

Deno.test("FunctionRegistry.removeOwner() drops every function of a worker and returns the vanished ids", () => {
  const r = new FunctionRegistry<string>();
  r.add("a::one", "w1", {});
  r.add("a::two", "w1", {});
  r.add("a::two", "w2", {});
  assert.deepEqual(r.removeOwner("w1").sort(), ["a::one"]);
  assert.deepEqual(r.ofOwner("w1"), []);
  assert.deepEqual(r.replicas("a::two").map((x) => x.owner), ["w2"]);
  assert.equal(r.countOf("w2"), 1);
  assert.deepEqual(r.removeOwner("nobody"), []);
});
