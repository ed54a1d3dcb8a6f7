import assert from "node:assert/strict";
import { Engine } from "./core.ts";
import type { Peer } from "./peer.ts";
import { LogStore } from "./observability/logs.ts";
import { TraceStore } from "./observability/traces.ts";

/** A peer that takes nothing: only its connection matters here. */
const idlePeer: Peer = {
  kind: "websocket",
  invoke() {},
  registerTrigger: () => Promise.resolve(undefined),
  unregisterTrigger() {},
  triggerRefused() {},
  protocolError() {},
  close() {},
  backlog: 0,
  overloaded: false,
};

Deno.test("a connection the engine no longer has registers no function, trigger or trigger type", () => {
  const logs = new LogStore();
  const engine = new Engine({ log: logs.logger({ source: "engine" }), traces: new TraceStore() });
  const conn = engine.connect(idlePeer);
  engine.disconnect(conn.id);
  engine.registerFunction(conn, "t::late");
  engine.registerTriggerType(conn, "t-late", "too late");
  const refused = engine.registerTrigger(conn, {
    id: "late-1",
    type: "t-late",
    functionId: "t::late",
    config: {},
  });
  assert.equal(refused, undefined);
  assert.equal(engine.functions.has("t::late"), false);
  assert.equal(engine.triggers.type("t-late"), undefined);
  assert.equal(engine.triggers.get("late-1"), undefined);
});
