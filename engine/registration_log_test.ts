import assert from "node:assert/strict";
import { recordingLog } from "../tests/support/recording_log.ts";
import { RegistrationLog } from "./registration_log.ts";

const lines = (infos: [string, unknown][]) => infos.map(([message]) => message);

Deno.test("RegistrationLog names the worker as it calls itself once it has said so", () => {
  const { log, infos } = recordingLog();
  const registrations = new RegistrationLog(log);
  const conn = { id: "w1", name: "worker-w1" };
  registrations.registered(conn, "math::add");
  registrations.registered(conn, "math::sub");
  assert.deepEqual(infos, [], "held until the worker says its name");
  conn.name = "math-worker";
  registrations.described(conn);
  registrations.registered(conn, "math::mul");
  assert.deepEqual(lines(infos), [
    'Function math::add registered by "math-worker"',
    'Function math::sub registered by "math-worker"',
    'Function math::mul registered by "math-worker"',
  ]);
});

Deno.test("RegistrationLog writes held lines when the worker leaves, or after waiting", async () => {
  const { log, infos } = recordingLog();
  const registrations = new RegistrationLog(log, 20);
  registrations.registered({ id: "w1", name: "worker-w1" }, "a::b");
  registrations.left("w1");
  assert.deepEqual(lines(infos), ['Function a::b registered by "worker-w1"']);

  registrations.registered({ id: "w2", name: "worker-w2" }, "c::d");
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.deepEqual(lines(infos).at(-1), 'Function c::d registered by "worker-w2"');
  // A worker that comes back under the same id starts unnamed again.
  registrations.described({ id: "w3", name: "named" });
  registrations.left("w3");
  registrations.registered({ id: "w3", name: "worker-w3" }, "e::f");
  assert.equal(infos.length, 2);
  registrations.left("w3");
  assert.deepEqual(lines(infos).at(-1), 'Function e::f registered by "worker-w3"');
});
