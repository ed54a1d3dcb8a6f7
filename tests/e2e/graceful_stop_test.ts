/**
 * SIGTERM while engine-http is serving: a request in progress is answered
 * by its worker before the engine exits (built-in workers stop first, so the
 * workers that answer their requests still run).
 */
import assert from "node:assert/strict";
import { startHttpEngine } from "../support/http_engine.ts";
import { eventually, SDK_URL } from "../support/local_worker.ts";

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
  const { dir, engine, base } = await startHttpEngine("slow", WORKER);
  try {
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
