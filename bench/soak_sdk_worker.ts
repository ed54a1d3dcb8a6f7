/**
 * The soak's worker process, on the TypeScript SDK: a function that answers,
 * one that never does, an HTTP route and a state trigger. Prints `ready` once
 * registered; SIGTERM shuts it down cleanly, SIGKILL drops it.
 *
 * Usage: ENGINE_URL=ws://… deno run -A bench/soak_sdk_worker.ts
 */
import { registerWorker } from "../sdk/typescript/mod.ts";

const worker = registerWorker(Deno.env.get("ENGINE_URL"), { worker_name: "soak-sdk" });
worker.registerFunction("soaksdk::echo", (data: unknown) => data);
worker.registerFunction("soaksdk::hang", () => new Promise(() => {}));
worker.registerFunction("soaksdk::http", () => ({ status_code: 200, body: { ok: true } }));
worker.registerTrigger({
  type: "http",
  function_id: "soaksdk::http",
  config: { api_path: "/soaksdk", http_method: "GET" },
});
worker.registerTrigger({
  type: "state",
  function_id: "soaksdk::echo",
  config: { scope: "soaksdk" },
});
Deno.addSignalListener("SIGTERM", async () => {
  // A call of soaksdk::hang never drains: the wait for it is cut short.
  await Promise.race([worker.shutdown(), new Promise((r) => setTimeout(r, 1000))]);
  Deno.exit(0);
});
await worker.trigger({ function_id: "engine::health::check", payload: {} });
console.log("ready");
