/**
 * One request to a running engine, the way the CLI needs it: connect, call
 * one function, close. Uses the runtime's WebSocket; a long-lived worker
 * uses the SDK instead.
 *
 * @module
 */

import { CLI_SDK } from "../engine/connection_log.ts";
import { memberText } from "../engine/protocol/member_text.ts";
import { pendingTokenFile } from "./token_rotation.ts";

/** Where the CLI looks for the engine when nothing says otherwise (see `caller_engine.ts`). */
export const DEFAULT_ENGINE_URL = "ws://localhost:49134";

export interface CallFailure {
  code: string;
  message: string;
  stacktrace?: string;
}

export class EngineUnreachable extends Error {
  constructor(readonly url: string, detail: string) {
    super(`Cannot reach the engine at ${url}: ${detail}`);
  }
}

export class FunctionFailed extends Error {
  constructor(readonly body: CallFailure) {
    super(`${body.code}: ${body.message}`);
  }
}

/** Whether the runtime's error `detail` is the engine refusing the token (or its absence). */
export function isRefusal(detail: string): boolean {
  return /\bstatus code:? 401\b/i.test(detail);
}

/**
 * What went wrong, in the operator's terms: the runtime reports a refused
 * token only as "Invalid status code: 401". `pendingFile` is the config file
 * that sets the refused token after the engine read it to start (see
 * `token_rotation.ts`): a restart applies it.
 */
export function refusalDetail(detail: string, sentToken: boolean, pendingFile?: string): string {
  if (isRefusal(detail)) {
    if (!sentToken) {
      return "the engine requires a token (HTTP 401): set ENGINE_TOKEN to the engine's auth.token";
    }
    const refused =
      "the engine refused the token in ENGINE_TOKEN (HTTP 401): it is not the token " +
      "the engine started with";
    return pendingFile === undefined
      ? `${refused} (its auth.token, or its own ENGINE_TOKEN when its config sets none)`
      : `${refused}, though "auth.token" in ${pendingFile} is now this token (a token changed ` +
        "in the config file applies when the engine restarts; until then, send the one it " +
        "started with)";
  }
  return detail.replace(/^NetworkError: /, "");
}

/** What a trigger hands a listener ({@linkcode EngineClient.listen}). */
export interface ListenRequest {
  type: string;
  config: unknown;
}

/**
 * An open connection to the engine for a few calls. It says it is the CLI's
 * (`sdk: "engine-cli"`): the engine logs no line for it, and `engine worker
 * list` counts it apart from the workers.
 */
export class EngineClient {
  #socket: WebSocket;
  #pending = new Map<
    string,
    { resolve: (value: unknown, text: string) => void; reject: (e: Error) => void }
  >();
  /** The listeners' functions, by id. */
  #listeners = new Map<string, (payload: unknown) => unknown>();
  #closed: Promise<CloseEvent>;

  private constructor(socket: WebSocket, readonly url: string) {
    this.#socket = socket;
    this.#closed = new Promise((resolve) => socket.addEventListener("close", resolve));
    socket.addEventListener("message", (e) => {
      const text = String(e.data);
      let f;
      try {
        f = JSON.parse(text);
      } catch {
        return;
      }
      if (f?.type === "invokefunction") return void this.#answer(f);
      if (f?.type !== "invocationresult") return;
      const p = this.#pending.get(f.invocation_id);
      if (!p) return;
      this.#pending.delete(f.invocation_id);
      if (f.error) p.reject(new FunctionFailed(f.error));
      else p.resolve(f.result ?? null, memberText(text, "result") ?? "null");
    });
    socket.addEventListener("close", (e) => {
      for (const p of this.#pending.values()) {
        p.reject(
          new EngineUnreachable(
            url,
            `connection closed (${e.code}${e.reason ? `: ${e.reason}` : ""})`,
          ),
        );
      }
      this.#pending.clear();
    });
  }

