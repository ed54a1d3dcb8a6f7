/**
 * One WebSocket connection of the native server after the handshake: reads
 * frames into a {@linkcode FrameReader}, answers pings, runs the closing
 * handshake and the idle check, and writes through an {@linkcode Outbox}.
 * It is the {@linkcode EngineSocket} a session sends on.
 *
 * @module
 */
import { FrameError, type FrameHandler, FrameReader, Opcode } from "./frame_reader.ts";
import { Outbox } from "./outbox.ts";
import { type EngineSocket, SocketState } from "./socket.ts";

/** How many frames of one read are handed on before the writes they caused go out (see run()). */
const FRAMES_PER_PARSE = 8;

export interface NativeSocketOptions {
  /** Largest message accepted; a larger one closes the connection with 1009. */
  maxMessageBytes: number;
  /**
   * With no byte from the client for half of this, it is pinged; with none
   * for the other half either, the connection is closed with 1001.
   */
  idleTimeoutMs: number;
  /** How long to wait for the client's answer to our close frame before cutting the connection. */
  closeTimeoutMs: number;
}

/** How the connection ended: the close code received (1005 none, 1006 no close frame). */
export interface CloseInfo {
  code: number;
  reason: string;
}

const encoder = new TextEncoder();
const EMPTY = new Uint8Array(0);

export class NativeSocket implements EngineSocket {
  /** Receives every text message. */
  onText: ((text: string) => void) | undefined;
  /** Receives every binary message; the bytes are valid only during the call. */
  onBinary: ((bytes: Uint8Array) => void) | undefined;
  #conn: Deno.Conn;
  #options: NativeSocketOptions;
  #outbox: Outbox;
  #reader: FrameReader;
  #state: number = SocketState.Open;
  #received: CloseInfo = { code: 1006, reason: "" };
  /** A byte arrived since the last idle check. */
  #heard = true;
  #pinged = false;
  #idleTimer: ReturnType<typeof setInterval> | undefined;
  #closeTimer: ReturnType<typeof setTimeout> | undefined;
  #tcpClosed = false;
  /** While set, the connection is not read (a channel's writer held back); resolved by resume(). */
  #paused: PromiseWithResolvers<void> | undefined;

