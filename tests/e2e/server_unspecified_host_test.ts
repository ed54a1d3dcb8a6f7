/**
 * An engine bound to every interface (`host: 0.0.0.0` or `::`) gives the
 * address a client on this machine dials, `ws://127.0.0.1:<port>` or
 * `ws://[::1]:<port>`, wherever its URL is used to connect: `engine.url`,
 * the start-up line (which also says it listens on every interface) and
 * the console's engine URL (its footer). `ws://0.0.0.0:<port>` is not
 * dialable on every OS (Windows refuses it).
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { RawWorker } from "../support/raw_worker.ts";

const TOKEN = "every-interface-token";

async function ipv6Available(): Promise<boolean> {
  try {
    Deno.listen({ hostname: "::1", port: 0 }).close();
    return true;
  } catch {
    return false;
  }
}

Deno.test("startEngine() on 0.0.0.0 and :: gives a url a local client dials", async () => {
  const cases: [string, string][] = [["0.0.0.0", "127.0.0.1"]];
  if (await ipv6Available()) cases.push(["::", "[::1]"]);
  for (const [host, dialed] of cases) {
    const engine = await startEngine({ host, port: 0, token: TOKEN, shutdownGraceMs: 0 });
    try {
      assert.equal(engine.url, `ws://${dialed}:${engine.port}`, host);
      assert.equal(engine.hostname, host, "hostname stays the bound host");
      const worker = await RawWorker.connect(engine.url, { authorization: `Bearer ${TOKEN}` });
      try {
        assert.ok(Array.isArray((await worker.call("engine::workers::list", {})).result.workers));
      } finally {
        await worker.close();
      }
    } finally {
      await engine.stop();
    }
  }
});

Deno.test("engine --config with host 0.0.0.0 prints a dialable URL; the console shows it", async () => {
  const { file } = await tempConfig(
    "host: 0.0.0.0\nport: 0\nconsole:\n  port: 0\nworkers: []\n",
  );
  const engine = await spawnEngine({ config: file, env: { ENGINE_TOKEN: TOKEN } });
  try {
    const listening = await engine.waitForLine(/Engine listening on /);
    assert.match(listening, /^Engine listening on ws:\/\/127\.0\.0\.1:\d+ \(every interface/);
    assert.equal(new URL(engine.url).hostname, "127.0.0.1");
    const consoleLine = await engine.waitForLine(/Console on http:\/\//);
    const consoleUrl = /(http:\/\/\S+)/.exec(consoleLine)![1]!;
    const config = await (await fetch(`${consoleUrl}/api/config`)).json();
    assert.equal(config.engine_url, engine.url);
  } finally {
    await engine.stop();
  }
});
