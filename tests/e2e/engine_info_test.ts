/**
 * `engine::functions::info`, `engine::workers::info`, `engine::triggers::info`,
 * `engine::registered-triggers::info` and `engine::functions::list`'s
 * `workers` filter over real sockets; and the npm iii-sdk@0.22.1's
 * `EngineFunctions`/`EngineTriggers` constants used by a worker process.
 */
import assert from "node:assert/strict";
import { withEngine } from "../support/in_process_engine.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { spawnWorker } from "../support/worker_process.ts";
import { bind } from "../support/bound_triggers.ts";

Deno.test("engine::*::info answer by id, and refuse unknown ids and bad input with the reference's codes", () =>
  withEngine(async (url) => {
    const w = await RawWorker.connect(url);
    const other = await RawWorker.connect(url);
    try {
      await w.call("engine::workers::register", { name: "alpha" });
      await other.call("engine::workers::register", { name: "beta" });
      w.send({
        type: "registerfunction",
        id: "a::one",
        description: "The first",
        request_format: { type: "object", properties: { n: { type: "number" } } },
        response_format: { type: "number" },
      });
      other.serve("b::two", () => null);
      await waitForFunctions(w, ["a::one", "b::two"]);
      await bind(other, "t-b", "log", "b::two", { level: "error" });

      const one = (await w.call("engine::functions::info", { function_id: "a::one" })).result;
      assert.equal(one.functions.length, 1);
      assert.deepEqual(
        { ...one.functions[0] },
        {
          function_id: "a::one",
          worker_name: "alpha",
          workers: ["alpha"],
          replicas: 1,
          description: "The first",
          metadata: null,
          request_format: { type: "object", properties: { n: { type: "number" } } },
          response_format: { type: "number" },
          internal: false,
          in_flight: 0,
          registered_triggers: [],
        },
      );
      const both = (await w.call("engine::functions::info", { function_ids: ["b::two", "a::one"] }))
        .result.functions;
      assert.deepEqual(both.map((f: Frame) => f.function_id), ["b::two", "a::one"]);
      assert.deepEqual(
        both[0].registered_triggers.map((t: Frame) => [t.id, t.trigger_type, t.config]),
        [["t-b", "log", { level: "error" }]],
      );

      const refusals: [string, unknown, string, RegExp][] = [
        [
          "engine::functions::info",
          { function_ids: ["a::one", "nope::x", "nope::y"] },
          "NOT_FOUND",
          /^Unknown function ids for engine::functions::info: "nope::x", "nope::y"$/,
        ],
        [
          "engine::functions::info",
          {},
          "INVALID_ARGUMENTS",
          /^Invalid input for engine::functions::info: payload: give either function_id or function_ids/,
        ],
        [
          "engine::functions::info",
          { function_id: "a::one", function_ids: ["a::one"] },
          "INVALID_ARGUMENTS",
          /either function_id or function_ids/,
        ],
        [
          "engine::functions::info",
          { function_ids: Array.from({ length: 33 }, (_, i) => `f::${i}`) },
          "INVALID_ARGUMENTS",
          /^Invalid input for engine::functions::info: field "function_ids": Too big/,
        ],
        [
          "engine::functions::info",
          { function_id: 7 },
          "INVALID_ARGUMENTS",
          /field "function_id"/,
        ],
        [
          "engine::workers::info",
          { name: "gamma" },
          "NOT_FOUND",
          /^Unknown worker name for engine::workers::info: "gamma"$/,
        ],
        [
          "engine::triggers::info",
          { id: "cron" },
          "NOT_FOUND",
          /^Unknown trigger type for engine::triggers::info: "cron"$/,
        ],
        [
          "engine::registered-triggers::info",
          { id: "t-none" },
          "NOT_FOUND",
          /^Unknown trigger id for engine::registered-triggers::info: "t-none"$/,
        ],
      ];
      for (const [fn, input, code, message] of refusals) {
        const { error } = await w.call(fn, input);
        assert.equal(error?.code, code, `${fn} ${JSON.stringify(input)}`);
        assert.match(error.message, message);
      }

      const beta = (await w.call("engine::workers::info", { name: "beta" })).result.workers;
      assert.deepEqual(beta.map((x: Frame) => [x.name, x.id]), [["beta", other.workerId]]);
      const byId = (await w.call("engine::workers::info", { worker_id: w.workerId })).result;
      assert.deepEqual(byId.workers.map((x: Frame) => x.name), ["alpha"]);
      const types = (await w.call("engine::triggers::info", { id: "log" })).result.triggers;
      assert.deepEqual(types.map((t: Frame) => [t.id, t.worker_name]), [["log", "engine"]]);
      const registered = (await w.call("engine::registered-triggers::info", { id: "t-b" })).result;
      assert.equal(registered.registered_triggers[0].worker_name, "beta");

      const listed = async (input: unknown) =>
        (await w.call("engine::functions::list", input)).result.functions
          .map((f: Frame) => f.function_id).filter((id: string) => !id.startsWith("engine::"));
      assert.deepEqual(await listed({ workers: ["beta"] }), ["b::two"]);
      assert.deepEqual(await listed({ workers: ["alpha", "beta"] }), ["a::one", "b::two"]);
      assert.deepEqual(await listed({ workers: [other.workerId] }), ["b::two"]);
      assert.deepEqual(await listed({ workers: [] }), []);
      assert.deepEqual(await listed({}), ["a::one", "b::two"]);
    } finally {
      await other.close();
      await w.close();
    }
  }));