  constructor(conn: Deno.Conn, options: NativeSocketOptions) {
    this.#conn = conn;
    this.#options = options;
    this.#outbox = new Outbox(conn, { onError: () => this.#cut() });
    this.#reader = new FrameReader(this.#handler(), {
      maxMessageBytes: options.maxMessageBytes,
      framesPerParse: FRAMES_PER_PARSE,
    });
  }

  get bufferedAmount(): number {
    return this.#outbox.bufferedAmount;
  }

  get readyState(): number {
    return this.#state;
  }

  /** Queues bytes before any frame: the handshake response. */
  writeRaw(bytes: Uint8Array): void {
    this.#outbox.raw(bytes);
  }

  send(text: string): void {
    if (this.#state === SocketState.Open) this.#outbox.text(text);
  }

  /** Queues a binary message. */
  sendBinary(bytes: Uint8Array): void {
    if (this.#state === SocketState.Open) this.#outbox.frame(Opcode.Binary, bytes);
  }

  /**
   * Stops reading the connection after the frames already read: the client
   * is held back by TCP until {@linkcode resume}. The idle check does not
   * count the silence meanwhile.
   */
  pause(): void {
    this.#paused ??= Promise.withResolvers<void>();
  }

  resume(): void {
    const paused = this.#paused;
    this.#paused = undefined;
    paused?.resolve();
  }

  /** Sends a close frame; the connection ends when the client answers, or after `closeTimeoutMs`. */
  close(code: number, reason: string): void {
    if (this.#state !== SocketState.Open) return;
    this.#sendClose(code, reason);
    this.#closeTimer = setTimeout(() => this.#cut(), this.#options.closeTimeoutMs);
  }

  /** Ends the TCP connection now, without a closing handshake. */
  abort(): void {
    this.#cut();
  }

  /**
   * Reads until the connection ends; `leftover` are bytes read with the
   * request head. Resolves with how it ended, once the TCP connection is
   * closed; rejects (after closing it with 1011) when a receiver threw.
   */
  async run(leftover: Uint8Array = EMPTY): Promise<CloseInfo> {
    const idleHalf = Math.max(1, this.#options.idleTimeoutMs / 2);
    this.#idleTimer = setInterval(() => this.#idleCheck(), idleHalf);
    let failure: unknown;
    try {
      try {
        if (leftover.length > 0) this.#reader.push(leftover);
        await this.#read();
      } catch (e) {
        if (!(e instanceof FrameError) || e.code !== 1009) throw e;
        // The client may still be sending the message: it is read and dropped until the
        // client's answer to our close frame (or closeTimeoutMs), or the client, its write
        // failing on a reset connection, would never read why.
        this.#fail(e.code, e.message);
        clearTimeout(this.#closeTimer);
        this.#closeTimer = setTimeout(() => this.#cut(), this.#options.closeTimeoutMs);
        this.#reader.discard();
        await this.#read();
      }
    } catch (e) {
      if (e instanceof FrameError) this.#fail(e.code, e.message);
      else if (!this.#tcpClosed && !isConnectionError(e)) {
        // A receiver threw: the connection cannot go on in a known state.
        this.#fail(1011, "Internal error");
        failure = e;
      }
    } finally {
      clearInterval(this.#idleTimer);
    }
    // Our close frame (an answer, or a failure) goes out before the connection closes.
    if (!this.#tcpClosed) {
      const timer = setTimeout(() => this.#cut(), this.#options.closeTimeoutMs);
      await this.#outbox.drained();
      clearTimeout(timer);
    }
    this.#cut();
    if (failure !== undefined) throw failure;
    return this.#received;
  }

  /** Reads and parses until a close frame, or the end of the connection. */
  async #read(): Promise<void> {
    const reader = this.#reader;
    while (!reader.closed && !this.#tcpClosed) {
      // A read holds many frames under load (64 calls at once, say). They are handed on a few
      // at a time, with the queued writes let out in between (the outbox flushes from a
      // microtask): the worker starts on the first calls while the engine parses the others,
      // instead of the whole burst moving from process to process as one wave.
      while (reader.pending && !reader.closed) {
        await Promise.resolve();
        while (this.#paused && !this.#tcpClosed) await this.#paused.promise;
        reader.resume();
      }
      if (reader.closed) break;
      while (this.#paused && !this.#tcpClosed) await this.#paused.promise;
      const n = await this.#conn.read(reader.space());
      if (n === null) break;
      this.#heard = true;
      reader.advance(n);
    }
  }

  #handler(): FrameHandler {
    return {
      text: (text) => {
        if (this.#state === SocketState.Open) this.onText?.(text);
      },
      binary: (bytes) => {
        if (this.#state === SocketState.Open) this.onBinary?.(bytes);
      },
      ping: (payload) => {
        // Few pongs wait at a time (see Outbox.pong()): a client that pings and does not read
        // fills no memory with them.
        if (this.#state === SocketState.Open) this.#outbox.pong(payload);
      },
      pong: () => {
        this.#pinged = false;
      },
      close: (code, reason) => {
        this.#received = { code: code ?? 1005, reason };
        // The answer to a client's close echoes its code; an answer to ours needs none.
        if (this.#state === SocketState.Open) this.#sendClose(code, "");
      },
    };
  }

  #idleCheck(): void {
    if (this.#heard || this.#paused) {
      this.#heard = false;
      this.#pinged = false;
      return;
    }
    if (this.#state !== SocketState.Open) return;
    if (!this.#pinged) {
      this.#pinged = true;
      this.#outbox.frame(Opcode.Ping, EMPTY);
      return;
    }
    // As Deno's server does: a close frame, and the connection ends without waiting for an answer
    // (nor longer than closeTimeoutMs for the frame to be written: the client may read nothing).
    this.#sendClose(1001, "No response from ping frame.");
    this.#outbox.drained().then(() => this.#cut());
    this.#closeTimer = setTimeout(() => this.#cut(), this.#options.closeTimeoutMs);
  }

  /** A protocol violation: a close frame with `code`, then the connection ends. */
  #fail(code: number, message: string): void {
    if (this.#state === SocketState.Open) this.#sendClose(code, message);
  }

  #sendClose(code: number | undefined, reason: string): void {
    this.#state = SocketState.Closing;
    if (code === undefined) return this.#outbox.frame(Opcode.Close, EMPTY);
    // A control frame holds 125 bytes: the code and at most 123 of reason, whole characters only
    // (encodeInto writes no partial one).
    const payload = new Uint8Array(125);
    payload[0] = code >>> 8;
    payload[1] = code & 0xff;
    const { written } = encoder.encodeInto(reason, payload.subarray(2));
    this.#outbox.frame(Opcode.Close, payload.subarray(0, 2 + written));
  }

  #cut(): void {
    clearTimeout(this.#closeTimer);
    this.resume();
    this.#state = SocketState.Closed;
    if (this.#tcpClosed) return;
    this.#tcpClosed = true;
    try {
      this.#conn.close();
    } catch { /* closed already */ }
  }
}

function isConnectionError(e: unknown): boolean {
  return e instanceof Deno.errors.ConnectionReset || e instanceof Deno.errors.BrokenPipe ||
    e instanceof Deno.errors.BadResource || e instanceof Deno.errors.Interrupted ||
    e instanceof Deno.errors.ConnectionAborted || e instanceof Deno.errors.NotConnected;
}
