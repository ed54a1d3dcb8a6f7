/**
 * A small RFC 6455 WebSocket client over `node:net` / `node:tls`, for Deno 2
 * and Node >= 20. It exists because Node 20 has no global `WebSocket` and
 * Deno's built-in client stalls about 40 ms on mid-sized messages: this client
 * disables Nagle (`setNoDelay`) and writes every frame in one `write()`.
 *
 * No extensions (permessage-deflate) are negotiated; subprotocols are offered
 * with the `protocols` option.
 *
 * @module
 */

import { createConnection, isIP, type Socket } from "node:net";
import { connect as tlsConnect, type ConnectionOptions } from "node:tls";
import {
  encodeFrame,
  encodeLinesFrame,
  encodeTextFrame,
  type Frame,
  FrameError,
  FrameParser,
  MessageAssembler,
  Opcode,
} from "./frame.ts";
import { encodeClosePayload, parseClosePayload } from "./close.ts";
import {
  buildRequest,
  concatBytes,
  generateKey,
  HandshakeError,
  parseResponseHead,
  type ResponseHead,
  validateResponse,
} from "./handshake.ts";
import type { CloseEvent, MessageData, ReadyState, WebSocketClientOptions } from "./types.ts";

export type { CloseEvent, MessageData, ReadyState, WebSocketClientOptions } from "./types.ts";

const encoder = new TextEncoder();

/**
 * A WebSocket connection. Set the `on*` handlers right after constructing;
 * messages that arrive before `onmessage` is set are kept and delivered once
 * it is.
 *
 * @example
 * ```ts
 * const server = Deno.serve({ port: 0, onListen() {} }, (req) => {
 *   const { socket, response } = Deno.upgradeWebSocket(req);
 *   socket.onmessage = (e) => socket.send(e.data);
 *   return response;
 * });
 * const ws = await WebSocketClient.connect(`ws://127.0.0.1:${server.addr.port}`);
 * const echoed = new Promise((resolve) => (ws.onmessage = resolve));
 * ws.send("hello");
 * console.log(await echoed); // "hello"
 * await ws.close(1000, "done");
 * await server.shutdown();
 * ```
 */
export class WebSocketClient {
  /** The URL this client connects to. */
  readonly url: string;
  /** Called once the upgrade succeeded. */
  onopen: (() => void) | null = null;
  /** Called with the error that failed the connection (before `onclose`). */
  onerror: ((error: Error) => void) | null = null;
  /** Called exactly once when the connection is gone, whatever the reason. */
  onclose: ((event: CloseEvent) => void) | null = null;
  /** Called for each ping received (the pong is sent automatically). */
  onping: ((data: Uint8Array) => void) | null = null;
  /** Called for each pong received. */
  onpong: ((data: Uint8Array) => void) | null = null;
  /** Resolves when the connection is gone (never rejects). */
  readonly closed: Promise<CloseEvent>;

  #state: ReadyState = "connecting";
  #socket: Socket | undefined;
  #key = generateKey();
  #options: Required<Omit<WebSocketClientOptions, "tls" | "headers" | "protocols">>;
  #protocols: readonly string[];
  #protocol = "";
  #handshakeBuf: Uint8Array = new Uint8Array(0);
  #refusal:
    | { head: ResponseHead; body: Uint8Array; timer: ReturnType<typeof setTimeout> }
    | undefined;
  #parser: FrameParser;
  #assembler: MessageAssembler;
  #onmessage: ((data: MessageData) => void) | null = null;
  #inbox: MessageData[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #sentClose = false;
  #receivedClose: { code: number; reason: string } | undefined;
  #failure: { code: number; reason: string } | undefined;
  #errored = false;
  #finished = false;
  #resolveClosed!: (event: CloseEvent) => void;

  constructor(url: string | URL, options: WebSocketClientOptions = {}) {
    const target = new URL(url);
    if (target.protocol !== "ws:" && target.protocol !== "wss:") {
      throw new TypeError(
        `Unsupported WebSocket URL scheme "${target.protocol}" in "${target}": use ws: or wss:`,
      );
    }
    if (target.hash) target.hash = "";
    this.url = target.href;
    this.#options = {
      maxMessageSize: options.maxMessageSize ?? 64 * 1024 * 1024,
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
      closeTimeoutMs: options.closeTimeoutMs ?? 2_000,
    };
    this.#parser = new FrameParser({ maxPayload: this.#options.maxMessageSize });
    this.#assembler = new MessageAssembler({ maxMessageSize: this.#options.maxMessageSize });
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.#protocols = options.protocols ?? [];
    const request = buildRequest(target, this.#key, options.headers, this.#protocols);
    this.#connect(target, request, options.tls);
  }

