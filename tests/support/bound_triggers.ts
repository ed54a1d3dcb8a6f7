/**
 * Test support for trigger types: binding a raw worker's function to a
 * trigger and reading the calls it received.
 *
 * @module
 */
import type { Frame, RawWorker } from "./raw_worker.ts";

/** Registers trigger `id` and waits until the engine reports it active (or fails with its error). */
export async function bind(
  worker: RawWorker,
  id: string,
  type: string,
  functionId: string,
  config: unknown = {},
): Promise<void> {
  worker.send({ type: "registertrigger", id, trigger_type: type, function_id: functionId, config });
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = await worker.call("engine::registered-triggers::info", { id });
    const t = r.result?.registered_triggers?.[0];
    if (t?.status === "active") return;
    if (t?.status === "failed") throw new Error(`Trigger "${id}" refused: ${t.error}`);
    if (Date.now() > deadline) {
      throw new Error(`Timed out waiting for trigger "${id}" to be active: ${JSON.stringify(r)}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The payloads of the calls of `functionId` `worker` received so far. */
export function calls(worker: RawWorker, functionId: string): Frame[] {
  return worker.frames
    .filter((f) => f.type === "invokefunction" && f.function_id === functionId)
    .map((f) => f.data);
}
