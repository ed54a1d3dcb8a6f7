/** A worker registering `bench::echo` (returns its payload): prints `ready`. */
import { registerWorker } from "../sdk/typescript/mod.ts";

const worker = registerWorker(Deno.env.get("ENGINE_URL"), { worker_name: "bench-echo" });
worker.registerFunction("bench::echo", (payload: unknown) => payload);
const routes = Number(Deno.env.get("BENCH_ROUTES") ?? "0");
const offset = Number(Deno.env.get("BENCH_ROUTE_OFFSET") ?? "0");
if (routes > 0) {
  worker.registerFunction(
    "bench::http",
    (req: { body: unknown }) => ({ status_code: 200, body: req.body }),
  );
  for (let i = 0; i < routes; i++) {
    worker.registerTrigger({
      type: "http",
      function_id: "bench::http",
      config: {
        api_path: i + offset === 0 ? "/bench/echo" : `/bench/r${i + offset}/:id`,
        http_method: "POST",
      },
    });
  }
}
await worker.ready();
console.log("ready");
// A clean exit on SIGTERM, so `--cpu-prof` (bench/profile.ts) writes its profile.
Deno.addSignalListener("SIGTERM", () => Deno.exit(0));
