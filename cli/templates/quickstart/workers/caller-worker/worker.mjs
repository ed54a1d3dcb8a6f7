/**
 * caller-worker: the TypeScript SDK half of the quickstart, as a plain ES
 * module so that Node 20 runs it without a build step (Deno runs it too).
 *
 * It registers math::add_two_numbers, which calls math::add (the Python
 * worker) through the engine. The engine starts it with ENGINE_URL set; run
 * by hand it connects to ws://localhost:49134.
 */
import { Logger, registerWorker } from "./engine-sdk.mjs";

const worker = registerWorker(undefined, { worker_name: "caller-worker" });
const logger = new Logger();

/** @param {{a: number, b: number}} payload */
async function addTwoNumbers(payload) {
  logger.info("math::add_two_numbers called in TypeScript", payload);
  const result = await worker.trigger({ function_id: "math::add", payload });
  return {
    ...result,
    message: "Two workers in two languages, one call: math::add answered from Python.",
  };
}

worker.registerFunction("math::add_two_numbers", addTwoNumbers, {
  description: "Adds a and b by calling math::add",
});

// --- Uncomment after: engine worker add engine-http ---
// worker.registerFunction("http::add_two_numbers", async (request) => {
//   const result = await worker.trigger({
//     function_id: "math::add_two_numbers",
//     payload: request.body,
//   });
//   return {
//     status_code: 200,
//     body: { c: result.c, running_total: result.running_total },
//     headers: { "Content-Type": "application/json" },
//   };
// });
// worker.registerTrigger({
//   type: "http",
//   function_id: "http::add_two_numbers",
//   config: { api_path: "/math/add-two-numbers", http_method: "POST" },
// });
// --- end ---

console.log("Caller worker started - listening for calls");
