import assert from "node:assert/strict";
import { ParkedIds } from "./trigger_parking.ts";

const conn = (id: string, name = id) => ({ id, name });
const trigger = (id: string, functionId = "a::b") => ({
  id,
  type: "http",
  functionId,
  config: {},
});

Deno.test("ParkedIds.take() prefers the holder's worker name, else the first parked", () => {
  const parked = new ParkedIds<{ id: string; name: string }>();
  parked.park(conn("c1", "intruder"), trigger("t"));
  parked.park(conn("c2", "svc"), trigger("t", "svc::v1"));
  parked.park(conn("c2", "svc"), trigger("t", "svc::v2")); // asked again: the newest kept
  parked.park(conn("c3", "other"), trigger("t"));
  assert.equal(parked.size, 3);
  const first = parked.take("t", "svc");
  assert.deepEqual([first?.conn.id, first?.trigger.functionId], ["c2", "svc::v2"]);
  assert.equal(parked.take("t", "svc")?.conn.id, "c1");
  assert.equal(parked.take("t", "svc")?.conn.id, "c3");
  assert.equal(parked.take("t", "svc"), undefined);
  assert.equal(parked.size, 0);
});

Deno.test("ParkedIds.drop() and dropConn() forget what a connection parked", () => {
  const parked = new ParkedIds<{ id: string; name: string }>();
  parked.park(conn("c1"), trigger("t1"));
  parked.park(conn("c1"), trigger("t2"));
  parked.park(conn("c2"), trigger("t1"));
  assert.equal(parked.drop("c2", "t2"), false);
  assert.equal(parked.drop("c2", "t1"), true);
  parked.dropConn("c1");
  assert.equal(parked.size, 0);
  assert.equal(parked.take("t1", "c1"), undefined);
});