  /**
   * Connects and resolves once the connection is open; rejects with the
   * error (a {@linkcode HandshakeError} for a refused upgrade) otherwise.
   *
   * @example
   * ```ts
   * try {
   *   await WebSocketClient.connect("ws://127.0.0.1:1", { handshakeTimeoutMs: 500 });
   * } catch (err) {
   *   console.log((err as Error).message); // connection refused
   * }
   * ```
   */
  static connect(
    url: string | URL,
    options: WebSocketClientOptions = {},
  ): Promise<WebSocketClient> {
    return new Promise((resolve, reject) => {
      let ws: WebSocketClient;
      try {
        ws = new WebSocketClient(url, options);
      } catch (err) {
        reject(err);
        return;
      }
      let error: Error | undefined;
      ws.onopen = () => resolve(ws);
      ws.onerror = (err) => (error = err);
      ws.onclose = (e) => {
        reject(error ?? new Error(`WebSocket to ${ws.url} closed before opening (code ${e.code})`));
      };
    });
  }

  /** Current state of the connection. */
  get readyState(): ReadyState {
    return this.#state;
  }

  /** The subprotocol the server chose, once open; "" when none. */
  get protocol(): string {
    return this.#protocol;
  }

  /** Bytes written but not yet handed to the operating system. */
  get bufferedAmount(): number {
    return this.#socket?.writableLength ?? 0;
  }

