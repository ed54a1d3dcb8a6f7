/**
 * What the engine process does with an engine bug nobody catches: a promise
 * rejection nobody awaits, or an error thrown in a timer or a microtask.
 * Deno's default ends the process, dropping every call in flight. Once the
 * engine serves, such a fault is logged at error level with its stack, named
 * as an engine bug and counted, and the engine keeps serving. During start-up
 * it fails the start-up: the caller stops what has started and exits 1.
 *
 * @module
 */

/** An error nobody caught, as the process-wide handler saw it. */
export interface EngineFault {
  kind: "unhandled promise rejection" | "uncaught error";
  /** The rejection's reason or the thrown value. */
  error: unknown;
}

export interface FaultHandler {
  /** Resolves with the first fault that comes before {@linkcode FaultHandler.serving}. */
  readonly duringStartUp: Promise<EngineFault>;
  /** From now on a fault goes to `report` (a line naming it and its stack), and the process runs on. */
  serving(report: (message: string) => void): void;
  /** Removes the handler: Deno's default (the process ends) applies again. */
  remove(): void;
}

/** `fault`'s kind and what was thrown: its stack for an Error. */
export function faultDetail(fault: EngineFault): string {
  const { error } = fault;
  const thrown = error instanceof Error
    ? (error.stack ?? `${error.name}: ${error.message}`)
    : `${typeof error === "string" ? JSON.stringify(error) : String(error)} (not an Error)`;
  return `${fault.kind}: ${thrown}`;
}

/** Installs the process-wide handler for uncaught rejections and errors. */
export function installFaultHandler(): FaultHandler {
  const startUp = Promise.withResolvers<EngineFault>();
  let report: ((message: string) => void) | undefined;
  let count = 0;
  const handle = (fault: EngineFault) => {
    count++;
    if (report === undefined) startUp.resolve(fault);
    else report(`Engine bug #${count}, the engine keeps serving: ${faultDetail(fault)}`);
  };
  const onRejection = (event: PromiseRejectionEvent) => {
    event.preventDefault();
    handle({ kind: "unhandled promise rejection", error: event.reason });
  };
  const onError = (event: ErrorEvent) => {
    event.preventDefault();
    handle({ kind: "uncaught error", error: event.error ?? event.message });
  };
  globalThis.addEventListener("unhandledrejection", onRejection);
  globalThis.addEventListener("error", onError);
  return {
    duringStartUp: startUp.promise,
    serving(to) {
      report = to;
    },
    remove() {
      globalThis.removeEventListener("unhandledrejection", onRejection);
      globalThis.removeEventListener("error", onError);
    },
  };
}
