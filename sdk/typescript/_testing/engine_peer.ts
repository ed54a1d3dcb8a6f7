/**
 * A scripted engine for SDK tests: a `Deno.serve` WebSocket endpoint that
 * records every frame a worker sends and lets the test send literal frames
 * back. Each connection gets `workerregistered` with `worker_id` "w-<n>" and
 * `reattach_token` "tok-<n>" (n counts from 1).
 *
 * @module
 */

import { waitUntil } from "./raw_server.ts";
import { BATCH_PROTOCOL, offersProtocol } from "../batch.ts";

/** A JSON frame. */
export type Json = Record<string, unknown>;

/** One worker connection as the engine sees it. */
export class PeerConnection {
  /** Upgrade request headers (lower-cased names). */
  readonly headers: Record<string, string>;
  /** Frames received, in order. */
  readonly frames: Json[] = [];
  /** Messages received, as they came (with `batch`, several frames each). */
  readonly messages: string[] = [];
  /** Close event, once the connection is gone. */
  closeEvent: { code: number; reason: string } | undefined;
  readonly closed: Promise<void>;
  #socket: WebSocket;
  #wakers: (() => void)[] = [];

  constructor(
    socket: WebSocket,
    headers: Record<string, string>,
    n: number,
    greet: boolean,
    batch = false,
  ) {
    this.#socket = socket;
    this.headers = headers;
    let closedResolve!: () => void;
    this.closed = new Promise((r) => (closedResolve = r));
    socket.onopen = () => {
      if (greet) {
        this.send({ type: "workerregistered", worker_id: `w-${n}`, reattach_token: `tok-${n}` });
      }
    };
    socket.onmessage = (e) => {
      const text = typeof e.data === "string" ? e.data : new TextDecoder().decode(e.data);
      this.messages.push(text);
      for (const line of batch ? text.split("\n") : [text]) {
        const frame = JSON.parse(line);
        this.frames.push(frame);
        if (frame.type === "ping") this.send({ type: "pong" }); // as the engine (a shutdown waits for it)
        this.#reply(frame);
      }
      this.#wake();
    };
    socket.onclose = (e) => {
      this.closeEvent = { code: e.code, reason: e.reason };
      closedResolve();
      this.#wake();
    };
  }

  /**
   * Answers the worker's calls from now on: for each `invokefunction` with
   * an `invocation_id`, `answer` returns `{result}` or `{error}` (sent back as
   * an `invocationresult`) or `undefined` to stay silent.
   */
  autoReply(answer: (call: Json) => Json | undefined): void {
    this.#answer = answer;
    for (const frame of this.frames) this.#reply(frame);
  }

  #answer: ((call: Json) => Json | undefined) | undefined;

  #reply(frame: Json): void {
    if (!this.#answer || frame.type !== "invokefunction" || frame.invocation_id === undefined) {
      return;
    }
    const outcome = this.#answer(frame);
    if (outcome) {
      this.send({
        type: "invocationresult",
        invocation_id: frame.invocation_id,
        function_id: frame.function_id,
        ...outcome,
      });
    }
  }

  /** Sends a frame to the worker. */
  send(frame: Json): void {
    this.#socket.send(JSON.stringify(frame));
  }

  /** Sends several frames in one message (for a connection that chose `engine.batch.v1`). */
  sendBatch(frames: Json[]): void {
    this.#socket.send(frames.map((f) => JSON.stringify(f)).join("\n"));
  }

  /** Sends `text` as one message, as it is. */
  sendText(text: string): void {
    this.#socket.send(text);
  }

  /** Closes the connection from the engine side. */
  close(code?: number, reason?: string): void {
    this.#socket.close(code, reason);
  }

  /** The first received frame matching `pred`, waiting for it if needed. */
  waitFor(pred: (f: Json) => boolean, timeoutMs = 3000): Promise<Json> {
    return waitUntil(
      () => this.frames.find(pred),
      (w) => this.#wakers.push(w),
      timeoutMs,
      "a matching frame",
    );
  }

  /** The first received frame of `type` (and `function_id`, if given). */
  waitType(type: string, function_id?: string, timeoutMs?: number): Promise<Json> {
    return this.waitFor(
      (f) => f.type === type && (function_id === undefined || f.function_id === function_id),
      timeoutMs,
    );
  }

  /** Sends an `invokefunction` and resolves with the worker's `invocationresult`. */
  async invoke(function_id: string, data: unknown, extra: Json = {}): Promise<Json> {
    const invocation_id = crypto.randomUUID();
    this.send({ type: "invokefunction", invocation_id, function_id, data, ...extra });
    return await this.waitFor((f) =>
      f.type === "invocationresult" && f.invocation_id === invocation_id
    );
  }

  #wake(): void {
    this.#wakers.splice(0).forEach((w) => w());
  }
}

/** The scripted engine. */
export class ScriptedEngine {
  readonly url: string;
  readonly connections: PeerConnection[] = [];
  #server: Deno.HttpServer<Deno.NetAddr>;
  #wakers: (() => void)[] = [];

  /**
   * Starts on an ephemeral port. `refuse` may answer an upgrade request with
   * an HTTP response instead; `greet: false` skips `workerregistered`;
   * `batch: true` chooses the `engine.batch.v1` subprotocol when offered.
   */
  constructor(
    options: { refuse?: (req: Request) => Response | undefined; greet?: boolean; batch?: boolean } =
      {},
  ) {
    this.#server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
      const refusal = options.refuse?.(req);
      if (refusal) return refusal;
      const headers = Object.fromEntries(req.headers);
      const batch = options.batch === true &&
        offersProtocol(headers["sec-websocket-protocol"], BATCH_PROTOCOL);
      const { socket, response } = Deno.upgradeWebSocket(
        req,
        batch ? { protocol: BATCH_PROTOCOL } : {},
      );
      const n = this.connections.length + 1;
      this.connections.push(new PeerConnection(socket, headers, n, options.greet ?? true, batch));
      this.#wakers.splice(0).forEach((w) => w());
      return response;
    });
    this.url = `ws://127.0.0.1:${this.#server.addr.port}`;
  }

  /** The n-th connection (0-based), waiting for it if needed. */
  connection(n: number, timeoutMs = 3000): Promise<PeerConnection> {
    return waitUntil(
      () => this.connections[n],
      (w) => this.#wakers.push(w),
      timeoutMs,
      `connection #${n}`,
    );
  }

  /** Stops the server, closing open connections. */
  async close(): Promise<void> {
    await this.#server.shutdown();
  }
}
