/**
 * A worker that speaks raw protocol frames, for black-box tests of the
 * engine: it records every frame it receives and lets a test wait for the
 * next frame that matches a predicate (an explicit signal, never a sleep).
 *
 * @module
 */

import { Waiters, type WaitOptions } from "./waiters.ts";

// deno-lint-ignore no-explicit-any
export type Frame = Record<string, any>;

export class RawWorker {
  readonly frames: Frame[] = [];
  readonly socket: WebSocket;
  readonly #waiters = new Waiters<Frame>({
    item: "frame",
    seen: () => this.frames,
    timeoutMs: 5000,
  });
  #closed: Promise<CloseEvent>;
  /** Set once the connection is closing or closed: the error of a wait for `what`. */
  #ended: ((what: string) => Error) | undefined;
  workerId = "";

  private constructor(socket: WebSocket) {
    this.socket = socket;
    this.#closed = new Promise((resolve) => socket.addEventListener("close", resolve));
    socket.addEventListener("close", (e) => {
      const reason = e.reason === "" ? "" : `, reason "${e.reason}"`;
      this.#end(`the connection closed (code ${e.code}${reason})`);
    });
    socket.addEventListener("message", (e) => {
      const frame = JSON.parse(
        typeof e.data === "string" ? e.data : new TextDecoder().decode(e.data),
      );
      this.frames.push(frame);
      this.#waiters.deliver(frame);
    });
  }

  static async connect(url: string, headers?: Record<string, string>): Promise<RawWorker> {
    // @ts-ignore Deno's WebSocket accepts request headers
    const socket = new WebSocket(url, headers ? { headers } : undefined);
    const w = new RawWorker(socket);
    const registered = w.next((f) => f.type === "workerregistered", {
      description: `the "workerregistered" frame from ${url}`,
    });
    // A refused handshake closes the socket, which fails this wait: the error below reports it.
    registered.catch(() => {});
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve(), { once: true });
      socket.addEventListener("error", () => reject(new Error(`Cannot connect to ${url}`)), {
        once: true,
      });
    });
    w.workerId = (await registered).worker_id;
    return w;
  }

  /** Sends a frame as JSON text; text and bytes go as they are (a text or a binary message). */
  send(frame: Frame | string | Uint8Array): void {
    this.socket.send(
      typeof frame === "string" || frame instanceof Uint8Array ? frame : JSON.stringify(frame),
    );
  }

  /**
   * The first frame matching `match` that arrives after this call. After
   * `timeoutMs` (5 s by default) it rejects with an error naming
   * `description` (by default the predicate's source) and the last frames
   * received; once the connection closes (or {@link close} is called) it
   * rejects at once, with the close code and reason.
   */
  next(match: (f: Frame) => boolean, options: WaitOptions = {}): Promise<Frame> {
    const wait = this.#waiters.wait(match, options);
    if (this.#ended) this.#waiters.rejectAll(this.#ended);
    return wait;
  }

  /** Calls a function and waits for its result frame. */
  async call(functionId: string, data: unknown): Promise<Frame> {
    const id = crypto.randomUUID();
    const result = this.next((f) => f.type === "invocationresult" && f.invocation_id === id, {
      description: `the result of "${functionId}" (invocation ${id})`,
    });
    this.send({ type: "invokefunction", invocation_id: id, function_id: functionId, data });
    return await result;
  }

  /** Calls `functionId` with the enqueue action: the answer is the queue's receipt (or refusal). */
  async enqueue(queue: string, functionId: string, data: unknown): Promise<Frame> {
    const id = crypto.randomUUID();
    const answer = this.next((f) => f.type === "invocationresult" && f.invocation_id === id, {
      description: `the receipt of the enqueue to "${queue}" (${JSON.stringify(data)})`,
    });
    this.send({
      type: "invokefunction",
      invocation_id: id,
      function_id: functionId,
      data,
      action: { type: "enqueue", queue },
    });
    return await answer;
  }

  /** Registers a function answered by `handler` (sync or async). */
  serve(functionId: string, handler: (data: unknown, frame: Frame) => unknown): void {
    this.send({ type: "registerfunction", id: functionId });
    this.socket.addEventListener("message", async (e) => {
      const f = JSON.parse(e.data);
      if (f.type !== "invokefunction" || f.function_id !== functionId) return;
      try {
        const result = await handler(f.data, f);
        this.send({
          type: "invocationresult",
          invocation_id: f.invocation_id,
          function_id: functionId,
          result,
        });
      } catch (err) {
        this.send({
          type: "invocationresult",
          invocation_id: f.invocation_id,
          function_id: functionId,
          error: {
            code: (err as { code?: string }).code ?? "invocation_failed",
            message: (err as Error).message,
          },
        });
      }
    });
  }

  /** Closes the connection (code 1000); pending waits fail at once. */
  async close(): Promise<void> {
    if (
      this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING
    ) {
      this.socket.close(1000);
      this.#end("close() closed the connection (code 1000)");
    }
    await this.#closed;
  }

  /** Fails every pending wait, and every later one, saying how the connection ended. */
  #end(how: string): void {
    this.#ended ??= (what) => new Error(`Stopped waiting for ${what}: ${how}`);
    this.#waiters.rejectAll(this.#ended);
  }

  get closed(): Promise<CloseEvent> {
    return this.#closed;
  }
}

/** Calls `engine::functions::list` until `ids` are all registered (the explicit signal). */
export async function waitForFunctions(
  w: RawWorker,
  ids: string[],
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let missing = ids;
  while (Date.now() < deadline) {
    const r = await w.call("engine::functions::list", {});
    const have = new Set((r.result?.functions ?? []).map((f: Frame) => f.function_id));
    missing = ids.filter((id) => !have.has(id));
    if (missing.length === 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  const quoted = (list: string[]) => list.map((id) => `"${id}"`).join(", ");
  throw new Error(
    `Timed out after ${timeoutMs}ms waiting for functions ${quoted(ids)} to be registered: ` +
      `still missing ${quoted(missing)}`,
  );
}
