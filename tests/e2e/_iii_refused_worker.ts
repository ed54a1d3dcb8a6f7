/**
 * A worker written with the published npm iii-sdk@0.22.1, unchanged, that
 * registers function ids the engine refuses (as a user's first worker may),
 * then `refused::ok` (the signal that the others were read) and
 * `refused::relay`, which calls `target` through the SDK and returns the
 * error the SDK gave, as a user of the SDK sees it. Prints "ready".
 */
import { registerWorker } from "iii-sdk";

export const REFUSED = ["greet", "orders.create", "b::odd.id", "stream::get(todos)"];

if (import.meta.main) {
  const worker = registerWorker(Deno.env.get("ENGINE_URL")!, {
    workerName: "refused-worker",
    otel: { enabled: false },
  });
  // "stream::get(todos)" is what iii-sdk's createStream(worker, "todos", …) registers first.
  for (const id of REFUSED) worker.registerFunction(id, () => Promise.resolve({ ran: id }));
  worker.registerFunction("refused::ok", () => Promise.resolve({ ok: true }));
  worker.registerFunction("refused::relay", async (p: { target: string }) => {
    try {
      return { result: await worker.trigger({ function_id: p.target, payload: {} }) };
    } catch (e) {
      const err = e as { code?: string; message: string };
      return { error: { code: err.code, message: err.message } };
    }
  });
  console.log("ready");
}
