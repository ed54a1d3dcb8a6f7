/**
 * Waiting for SIGINT or SIGTERM, for commands that run until stopped.
 *
 * @module
 */

/**
 * Resolves with the first of SIGINT and SIGTERM; the listeners are removed
 * then, or when `cancel` aborts (the promise then never settles). Listening
 * replaces the default action (the process killed with 130 or 143), so a
 * command calls this before it starts anything it has to stop.
 */
export function stopSignal(cancel?: AbortSignal): Promise<Deno.Signal> {
  const { promise, resolve } = Promise.withResolvers<Deno.Signal>();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  const remove = () => {
    for (const [s, h] of handlers) Deno.removeSignalListener(s, h);
    cancel?.removeEventListener("abort", remove);
  };
  const handlers = signals.map((signal) => {
    const handler = () => {
      remove();
      resolve(signal);
    };
    Deno.addSignalListener(signal, handler);
    return [signal, handler] as const;
  });
  if (cancel?.aborted) remove();
  else cancel?.addEventListener("abort", remove, { once: true });
  return promise;
}
