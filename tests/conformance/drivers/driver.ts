/**
 * The TypeScript SDK's conformance driver: a worker exposing the functions
 * of the driver contract (see `../cases.ts`). Prints "driver started" once
 * its registrations are queued; the test waits for the functions themselves.
 */
import { EngineError, Logger, registerWorker } from "../../../sdk/typescript/mod.ts";

const worker = registerWorker(Deno.env.get("ENGINE_URL"), {
  worker_name: "conformance-typescript",
  reconnect: { initialDelayMs: 50, maxDelayMs: 500 },
});
const logger = new Logger();

worker.registerFunction("conformance::echo", (payload: unknown) => payload);

worker.registerFunction(
  "conformance::call",
  async (req: { function_id: string; payload: unknown; timeout_ms?: number }) => {
    try {
      const result = await worker.trigger({
        function_id: req.function_id,
        payload: req.payload,
        ...(req.timeout_ms ? { timeoutMs: req.timeout_ms } : {}),
      });
      return { ok: result ?? null };
    } catch (error) {
      if (!(error instanceof EngineError)) throw error;
      return { error: { code: error.code, message: error.message } };
    }
  },
);

worker.registerFunction("conformance::fail", (req: { code?: string; message: string }) => {
  if (req.code) throw new EngineError(req.code, req.message);
  throw new Error(req.message);
});

worker.registerFunction("conformance::log", (req: { message: string; data?: unknown }) => {
  logger.info(req.message, req.data);
  return null;
});

Deno.addSignalListener("SIGTERM", async () => {
  await worker.shutdown();
  Deno.exit(0);
});
console.log("driver started");
