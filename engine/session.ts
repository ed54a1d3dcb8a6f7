/**
 * One worker connection: frames in, engine calls, frames out. Every inbound
 * frame is validated here; a bad one is answered with an `error` frame and
 * nothing else happens.
 *
 * @module
 */
import { type ErrorBody, type Logger, markEngineFailure, type TriggerBinding } from "./api.ts";
import type { CallRequest, Engine, Outcome, WorkerConn } from "./core.ts";
import type { OutgoingCall, Peer } from "./peer.ts";
import type { InboundFrame, InvokeFunctionFrame, OutboundFrame } from "./protocol/frames.ts";
import { callOfText, parseFrame, type RefusedCall } from "./protocol/parse.ts";
import { ErrorCode, toErrorBody } from "./protocol/errors.ts";
import { exactlyParsed } from "./protocol/exact_json.ts";
import { checkFunctionId } from "./protocol/ids.ts";
import { enqueue } from "./enqueue.ts";
import { memberText } from "./protocol/member_text.ts";
import { invokeFrameText, type InvokeText, resultFrameText } from "./protocol/frame_text.ts";
import { type EngineSocket, SocketState } from "./transport/socket.ts";
import { framePacer } from "./transport/pacer.ts";
import { FrameBatcher, MAX_BATCH_UNITS, splitBatch } from "../sdk/typescript/batch.ts";

/** How long a provider may take to answer a `registertrigger`. */
const PROVIDER_ANSWER_MS = 10_000;

export interface SessionOptions {
  log: Logger;
  /** Frames larger than this (UTF-8 bytes) are refused with `frame_too_large`, as is their call. */
  maxFrameBytes: number;
  /** Bytes queued for a worker beyond which calls to it fail with `overloaded`. */
  maxBacklogBytes: number;
  remoteAddress?: string;
  /** Telemetry frames (`OTLP`/`LOGS`/`MTRC` + JSON) from this worker. */
  onTelemetry?: (conn: WorkerConn, kind: string, json: string) => void;
  /** The socket speaks `engine.batch.v1`: a text message holds frames separated by line feeds. */
  batch?: boolean;
}

/** The end of the connection, queued behind its last frames. */
const CLOSED = Symbol("closed");

type Inbound = string | ArrayBuffer | Blob | Uint8Array | typeof CLOSED;

export class WebSocketSession implements Peer {
  readonly kind = "websocket" as const;
  readonly conn: WorkerConn;
  #engine: Engine;
  #socket: EngineSocket;
  #options: SessionOptions;
  #answers = new Map<string, (refusal: ErrorBody | undefined) => void>();
  #decoder = new TextDecoder();
  #encoder = new TextEncoder();
  #batcher: FrameBatcher | undefined;
  /** This connection's frames (and its end) on their way through the engine's pacer. */
  #lane = framePacer.lane<Inbound>((data) => this.#take(data));
  /** The engine closed the socket (its shutdown, a reattach): frames still waiting are dropped. */
  #closing = false;

  constructor(engine: Engine, socket: EngineSocket, options: SessionOptions) {
    this.#engine = engine;
    this.#socket = socket;
    this.#options = options;
    // Every text the engine sends is JSON.stringify's or a template around texts taken from
    // frames it received, whose line feeds #take has turned into spaces: none holds one.
    if (options.batch) {
      this.#batcher = new FrameBatcher((text) => this.#write(text), { lineFree: true });
    }
    this.conn = engine.connect(
      this,
      options.remoteAddress ? { remoteAddress: options.remoteAddress } : {},
    );
  }

