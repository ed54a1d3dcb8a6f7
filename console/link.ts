/**
 * How the console reaches the engine: calling functions, and listening to a
 * trigger (`engine::events`, `state`) through a function of its own. The
 * same two operations work in the engine's process (through the built-in
 * worker API) and against an engine elsewhere (as a worker, with the
 * TypeScript SDK), so everything above this file has one code path, and
 * reads only what any client of the engine can read.
 *
 * @module
 */
import type { EngineApi } from "../engine/api.ts";
import { registerWorker } from "../sdk/typescript/mod.ts";

/** A failed call, with the engine's error code, and the function's stack trace when it sent one. */
export class LinkError extends Error {
  constructor(readonly code: string, message: string, readonly stacktrace?: string) {
    super(message);
    this.name = "LinkError";
  }
}

export interface ListenRequest {
  type: string;
  config: unknown;
}

export interface EngineLink {
  /** The engine's WebSocket URL, for display and to find its HTTP worker. */
  readonly engineUrl: string;
  /** Calls a function; rejects with a {@link LinkError}. */
  call(functionId: string, payload: unknown, timeoutMs?: number): Promise<unknown>;
  /**
   * Registers an internal function (not traced, hidden from default lists),
   * binds it to a trigger and returns the undo.
   */
  listen(trigger: ListenRequest, handler: (payload: unknown) => unknown): () => void;
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
let listeners = 0;

/** A unique function id for a listener, so two consoles never become replicas. */
function listenerId(namespace: string): string {
  const tag = crypto.randomUUID().slice(0, 8);
  return `${namespace}::listen-${tag}-${++listeners}`;
}

function linkError(e: unknown): LinkError {
  if (e instanceof LinkError) return e;
  const { code, stacktrace } = (e ?? {}) as { code?: unknown; stacktrace?: unknown };
  const message = e instanceof Error ? e.message : String(e);
  return new LinkError(
    typeof code === "string" ? code : "invocation_failed",
    message,
    typeof stacktrace === "string" && stacktrace !== "" ? stacktrace : undefined,
  );
}

/** The console inside the engine's process, as the built-in worker `engine-console`. */
export function builtinLink(api: EngineApi, engineUrl: string, namespace: string): EngineLink {
  return {
    engineUrl,
    async call(functionId, payload, timeoutMs = DEFAULT_TIMEOUT_MS) {
      try {
        return await api.call(functionId, payload, { timeoutMs });
      } catch (e) {
        throw linkError(e);
      }
    },
    listen(trigger, handler) {
      const id = listenerId(namespace);
      const unregisterFunction = api.registerFunction(id, handler, {
        metadata: { internal: true },
      });
      const unregisterTrigger = api.registerTrigger({ ...trigger, function_id: id });
      return () => {
        unregisterTrigger();
        unregisterFunction();
      };
    },
    close: () => Promise.resolve(),
  };
}

export interface RemoteOptions {
  /** The worker name the engine lists for this connection. */
  name: string;
  /** Listener function ids are `<namespace>::listen-…`. */
  namespace: string;
  /** How long to wait for the first connection (default 5 s). */
  connectTimeoutMs?: number;
}

/**
 * The console (or `engine logs --follow`) against the engine at `url`, as a
 * worker. Sends `ENGINE_TOKEN` when set; reconnects and re-registers its
 * listeners after an engine restart (`engine logs --follow` ends instead
 * when the engine goes away: cli/logs.ts). Rejects when the engine does not
 * answer within `connectTimeoutMs`.
 */
export async function remoteLink(url: string, options: RemoteOptions): Promise<EngineLink> {
  const worker = registerWorker(url, {
    worker_name: options.name,
    reconnect: { initialDelayMs: 200, maxDelayMs: 2000 },
  });
  const timeoutMs = options.connectTimeoutMs ?? 5000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      worker.ready(),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no connection within ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
  } catch (e) {
    await worker.shutdown({ drainTimeoutMs: 0 });
    throw new LinkError(
      "unreachable",
      `Cannot reach the engine at ${url}: ${(e as Error).message}`,
    );
  } finally {
    clearTimeout(timer);
  }
  return {
    engineUrl: url,
    async call(functionId, payload, timeoutMs = DEFAULT_TIMEOUT_MS) {
      // While the engine is away the SDK would hold the call until its time-out
      // (30 s of "Loading…" on every page); a reader is better told at once.
      if (!worker.isConnected) {
        throw new LinkError(
          "unreachable",
          `Not connected to the engine at ${url}: it is stopped or restarting (reconnecting)`,
        );
      }
      try {
        return await worker.trigger({ function_id: functionId, payload, timeoutMs });
      } catch (e) {
        throw linkError(e);
      }
    },
    listen(trigger, handler) {
      const id = listenerId(options.namespace);
      const fn = worker.registerFunction(id, handler, { metadata: { internal: true } });
      const t = worker.registerTrigger({ ...trigger, function_id: id });
      return () => {
        t.unregister();
        fn.unregister();
      };
    },
    close: () => worker.shutdown({ drainTimeoutMs: 1000 }),
  };
}