  /** Handler for received messages. */
  get onmessage(): ((data: MessageData) => void) | null {
    return this.#onmessage;
  }
  set onmessage(handler: ((data: MessageData) => void) | null) {
    this.#onmessage = handler;
    if (handler && this.#inbox.length > 0) queueMicrotask(() => this.#drainInbox());
  }

  /** Sends a text (string) or binary (bytes) message. Throws unless open. */
  send(data: string | Uint8Array): void {
    this.#assertOpen();
    if (typeof data === "string") this.#writeFrame(encodeTextFrame(data));
    else this.#write(Opcode.Binary, data);
  }

  /**
   * Sends one text message of `lines` with a line feed between each two,
   * encoded into the frame as they are (no joined string). Throws unless open.
   */
  sendLines(lines: readonly string[]): void {
    this.#assertOpen();
    this.#writeFrame(encodeLinesFrame(lines));
  }

  /** Stops reading from the server until {@linkcode resume}: TCP then holds it back. */
  pause(): void {
    this.#socket?.pause();
  }

  /** Reads from the server again after {@linkcode pause}. */
  resume(): void {
    this.#socket?.resume();
  }

  /**
   * Resolves once the bytes waiting to be sent are below the socket's
   * high-water mark (at once if they are), or the connection is gone: a
   * sender awaits it after each message to keep pace with the peer.
   */
  drained(): Promise<void> {
    const socket = this.#socket;
    if (!socket || this.#finished || !socket.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        socket.off("drain", done);
        socket.off("close", done);
        resolve();
      };
      socket.on("drain", done);
      socket.on("close", done);
    });
  }

  /** Sends a ping (at most 125 bytes of payload). Throws unless open. */
  ping(data: Uint8Array = new Uint8Array(0)): void {
    this.#assertOpen();
    if (data.length > 125) throw new RangeError("Ping payload must be at most 125 bytes");
    this.#write(Opcode.Ping, data);
  }

  /**
   * Starts the closing handshake and resolves when the connection is gone.
   * While still connecting, the connection is simply dropped.
   */
  close(code = 1000, reason = ""): Promise<CloseEvent> {
    // 1001 (going away): the process is stopping, so the peer learns the data was cut off.
    if (code !== 1000 && code !== 1001 && (code < 3000 || code > 4999)) {
      throw new RangeError(`Invalid close code ${code}: use 1000, 1001 or 3000-4999`);
    }
    const reasonBytes = encoder.encode(reason);
    if (reasonBytes.length > 123) throw new RangeError("Close reason must be at most 123 bytes");
    if (this.#state === "connecting") {
      this.#failure = { code: 1006, reason: "" };
      this.#destroy();
    } else if (this.#state === "open") {
      this.#sendClose(code, reasonBytes);
      this.#state = "closing";
      this.#armTimer(this.#options.closeTimeoutMs, () => this.#destroy());
    }
    return this.closed;
  }

  /** Drops the connection at once, without a closing handshake (code 1006). */
  terminate(): void {
    if (this.#finished) return;
    this.#failure ??= { code: 1006, reason: "" };
    this.#destroy();
  }

  #assertOpen(): void {
    if (this.#state !== "open") throw new Error(`WebSocket is not open (state: ${this.#state})`);
  }

  #connect(url: URL, request: string, tlsOptions: ConnectionOptions | undefined): void {
    const secure = url.protocol === "wss:";
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    const port = Number(url.port) || (secure ? 443 : 80);
    let socket: Socket;
    try {
      socket = secure
        ? tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }), ...tlsOptions })
        : createConnection({ host, port });
    } catch (err) {
      queueMicrotask(() => {
        this.#emitError(this.#wrapConnectError(err));
        this.#finish({ code: 1006, reason: "", wasClean: false });
      });
      return;
    }
    this.#socket = socket;
    socket.setNoDelay(true);
    this.#armTimer(this.#options.handshakeTimeoutMs, () => {
      this.#emitError(
        new HandshakeError(
          `WebSocket handshake with ${this.url} timed out after ${this.#options.handshakeTimeoutMs}ms`,
        ),
      );
      this.#destroy();
    });
    socket.once(secure ? "secureConnect" : "connect", () => socket.write(request));
    socket.on("data", (chunk: Uint8Array) => this.#onData(chunk));
    socket.on("error", (err: Error) => {
      this.#emitError(this.#state === "connecting" ? this.#wrapConnectError(err) : err);
    });
    socket.on("end", () => {
      if (this.#refusal) this.#refuse();
    });
    socket.on("close", () => this.#onSocketClose());
  }

  #wrapConnectError(err: unknown): Error {
    const message = err instanceof Error ? err.message : String(err);
    return new Error(`WebSocket connection to ${this.url} failed: ${message}`, { cause: err });
  }

  #onData(chunk: Uint8Array): void {
    if (this.#finished) return;
    if (this.#state === "connecting") {
      try {
        this.#onHandshakeData(chunk);
      } catch (err) {
        this.#emitError(err as Error);
        this.#destroy();
      }
      return;
    }
    let frames: Frame[];
    try {
      frames = this.#parser.push(chunk);
    } catch (err) {
      this.#fail(err as FrameError);
      return;
    }
    for (const frame of frames) {
      if (this.#state === "closed" || this.#receivedClose || this.#failure) return;
      try {
        this.#onFrame(frame);
      } catch (err) {
        if (err instanceof FrameError) this.#fail(err);
        else throw err;
      }
    }
  }

  #onHandshakeData(chunk: Uint8Array): void {
    if (this.#refusal) {
      this.#refusal.body = concatBytes(this.#refusal.body, chunk);
      this.#maybeRefuse();
      return;
    }
    this.#handshakeBuf = concatBytes(this.#handshakeBuf, chunk);
    const head = parseResponseHead(this.#handshakeBuf);
    if (!head) return;
    const rest = this.#handshakeBuf.subarray(head.length);
    this.#handshakeBuf = new Uint8Array(0);
    if (head.status !== 101) {
      // Wait briefly for the body so the error can quote it.
      this.#refusal = { head, body: rest, timer: setTimeout(() => this.#refuse(), 250) };
      this.#maybeRefuse();
      return;
    }
    validateResponse(head, this.#key, "", this.#protocols);
    this.#protocol = head.headers["sec-websocket-protocol"] ?? "";
    clearTimeout(this.#timer);
    this.#state = "open";
    this.onopen?.();
    if (rest.length > 0 && this.#state === "open") this.#onData(rest);
  }

  #maybeRefuse(): void {
    const refusal = this.#refusal!;
    const expected = Number(refusal.head.headers["content-length"] ?? NaN);
    if (refusal.body.length >= 4096 || refusal.body.length >= expected) this.#refuse();
  }

  #refuse(): void {
    const refusal = this.#refusal;
    if (!refusal) return;
    this.#refusal = undefined;
    clearTimeout(refusal.timer);
    const body = new TextDecoder().decode(refusal.body.subarray(0, 4096));
    try {
      validateResponse(refusal.head, this.#key, body);
    } catch (err) {
      this.#emitError(err as Error);
    }
    this.#destroy();
  }

  #onFrame(frame: Frame): void {
    switch (frame.opcode) {
      case Opcode.Ping:
        if (this.#state === "open") this.#write(Opcode.Pong, frame.payload);
        this.onping?.(frame.payload);
        return;
      case Opcode.Pong:
        this.onpong?.(frame.payload);
        return;
      case Opcode.Close:
        this.#onCloseFrame(frame.payload);
        return;
      default: {
        const message = this.#assembler.add(frame);
        if (message === undefined) return;
        const data = typeof message === "string"
          ? message
          : new Uint8Array(message.buffer, message.byteOffset, message.byteLength);
        if (this.#onmessage && this.#inbox.length === 0) this.#onmessage(data);
        else this.#inbox.push(data);
      }
    }
  }

  #drainInbox(): void {
    while (this.#inbox.length > 0 && this.#onmessage) this.#onmessage(this.#inbox.shift()!);
  }

  #onCloseFrame(payload: Uint8Array): void {
    const { code } = this.#receivedClose = parseClosePayload(payload);
    if (!this.#sentClose) {
      // Echo the code, as RFC 6455 §5.5.1 asks.
      this.#sendClose(code === 1005 ? undefined : code, new Uint8Array(0));
    }
    this.#state = "closing";
    this.#socket?.end();
    this.#armTimer(this.#options.closeTimeoutMs, () => this.#destroy());
  }

  /** Fails the connection after a protocol violation by the server. */
  #fail(err: FrameError): void {
    if (this.#failure || this.#finished) return;
    this.#failure = { code: err.code, reason: err.message };
    this.#emitError(err);
    if (this.#state === "open") {
      this.#sendClose(err.code, encoder.encode(err.message).subarray(0, 123));
    }
    this.#state = "closing";
    this.#socket?.end();
    this.#armTimer(this.#options.closeTimeoutMs, () => this.#destroy());
  }

  #sendClose(code: number | undefined, reason: Uint8Array): void {
    if (this.#sentClose) return;
    this.#sentClose = true;
    this.#write(Opcode.Close, encodeClosePayload(code, reason));
  }

  #write(opcode: number, payload: Uint8Array): void {
    this.#writeFrame(encodeFrame(opcode, payload));
  }

  #writeFrame(frame: Uint8Array): void {
    const socket = this.#socket;
    if (!socket || socket.destroyed || !socket.writable) return;
    // Frames written in one turn of the event loop leave in one writev: a
    // loopback write costs ~5-10 µs, which dominated a busy caller's CPU time.
    if (socket.writableCorked === 0) {
      socket.cork();
      queueMicrotask(() => socket.uncork());
    }
    socket.write(frame);
  }

  #armTimer(ms: number, fn: () => void): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(fn, ms);
  }

  #emitError(err: Error): void {
    if (this.#errored || this.#finished) return;
    this.#errored = true;
    this.onerror?.(err);
  }

  #destroy(): void {
    if (this.#state !== "closed") this.#state = "closing";
    if (this.#socket && !this.#socket.destroyed) this.#socket.destroy();
    else if (!this.#socket) this.#finish({ code: 1006, reason: "", wasClean: false });
  }

  #onSocketClose(): void {
    if (this.#refusal) this.#refuse();
    const received = this.#receivedClose;
    if (this.#failure) this.#finish({ ...this.#failure, wasClean: false });
    else if (received) {
      this.#finish({ code: received.code, reason: received.reason, wasClean: this.#sentClose });
    } else this.#finish({ code: 1006, reason: "", wasClean: false });
  }

  #finish(event: CloseEvent): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#state = "closed";
    clearTimeout(this.#timer);
    if (this.#refusal) clearTimeout(this.#refusal.timer);
    this.#drainInbox();
    this.#inbox = [];
    this.#resolveClosed(event);
    this.onclose?.(event);
  }
}