  /** Sends `workerregistered`; call once the socket is open. */
  opened(): void {
    this.#send({
      type: "workerregistered",
      worker_id: this.conn.id,
      reattach_token: this.conn.reattachToken,
    });
  }

  /** The socket has closed; takes effect after the frames received before it. */
  closed(): void {
    this.#lane.submit(CLOSED);
  }

  #closed(): void {
    this.#batcher?.clear();
    for (const answer of this.#answers.values()) answer(undefined);
    this.#answers.clear();
    this.#engine.disconnect(this.conn.id);
  }

  get backlog(): number {
    return this.#socket.bufferedAmount + (this.#batcher?.pendingUnits ?? 0);
  }

  get overloaded(): boolean {
    return this.backlog > this.#options.maxBacklogBytes;
  }

  /**
   * One message from the socket: handed on, frame by frame, through the engine's pacer. It may
   * wait for a later turn: `data` must not change after this call (no view of a reused buffer).
   */
  receive(data: string | ArrayBuffer | Blob | Uint8Array): void {
    if (this.#batcher !== undefined && typeof data === "string" && data.includes("\n")) {
      const frames = splitBatch(data);
      // One frame with blank lines around it is bounded by max_frame_bytes alone.
      if (frames.length > 1 && data.length > MAX_BATCH_UNITS) {
        return this.protocolError({
          code: ErrorCode.FrameTooLarge,
          message:
            `Message of ${data.length} characters holds ${frames.length} frames (engine.batch.v1) and exceeds the ${MAX_BATCH_UNITS}-character limit for several: none of them was handled`,
        });
      }
      for (const frame of frames) this.#lane.submit(frame);
      return;
    }
    this.#lane.submit(data);
  }

  #take = (data: Inbound): void => {
    if (data === CLOSED) return this.#closed();
    // Closed by the engine while frames of it waited for their turns: at shutdown, they would
    // start calls after the calls in flight were stopped, whose answers could not reach it; once
    // replaced by a reattached connection, they would register triggers and trigger types under a
    // worker that is gone, and nothing would remove them. They are dropped, as frames arriving
    // after its socket closed are.
    if (this.#closing || !this.#engine.workers.has(this.conn.id)) return;
    const limit = this.#options.maxFrameBytes;
    let text: string;
    if (typeof data === "string") {
      text = data;
      // UTF-8 takes 1 to 3 bytes per UTF-16 unit: count bytes only when the length cannot decide.
      const bytes = text.length > limit || text.length * 3 <= limit
        ? text.length
        : this.#encoder.encode(text).length;
      if (bytes > limit) return this.#tooLarge(bytes, text);
    } else if (data instanceof ArrayBuffer || data instanceof Uint8Array) {
      const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
      if (bytes.length > limit) return this.#tooLarge(bytes.length);
      if (this.#telemetry(bytes)) return;
      text = this.#decoder.decode(bytes);
    } else return; // Blob frames are never produced by Deno's server socket
    const parsed = parseFrame(text);
    if (!parsed.ok) {
      if (parsed.skip) return;
      this.protocolError({ code: parsed.code, message: parsed.message });
      if (parsed.call) this.#refusedCall(parsed.call, parsed.code, parsed.message);
      return;
    }
    // Parts of this text may travel on in frames of batches, where a line feed ends a frame. In
    // JSON that parsed, a line feed can only be whitespace between tokens: a space means the same.
    this.#handle(parsed.frame, text.includes("\n") ? text.replaceAll("\n", " ") : text);
  };

  /** Ends the call a refused frame belongs to with the refusal, instead of leaving it to time out. */
  #refusedCall(call: RefusedCall, code: string, message: string): void {
    const fn = call.functionId ?? "";
    if (call.type === "invokefunction") {
      return this.#result(call.invocationId, fn, { ok: false, error: { code, message } });
    }
    // Only a call this worker was sent is settled (settle checks it).
    const what = fn === "" ? "The result" : `The result of "${fn}"`;
    this.#engine.settle(call.invocationId, this.conn.id, {
      ok: false,
      error: markEngineFailure({
        code,
        message: `${what} from worker "${this.conn.name}" was refused: ${message}`,
      }),
    });
  }

  /**
   * A frame over `max_frame_bytes` is refused like any invalid frame, and the
   * call it belongs to ends with the refusal: one oversized result fails its
   * own call, not every call of the worker that sent it.
   */
  #tooLarge(bytes: number, text?: string): void {
    const code = ErrorCode.FrameTooLarge;
    const message =
      `Frame of ${bytes} bytes exceeds the ${this.#options.maxFrameBytes}-byte limit (max_frame_bytes)`;
    this.protocolError({ code, message });
    const call = text === undefined ? undefined : callOfText(text);
    if (call) this.#refusedCall(call, code, message);
  }

  #handle(f: InboundFrame, text: string): void {
    const engine = this.#engine;
    switch (f.type) {
      case "invokefunction":
        return this.#invoke(f, text);
      case "invocationresult": {
        const outcome: Outcome = f.error
          ? { ok: false, error: toErrorBody(f.error) }
          : f.traceparent
          ? { ok: true, result: f.result, traceparent: f.traceparent }
          : { ok: true, result: f.result };
        // Passed on as the worker wrote it (see #invoke and #result).
        if (outcome.ok) outcome.frameText = text;
        if (!engine.settle(f.invocation_id, this.conn.id, outcome)) {
          this.#options.log.debug(
            `Dropped the result of ${f.function_id} from worker "${this.conn.name}" for invocation ${f.invocation_id}: no such call is in flight here (it timed out, was stopped, or went to another worker)`,
          );
        }
        return;
      }
      case "registerfunction": {
        const problem = checkFunctionId(f.id);
        if (problem) return this.#refuseFunction(f.id, ErrorCode.InvalidFunctionId, problem);
        if (f.invocation !== undefined) {
          return this.#refuseFunction(
            f.id,
            "function_not_invokable",
            `Cannot register function "${f.id}": HTTP-invoked functions are not supported`,
          );
        }
        engine.registerFunction(this.conn, f.id, {
          ...(f.description !== undefined ? { description: f.description } : {}),
          ...(f.metadata ? { metadata: f.metadata } : {}),
          ...(f.request_format !== undefined ? { request_format: f.request_format } : {}),
          ...(f.response_format !== undefined ? { response_format: f.response_format } : {}),
        });
        return;
      }
      case "unregisterfunction":
        return engine.unregisterFunction(this.conn, f.id);
      case "registertrigger": {
        const refused = engine.registerTrigger(this.conn, {
          id: f.id,
          type: f.trigger_type,
          functionId: f.function_id,
          config: f.config,
          ...(f.metadata !== undefined ? { metadata: f.metadata } : {}),
        });
        if (refused) this.protocolError(refused);
        return;
      }
      case "unregistertrigger":
        engine.unregisterTrigger(this.conn, f.id);
        return;
      case "registertriggertype": {
        const refused = engine.registerTriggerType(this.conn, f.id, f.description, {
          trigger_request_format: f.trigger_request_format,
          call_request_format: f.call_request_format,
          call_response_format: f.call_response_format,
        });
        if (refused) this.protocolError(refused);
        return;
      }
      case "unregistertriggertype":
        return engine.unregisterTriggerType(this.conn, f.id);
      case "triggerregistrationresult": {
        const answer = this.#answers.get(f.id);
        if (!answer) return;
        this.#answers.delete(f.id);
        answer(f.error ? toErrorBody(f.error) : undefined);
        return;
      }
      case "reattach":
        engine.reattach(this.conn, f.previous_worker_id, f.reattach_token);
        return;
      case "ping":
        return this.#send({ type: "pong" });
      case "registerservice":
        return;
    }
  }

  /**
   * Refuses to register function `id`: the `error` frame, which the npm
   * iii-sdk ignores, and the engine remembers it, so a call to the id says why
   * it finds nothing (`refused_ids.ts`).
   */
  #refuseFunction(id: string, code: string, message: string): void {
    this.#engine.refusedIds.add(this.conn, id, message);
    this.protocolError({ code, message });
  }

  #invoke(f: InvokeFunctionFrame, text: string): void {
    const engine = this.#engine;
    // Built field by field: no temporary objects on the hot path.
    const req: CallRequest = { functionId: f.function_id, data: f.data, caller: this.conn };
    if (f.traceparent) req.traceparent = f.traceparent;
    if (f.baggage) req.baggage = f.baggage;
    if (f.metadata !== undefined) req.metadata = f.metadata;
    const callerId = f.invocation_id;
    // The answer needs the ids only: a closure over `f` would keep its payload alive until then.
    const functionId = f.function_id;
    if (f.action?.type === "enqueue") {
      // The queue keeps the payload as JSON text: its integers beyond 2^53 go in as written.
      const dataText = memberText(text, "data");
      if (dataText !== undefined) req.data = exactlyParsed(dataText, req.data);
      enqueue(
        engine,
        req,
        f.action.queue,
        (o) => callerId && this.#result(callerId, functionId, o),
      );
      return;
    }
    // The payload goes on as the text it came in (not for the enqueue above, which wraps it in a
    // message of its own): no second JSON.stringify of it, and nothing of it changes on the way,
    // such as integers beyond 2^53, which a JavaScript number would round.
    const dataText = memberText(text, "data");
    if (dataText !== undefined) req.dataText = dataText;
    if (callerId === undefined || f.action?.type === "void") {
      req.trace = "async"; // its span may outlast the caller's
      // No one waits for the outcome: a failure is logged, or it would go unnoticed.
      engine.invoke(req, (o) => {
        if (!o.ok) {
          this.#options.log.warn(
            `Fire-and-forget call of ${functionId} from worker "${this.conn.name}" failed: ${o.error.code}: ${o.error.message}`,
          );
        }
      });
      return;
    }
    engine.invoke(req, (o) => this.#result(callerId, functionId, o));
  }

  #result(invocationId: string, functionId: string, o: Outcome): void {
    if (o.ok) {
      const resultText = o.frameText === undefined ? undefined : memberText(o.frameText, "result");
      if (resultText !== undefined) {
        return this.#sendText(resultFrameText(invocationId, functionId, resultText, o.traceparent));
      }
      const frame: OutboundFrame = {
        type: "invocationresult",
        invocation_id: invocationId,
        function_id: functionId,
      };
      if (o.result !== undefined) frame.result = o.result;
      if (o.traceparent) frame.traceparent = o.traceparent;
      this.#send(frame);
    } else {
      this.#send({
        type: "invocationresult",
        invocation_id: invocationId,
        function_id: functionId,
        error: o.error,
      });
    }
  }

  #telemetry(bytes: Uint8Array): boolean {
    if (bytes.length < 4) return false;
    const prefix = String.fromCharCode(bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!);
    if (prefix !== "OTLP" && prefix !== "LOGS" && prefix !== "MTRC") return false;
    this.#options.onTelemetry?.(this.conn, prefix, this.#decoder.decode(bytes.subarray(4)));
    return true;
  }

  // ---- Peer ---------------------------------------------------------------

  invoke(call: OutgoingCall): string | void {
    if (this.overloaded) {
      // The worker is not reading: another replica takes the call, or it fails fast instead of
      // buffering without bound.
      if (this.#engine.reroute(call, this.conn.id)) return;
      const queued = this.backlog;
      queueMicrotask(() =>
        this.#engine.settle(call.invocationId, this.conn.id, {
          ok: false,
          error: markEngineFailure({
            code: ErrorCode.Overloaded,
            message:
              `Cannot call ${call.functionId}: worker "${this.conn.name}" is not reading its socket (${queued} bytes queued) and no other replica can take the call`,
          }),
        })
      );
      return;
    }
    // A worker's payload goes on as the text it came in; the engine's own are serialized.
    let text: string;
    if (call.dataText !== undefined) text = invokeFrameText(call as InvokeText);
    else {
      const frame: OutboundFrame = {
        type: "invokefunction",
        invocation_id: call.invocationId,
        function_id: call.functionId,
        data: call.data,
      };
      if (call.metadata !== undefined) frame.metadata = call.metadata;
      if (call.traceparent) frame.traceparent = call.traceparent;
      if (call.baggage) frame.baggage = call.baggage;
      text = JSON.stringify(frame);
    }
    this.#sendText(text);
    return text;
  }

  invokeText(text: string): void {
    this.#sendText(text);
  }

  registerTrigger(b: TriggerBinding): Promise<ErrorBody | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        if (this.#answers.delete(b.id)) {
          this.#options.log.warn(
            `Worker "${this.conn.name}" did not answer registertrigger "${b.id}" within ${PROVIDER_ANSWER_MS}ms: taken as accepted`,
          );
          resolve(undefined);
        }
      }, PROVIDER_ANSWER_MS);
      this.#answers.get(b.id)?.(undefined);
      this.#answers.set(b.id, (refusal) => {
        clearTimeout(timer);
        resolve(refusal);
      });
      const frame: OutboundFrame = {
        type: "registertrigger",
        id: b.id,
        trigger_type: b.type,
        function_id: b.functionId,
        config: b.config,
      };
      if (b.metadata !== undefined) frame.metadata = b.metadata;
      this.#send(frame);
    });
  }

  unregisterTrigger(b: TriggerBinding): void {
    this.#send({ type: "unregistertrigger", id: b.id, trigger_type: b.type });
  }

  triggerRefused(b: TriggerBinding, error: ErrorBody): void {
    this.#send({
      type: "triggerregistrationresult",
      id: b.id,
      trigger_type: b.type,
      function_id: b.functionId,
      error: { code: error.code, message: error.message },
    });
  }

  protocolError(error: ErrorBody): void {
    this.#options.log.warn(`Protocol error from worker "${this.conn.name}": ${error.message}`);
    this.#send({ type: "error", error: { code: error.code, message: error.message } });
  }

  close(code: number, reason: string): void {
    this.#closing = true;
    this.#batcher?.flush();
    try {
      this.#socket.close(code, reason.slice(0, 120));
    } catch { /* already closed */ }
  }

  #send(frame: OutboundFrame): void {
    if (this.#socket.readyState !== SocketState.Open) return;
    this.#out(JSON.stringify(frame));
  }

  #sendText(text: string): void {
    if (this.#socket.readyState !== SocketState.Open) return;
    this.#out(text);
  }

  #out(text: string): void {
    if (this.#batcher !== undefined) this.#batcher.push(text);
    else this.#socket.send(text);
  }

  #write(text: string): void {
    if (this.#socket.readyState === SocketState.Open) this.#socket.send(text);
  }
}
