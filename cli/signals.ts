/**
 * Waiting for SIGINT or SIGTERM, for commands that run until stopped.
 *
 * @module
 */

/** Resolves with the first of SIGINT and SIGTERM; the listeners are removed then. */
export function stopSignal(): Promise<Deno.Signal> {
  const { promise, resolve } = Promise.withResolvers<Deno.Signal>();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  const handlers = signals.map((signal) => {
    const handler = () => {
      for (const [s, h] of handlers) Deno.removeSignalListener(s, h);
      resolve(signal);
    };
    Deno.addSignalListener(signal, handler);
    return [signal, handler] as const;
  });
  return promise;
}
