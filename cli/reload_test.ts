import assert from "node:assert/strict";
import { writeLocalWorker } from "../tests/support/local_worker.ts";
import { startReloadHarness } from "./_reload_testing.ts";

const BASE = "host: 127.0.0.1\nport: 0\nconsole:\n  enabled: false\n";
const STATE = "  - name: engine-state\n    config:\n      adapter: memory\n";
const HTTP = "  - name: engine-http\n    config:\n      port: 0\n";
const LOCAL = "  - name: sleeper\n    path: ./sleeper\n";

Deno.test("ConfigReloader.reload() applies edits to built-in and local workers, and ignores invalid ones", async (t) => {
  const harness = await startReloadHarness("reload-test-", `${BASE}workers: []\n`);
  const { dir, file, engine, supervisor, reloader, edit, lastLog } = harness;
  await writeLocalWorker(`${dir}/sleeper`, { name: "sleeper", start: "exec sleep 300" });
  try {
    await t.step("added workers start", async () => {
      assert.equal(await edit(`${BASE}workers:\n${STATE}${LOCAL}`), "apply");
      assert.deepEqual(engine.builtinNames(), ["engine-state"]);
      assert.deepEqual(supervisor.list().map((s) => s.name), ["sleeper"]);
      assert.equal(lastLog(), 'Config reloaded: started "engine-state", "sleeper"');
    });
    await t.step("an invalid edit is reported with file, line and field, and ignored", async () => {
      assert.equal(await edit(`${BASE}workers:\n${STATE}  - name: nope\n`), "reject");
      assert.ok(
        lastLog().startsWith(
          `Config change ignored, still running the previous config: ${file}:9:11: ` +
            'workers[1].name: Unknown worker "nope": give it a "path", or use a built-in worker: ',
        ),
        lastLog(),
      );
      assert.deepEqual(engine.builtinNames(), ["engine-state"]);
      assert.deepEqual(supervisor.list().map((s) => s.name), ["sleeper"]);
    });
    await t.step("the same config again is valid again and changes nothing", async () => {
      assert.equal(await edit(`# a comment\n${BASE}workers:\n${STATE}${LOCAL}`), "unchanged");
      assert.equal(lastLog(), `Config file ${file} is valid again`);
    });
    await t.step("changed, removed and added at once", async () => {
      const state = STATE.replace("memory", "sqlite\n      path: ./state.db");
      assert.equal(await edit(`${BASE}workers:\n${state}${HTTP}`), "apply");
      assert.deepEqual(engine.builtinNames().toSorted(), ["engine-http", "engine-state"]);
      assert.equal(engine.describeBuiltin("engine-state")?.adapter, "sqlite");
      assert.deepEqual(supervisor.list(), []);
      assert.equal(
        lastLog(),
        'Config reloaded: started "engine-http"; stopped "sleeper"; restarted "engine-state"',
      );
    });
    await t.step("global middleware reaches engine-http without a restart", async () => {
      const middleware = "rest_api:\n  middleware:\n    - function_id: auth::check\n";
      const port = engine.describeBuiltin("engine-http")?.port;
      assert.equal(await edit(`${BASE}workers:\n${STATE}${HTTP}${middleware}`), "apply");
      assert.equal(
        lastLog(),
        'Config reloaded: restarted "engine-state"; reconfigured "engine-http"',
      );
      assert.equal(engine.describeBuiltin("engine-http")?.port, port, "the same listener");
    });
    await t.step(
      "a built-in worker whose new config cannot start runs on with its previous one",
      async () => {
        using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        const busy = HTTP.replace("port: 0", `port: ${taken.addr.port}`);
        const middleware = "rest_api:\n  middleware:\n    - function_id: auth::check\n";
        assert.equal(await edit(`${BASE}workers:\n${STATE}${busy}${middleware}`), "apply");
        const messages = engine.logs.query({ worker: "engine" }).slice(-4).map((e) => e.message);
        assert.match(
          messages[0]!,
          /^Worker "engine-http" failed to start: .*address already in use/,
        );
        assert.match(messages[1]!, /^Started worker engine-http /);
        assert.equal(
          messages[2],
          'Worker "engine-http" runs on with its previous config: its new config could not start',
        );
        assert.equal(messages[3], 'Config reloaded: kept on its previous config "engine-http"');
        assert.equal(engine.logs.query({ worker: "engine" }).at(-1)?.level, "warn");
        assert.deepEqual(reloader.builtinFailures(), []);
        const port = engine.describeBuiltin("engine-http")?.port as number;
        assert.notEqual(port, taken.addr.port);
        const served = await fetch(`http://127.0.0.1:${port}/nothing-here`);
        assert.equal(served.status, 404, "engine-http still answers");
        await served.body?.cancel();
        // Back to the config it runs on: nothing to restart for.
        assert.equal(await edit(`${BASE}workers:\n${STATE}${HTTP}${middleware}`), "apply");
        assert.equal(lastLog(), 'Config reloaded: reconfigured "engine-http"');
      },
    );
    await t.step(
      "a built-in worker that could not start starts when the file is saved unchanged",
      async () => {
        const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
        const busy = HTTP.replace("port: 0", `port: ${taken.addr.port}`);
        assert.equal(await edit(`${BASE}workers:\n${STATE}`), "apply");
        assert.equal(await edit(`${BASE}workers:\n${STATE}${busy}`), "apply");
        assert.deepEqual(reloader.builtinFailures().map((f) => f.name), ["engine-http"]);
        assert.equal(await edit(`${BASE}workers:\n${STATE}${busy}`), "unchanged");
        assert.equal(lastLog(), 'Config saved unchanged: could not start "engine-http"');
        taken.close();
        assert.equal(await edit(`${BASE}workers:\n${STATE}${busy}`), "unchanged");
        assert.equal(lastLog(), 'Config saved unchanged: started "engine-http"');
        assert.deepEqual(reloader.builtinFailures(), []);
        assert.equal(engine.describeBuiltin("engine-http")?.port, taken.addr.port);
        assert.equal(await edit(`${BASE}workers:\n${STATE}${HTTP}`), "apply");
      },
    );
    await t.step("keys only a restart applies are reported", async () => {
      const text = `${BASE.replace("port: 0", "port: 1")}workers:\n${STATE}${HTTP}`;
      assert.equal(await edit(text), "apply");
      const warnings = engine.logs.query({ level: "warn" }).map((e) => e.message);
      assert.ok(warnings.includes('Config change of "port" takes effect when the engine restarts'));
    });
  } finally {
    await harness.stop();
  }
});