/** The first JSON line `{got, data}` the process printed that `match` accepts. */
async function printed(output: string[], match: (line: Frame) => boolean): Promise<Frame> {
  for (const deadline = Date.now() + 10_000;;) {
    for (const text of output.join("").split("\n")) {
      if (!text.startsWith("{")) continue;
      const line = JSON.parse(text);
      if (match(line)) return line;
    }
    if (Date.now() > deadline) {
      throw new Error(`Timed out; the worker printed:\n${output.join("")}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

Deno.test("npm iii-sdk@0.22.1: EngineFunctions.INFO_FUNCTIONS and EngineTriggers work against the engine", () =>
  withEngine(async (url) => {
    const iii = await spawnWorker("tests/fixtures/core/iii_engine_constants_worker.ts", {
      ENGINE_URL: url,
    });
    const raw = await RawWorker.connect(url);
    try {
      const info = await printed(iii.output, (l) => l.got === "engine::functions::info");
      // Its name comes with engine::workers::register, which the SDK sends after this call.
      assert.deepEqual(
        info.data.functions.map((f: Frame) => [f.function_id, f.description]),
        [["iii::functions", "Prints the function list"], ["iii::logs", null]],
      );
      await waitForFunctions(raw, ["iii::functions", "iii::logs"]);
      for (const id of ["iii::functions", "iii::logs"]) {
        for (let active = false, deadline = Date.now() + 10_000; !active;) {
          assert.ok(Date.now() < deadline, `the trigger of ${id} became active`);
          const all = (await raw.call("engine::registered-triggers::list", {})).result;
          active = all.registered_triggers.some((t: Frame) =>
            t.function_id === id && t.status === "active"
          );
          if (!active) await new Promise((r) => setTimeout(r, 10));
        }
      }
      raw.serve("late::one", () => null);
      const changed = await printed(iii.output, (l) =>
        l.got === "engine::functions-available" &&
        l.data.functions.some((f: Frame) => f.function_id === "late::one"));
      assert.equal(changed.data.event, "functions_changed");

      await raw.call("engine::log::info", { message: "below warn" });
      await raw.call("engine::log::error", { message: "for iii", data: { n: 1 } });
      const record = await printed(iii.output, (l) => l.got === "log" && l.data.body === "for iii");
      assert.equal(record.data.severity_text, "ERROR");
      assert.deepEqual(record.data.attributes["log.data"], { n: 1 });
      assert.ok(!iii.output.join("").includes("below warn"));
    } finally {
      await raw.close();
      await iii.stop();
    }
  }));
