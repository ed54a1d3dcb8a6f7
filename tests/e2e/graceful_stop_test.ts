/**
 * SIGTERM while engine-http is serving: a request in progress is answered
 * by its worker before the engine exits (built-in workers stop first, so the
 * workers that answer their requests still run).
 */
import assert from "node:assert/strict";
import { spawnEngine } from "../support/engine_process.ts";
import { eventually, SDK_URL, writeLocalWorker } from "../support/local_worker.ts";

const WORKER = `import { registerWorker } from ${JSON.stringify(SDK_URL)};
const worker = registerWorker(Deno.env.get("ENGINE_URL"));
worker.registerFunction("slow::op", async () => {
  console.log("slow::op started");
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return { status_code: 200, body: { done: true } };
});
worker.registerFunction("slow::ready", () => ({ status_code: 200, body: "ready" }));
worker.registerTrigger({ type: "http", function_id: "slow::op", config: { api_path: "/slow", http_method: "POST" } });
worker.registerTrigger({ type: "http", function_id: "slow::ready", config: { api_path: "/ready", http_method: "GET" } });
await worker.ready();
`;

Deno.test("SIGTERM lets an HTTP request in progress finish, then the engine exits 0", async () => {
  const dir = await Deno.makeTempDir({ prefix: "engine-graceful-" });
  await writeLocalWorker(`${dir}/slow`, {
    name: "slow",
    start: "deno run --allow-net --allow-env --allow-read main.ts",
    files: { "main.ts": WORKER },
  });
  await Deno.writeTextFile(
    `${dir}/engine-config.yaml`,
    "port: 0\nconsole:\n  enabled: false\nworkers:\n  - name: engine-http\n    config:\n      port: 0\n  - name: slow\n    path: ./slow\n",
  );
  const engine = await spawnEngine({ config: `${dir}/engine-config.yaml`, cwd: dir });
  try {
    const httpLine = await engine.waitForLine(/Started worker engine-http .*"port":(\d+)/);
    const base = `http://127.0.0.1:${/"port":(\d+)/.exec(httpLine)![1]}`;
    await eventually(
      async () => {
        const r = await fetch(`${base}/ready`).catch(() => undefined);
        await r?.body?.cancel();
        return r?.status === 200;
      },
      "the /ready route",
      30_000,
    );

    const answer = fetch(`${base}/slow`, { method: "POST" });
    await engine.waitForLine(/slow::op started/);
    const code = engine.stop("SIGTERM");
    const response = await answer;
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { done: true });
    assert.equal(await code, 0);
  } finally {
    await engine.stop().catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});
