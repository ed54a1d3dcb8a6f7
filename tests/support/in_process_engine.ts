/**
 * An engine in this process on a free port, for tests that drive it over
 * real sockets: started before `fn`, stopped after it whatever happens.
 *
 * @module
 */
import { startEngine } from "../../engine/engine.ts";

export async function withEngine(
  fn: (url: string) => Promise<void>,
  options: Parameters<typeof startEngine>[0] = {},
): Promise<void> {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0, ...options });
  try {
    await fn(engine.url);
  } finally {
    await engine.stop();
  }
}