  static connect(
    url: string,
    options: { timeoutMs?: number; name?: string } = {},
  ): Promise<EngineClient> {
    const token = Deno.env.get("ENGINE_TOKEN");
    let socket: WebSocket;
    try {
      // @ts-ignore Deno's WebSocket takes request headers
      socket = new WebSocket(
        url,
        token ? { headers: { authorization: `Bearer ${token}` } } : undefined,
      );
    } catch (e) {
      return Promise.reject(new EngineUnreachable(url, (e as Error).message));
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        socket.close();
        reject(new EngineUnreachable(url, `no answer within ${options.timeoutMs ?? 5000}ms`));
      }, options.timeoutMs ?? 5000);
      socket.addEventListener("open", () => {
        clearTimeout(timer);
        const client = new EngineClient(socket, url);
        client.callVoid("engine::workers::register", {
          runtime: "deno",
          name: options.name ?? "engine-cli",
          sdk: CLI_SDK,
          pid: Deno.pid,
        });
        resolve(client);
      }, { once: true });
      socket.addEventListener("error", async (e) => {
        clearTimeout(timer);
        const detail = (e as ErrorEvent).message || "connection refused";
        const sent = token !== undefined && token !== "";
        // A refused token the config file was given since the engine started waits for a restart.
        const pending = sent && isRefusal(detail) ? await pendingTokenFile(url, token) : undefined;
        reject(new EngineUnreachable(url, refusalDetail(detail, sent, pending)));
      }, { once: true });
    });
  }

  call(functionId: string, payload: unknown, timeoutMs = 30_000): Promise<unknown> {
    return this.#invoke(functionId, JSON.stringify(payload), timeoutMs, (value) => value);
  }

  /**
   * Calls `functionId` with the JSON text `payloadText` (valid JSON, sent as
   * it is) and resolves with the result's JSON text as the worker wrote it:
   * no number is rounded on the way.
   */
  callText(functionId: string, payloadText: string, timeoutMs = 30_000): Promise<string> {
    return this.#invoke(functionId, payloadText, timeoutMs, (_, text) => text);
  }

  #invoke<T>(
    functionId: string,
    payloadText: string,
    timeoutMs: number,
    pick: (value: unknown, text: string) => T,
  ): Promise<T> {
    const id = crypto.randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(
          new FunctionFailed({
            code: "TIMEOUT",
            message: `No result from ${functionId} within ${timeoutMs}ms`,
          }),
        );
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (value, text) => {
          clearTimeout(timer);
          resolve(pick(value, text));
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.#socket.send(
        `{"type":"invokefunction","invocation_id":${JSON.stringify(id)},` +
          `"function_id":${JSON.stringify(functionId)},"data":${payloadText}}`,
      );
    });
  }

  /**
   * Registers an internal function answered by `handler` (hidden from
   * default lists) and binds a trigger of `trigger.type` to it, on this
   * connection: `engine logs -f` listens without a second connection.
   */
  listen(namespace: string, trigger: ListenRequest, handler: (payload: unknown) => unknown): void {
    const id = `${namespace}::listen-${crypto.randomUUID().slice(0, 8)}`;
    this.#listeners.set(id, handler);
    this.#socket.send(
      JSON.stringify({ type: "registerfunction", id, metadata: { internal: true } }),
    );
    this.#socket.send(JSON.stringify({
      type: "registertrigger",
      id: crypto.randomUUID(),
      trigger_type: trigger.type,
      function_id: id,
      config: trigger.config,
    }));
  }

  /** Runs a listener for a call from the engine and answers it. */
  async #answer(f: { invocation_id?: string; function_id?: string; data?: unknown }) {
    const handler = this.#listeners.get(f.function_id ?? "");
    let answer: Record<string, unknown>;
    try {
      if (!handler) throw new Error(`Function ${f.function_id} is not registered here`);
      answer = { result: await handler(f.data) ?? null };
    } catch (e) {
      answer = { error: { code: "invocation_failed", message: (e as Error).message } };
    }
    if (f.invocation_id === undefined || this.#socket.readyState !== WebSocket.OPEN) return;
    this.#socket.send(JSON.stringify({
      type: "invocationresult",
      invocation_id: f.invocation_id,
      function_id: f.function_id,
      ...answer,
    }));
  }

  callVoid(functionId: string, payload: unknown): void {
    this.#socket.send(
      JSON.stringify({
        type: "invokefunction",
        function_id: functionId,
        data: payload,
        action: { type: "void" },
      }),
    );
  }

  /**
   * Resolves with the close event once the connection has closed, by
   * {@linkcode close} or from the engine's side (it stopped, or was killed).
   */
  get closed(): Promise<CloseEvent> {
    return this.#closed;
  }

  async close(): Promise<void> {
    if (this.#socket.readyState === WebSocket.OPEN) this.#socket.close(1000);
    await this.#closed;
  }
}
