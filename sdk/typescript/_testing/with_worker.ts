/**
 * Shared set-up of the SDK tests: a scripted engine plus a worker connected
 * to it, with fast reconnects.
 *
 * @module
 */

import { registerWorker, type Worker, type WorkerOptions } from "../mod.ts";
import { type PeerConnection, ScriptedEngine } from "./engine_peer.ts";

/** A valid W3C traceparent for tests. */
export const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

/** Worker options for tests: a fixed name and reconnects within milliseconds. */
export const FAST: WorkerOptions = {
  worker_name: "test-worker",
  reconnect: { initialDelayMs: 10, maxDelayMs: 50 },
};

/** Runs `fn` with a scripted engine and a worker connected to it, then cleans up. */
export async function withWorker(
  fn: (ctx: { engine: ScriptedEngine; worker: Worker; conn: PeerConnection }) => Promise<void>,
  options: WorkerOptions = {},
): Promise<void> {
  const engine = new ScriptedEngine();
  const worker = registerWorker(engine.url, { ...FAST, ...options });
  try {
    await worker.ready();
    const conn = await engine.connection(0);
    await fn({ engine, worker, conn });
  } finally {
    await worker.shutdown();
    await engine.close();
  }
}
