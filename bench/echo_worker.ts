/** A worker registering `bench::echo` (returns its payload): prints `ready`. */
import { registerWorker } from "../sdk/typescript/mod.ts";

const worker = registerWorker(Deno.env.get("ENGINE_URL"), {
  worker_name: "bench-echo",
  batchFrames: Deno.env.get("BENCH_BATCH") !== "0",
});
worker.registerFunction("bench::echo", (payload: unknown) => payload);
const routes = Number(Deno.env.get("BENCH_ROUTES") ?? "0");
const offset = Number(Deno.env.get("BENCH_ROUTE_OFFSET") ?? "0");
// A worker that only adds routes (offset > 0) binds them to a function of its own: sharing
// `bench::http` would make it a replica of the measured handler, and the measurement would then
// include the other process waking up, not the route count.
const handler = offset > 0 ? "bench::http_extra" : "bench::http";
if (routes > 0) {
  worker.registerFunction(
    handler,
    (req: { body: unknown }) => ({ status_code: 200, body: req.body }),
  );
  for (let i = 0; i < routes; i++) {
    worker.registerTrigger({
      type: "http",
      function_id: handler,
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
