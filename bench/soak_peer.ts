/**
 * A worker of the soak, in the soak's own process, speaking raw protocol
 * frames over a {@link FrameSocket}: registers functions, triggers and
 * trigger types, answers calls (or never does), and calls functions.
 *
 * @module
 */
import type { FrameSocket } from "./soak_socket.ts";

// deno-lint-ignore no-explicit-any
export type Frame = Record<string, any>;

/** What a handler returns to leave its call unanswered. */
export const NO_ANSWER: unique symbol = Symbol("no answer");

export type Handler = (data: unknown) => unknown;

export class SoakPeer {
  readonly socket: FrameSocket;
  workerId = "";
  /** The ids of the triggers of this worker's trigger types it was asked to set up. */
  readonly triggerRequests: string[] = [];
  #handlers = new Map<string, Handler>();
  #calls = new Map<string, (frame: Frame) => void>();
  #registered!: (id: string) => void;
  readonly #workerId = new Promise<string>((resolve) => this.#registered = resolve);

  private constructor(socket: FrameSocket) {
    this.socket = socket;
    socket.listen((text) => this.#receive(JSON.parse(text)));
    socket.closed.then(() => {
      for (const [id, answer] of this.#calls) {
        answer({ type: "invocationresult", invocation_id: id, error: { code: "closed" } });
      }
      this.#calls.clear();
    });
  }

  /** Resolves once the engine sent `workerregistered`. */
  static async connect(socket: FrameSocket, name: string): Promise<SoakPeer> {
    const peer = new SoakPeer(socket);
    peer.workerId = await Promise.race([
      peer.#workerId,
      socket.closed.then(() => {
        throw new Error(`Worker "${name}" was closed before it was registered`);
      }),
    ]);
    peer.send({
      type: "invokefunction",
      function_id: "engine::workers::register",
      data: { name, runtime: "soak" },
    });
    return peer;
  }

  send(frame: Frame): void {
    this.socket.send(JSON.stringify(frame));
  }

  register(functionId: string, handler: Handler): void {
    this.#handlers.set(functionId, handler);
    this.send({ type: "registerfunction", id: functionId });
  }

  trigger(id: string, type: string, functionId: string, config: unknown): void {
    this.send({ type: "registertrigger", id, trigger_type: type, function_id: functionId, config });
  }

  /** Provides trigger type `id`, accepting every trigger of it. */
  provide(id: string): void {
    this.send({ type: "registertriggertype", id, description: "soak" });
  }

  /** Calls a function; resolves with its `invocationresult` frame (an error frame included). */
  call(functionId: string, data: unknown = {}): Promise<Frame> {
    const id = crypto.randomUUID();
    const result = new Promise<Frame>((resolve) => this.#calls.set(id, resolve));
    this.send({ type: "invokefunction", invocation_id: id, function_id: functionId, data });
    return result;
  }

  /** A call's result, throwing on an error. */
  async result(functionId: string, data: unknown = {}): Promise<unknown> {
    const frame = await this.call(functionId, data);
    if (frame.error) {
      throw new Error(`${functionId} failed: ${frame.error.code}: ${frame.error.message}`);
    }
    return frame.result;
  }

  #receive(f: Frame): void {
    switch (f.type) {
      case "workerregistered":
        return this.#registered(f.worker_id);
      case "invocationresult": {
        const answer = this.#calls.get(f.invocation_id);
        this.#calls.delete(f.invocation_id);
        return answer?.(f);
      }
      case "invokefunction":
        return void this.#run(f);
      case "registertrigger":
        this.triggerRequests.push(f.id);
        return this.send({
          type: "triggerregistrationresult",
          id: f.id,
          trigger_type: f.trigger_type,
          function_id: f.function_id,
        });
    }
  }

  async #run(f: Frame): Promise<void> {
    const handler = this.#handlers.get(f.function_id);
    if (!handler || f.invocation_id === undefined) return;
    const reply = { type: "invocationresult", invocation_id: f.invocation_id };
    try {
      const result = await handler(f.data);
      if (result === NO_ANSWER) return;
      this.send({ ...reply, function_id: f.function_id, result });
    } catch (e) {
      this.send({
        ...reply,
        function_id: f.function_id,
        error: { code: "soak_failure", message: (e as Error).message },
      });
    }
  }
}
