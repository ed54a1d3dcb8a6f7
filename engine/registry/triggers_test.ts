import assert from "node:assert/strict";
import { TriggerRegistry } from "./triggers.ts";

const t = (id: string, type: string, owner: string) => ({
  id,
  type,
  functionId: "a::b",
  config: {},
  owner,
});

Deno.test("TriggerRegistry.addType() hands back the triggers waiting for that type", () => {
  const r = new TriggerRegistry<string>();
  r.add(t("t1", "cron", "w1"));
  r.add(t("t2", "http", "w1"));
  assert.deepEqual(r.addType("cron", "every N", "p").map((x) => x.id), ["t1"]);
});

Deno.test("TriggerRegistry.removeType() only lets the provider remove it, and parks its triggers", () => {
  const r = new TriggerRegistry<string>();
  r.addType("cron", "", "p");
  const { record } = r.add(t("t1", "cron", "w1"));
  record.status = "active";
  assert.equal(r.removeType("cron", "someone-else"), false);
  assert.equal(r.removeType("cron", "p"), true);
  assert.equal(r.get("t1")!.status, "pending");
  assert.equal(r.type("cron"), undefined);
});

Deno.test("TriggerRegistry.removeType() forgets the old provider's refusal of a parked trigger", () => {
  const r = new TriggerRegistry<string>();
  r.addType("cron", "", "p");
  const { record } = r.add(t("t1", "cron", "w1"));
  record.status = "failed";
  record.error = "every is required";
  r.removeType("cron", "p");
  assert.equal(r.get("t1")!.status, "pending");
  assert.equal(r.get("t1")!.error, undefined);
});

Deno.test("TriggerRegistry.add() replaces a trigger with the same id and returns the old one", () => {
  const r = new TriggerRegistry<string>();
  r.add(t("t1", "cron", "w1"));
  const { replaced } = r.add({ ...t("t1", "cron", "w1"), functionId: "c::d" });
  assert.equal(replaced?.functionId, "a::b");
  assert.equal(r.get("t1")!.functionId, "c::d");
  assert.deepEqual(r.ofOwner("w1").map((x) => x.id), ["t1"]);
});
