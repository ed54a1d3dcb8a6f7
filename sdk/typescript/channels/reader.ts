/**
 * The read end of a data channel: binary frames are data, text frames
 * messages, and the engine closing the socket with 1000 is the end.
 *
 * @module
 */

import { EngineError } from "../errors.ts";
import type { CloseEvent, WebSocketClient } from "../websocket/client.ts";
import { type ChannelOptions, type ChannelRef, endRef } from "./ref.ts";
import { channelFailure } from "./failure.ts";
import { breakSocket, openTrackedSocket } from "./socket.ts";

/** Bytes held unread before the reader stops reading its socket (TCP holds the writer back). */
export const READER_HIGH_WATER = 1024 * 1024;

/**
 * The read end of a data channel. It connects on the first read (not when
 * created, nor by {@linkcode ChannelReader.onMessage}), so a handler that
 * ignores a reader opens no socket. Read the data once: with
 * {@linkcode ChannelReader.readAll}, {@linkcode ChannelReader.readText} or
 * `for await` (binary chunks as they come). Text messages go to the
 * `onMessage` callbacks. The data ends when the writer ends; a writer that
 * broke off (its connection dropped) makes the read reject with an
 * {@linkcode EngineError} of code `channel_broken`, and a ref the engine
 * refuses (unknown, or opened already) with code `channel_refused`.
 *
 * @example
 * ```ts ignore
 * worker.registerFunction("files::size", async ({ reader }: { reader: ChannelReader }) => {
 *   reader.onMessage((text) => console.log("message:", text));
 *   let size = 0;
 *   for await (const chunk of reader) size += chunk.byteLength;
 *   return { size };
 * });
 * ```
 */
export class ChannelReader implements AsyncIterable<Uint8Array> {
  readonly #ref: ChannelRef<"read">;
  readonly #engineUrl: string;
  readonly #options: ChannelOptions;
  #ws: WebSocketClient | undefined;
  #chunks: Uint8Array[] = [];
  #held = 0;
  #paused = false;
  #done = false;
  #failure: EngineError | undefined;
  #wake: (() => void) | undefined;
  #callbacks: ((text: string) => void)[] = [];
  #taken = false;

  /** Usually made by the SDK from a ref; `engineUrl` is the worker's engine URL. */
  constructor(engineUrl: string, ref: ChannelRef, options: ChannelOptions = {}) {
    this.#ref = endRef(ref, "read", "ChannelReader");
    this.#engineUrl = engineUrl; // the URL is made when it connects: most ends never do
    this.#options = options;
  }

  /** The ref of this end (a copy), e.g. to hand it on to another function unread. */
  get ref(): ChannelRef<"read"> {
    return { ...this.#ref };
  }

  /**
   * Calls `callback` with each text message of the channel, in order with
   * the data. Does not connect: the messages arrive while the data is read.
   *
   * @example
   * ```ts ignore
   * reader.onMessage((text) => console.log(JSON.parse(text)));
   * await reader.readAll();
   * ```
   */
  onMessage(callback: (text: string) => void): void {
    this.#callbacks.push(callback);
  }

  /**
   * Reads the whole data, until the writer ends it, as one array of bytes.
   *
   * @example
   * ```ts ignore
   * const bytes = await req.request_body.readAll();
   * ```
   */
  async readAll(): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of this) {
      chunks.push(chunk);
      size += chunk.byteLength;
    }
    if (chunks.length === 1) return chunks[0]!;
    const out = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      out.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return out;
  }

  /**
   * Reads the whole data and decodes it as UTF-8 (invalid bytes become U+FFFD).
   *
   * @example
   * ```ts ignore
   * const text = await req.request_body.readText();
   * ```
   */
  async readText(): Promise<string> {
    return new TextDecoder().decode(await this.readAll());
  }

  /**
   * The data's binary chunks as they arrive. Once only: a second reading
   * throws. Leaving the loop early closes the channel (its writer is told).
   */
  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    if (this.#taken) {
      throw new Error(`Channel "${this.#ref.channel_id}": its reader was read already`);
    }
    this.#taken = true;
    this.#connect();
    try {
      for (;;) {
        const chunk = this.#chunks.shift();
        if (chunk !== undefined) {
          this.#held -= chunk.byteLength;
          if (this.#paused && this.#held < READER_HIGH_WATER) {
            this.#paused = false;
            this.#ws?.resume();
          }
          yield chunk;
          continue;
        }
        if (this.#failure) throw this.#failure;
        if (this.#done) return;
        await new Promise<void>((resolve) => (this.#wake = resolve));
      }
    } finally {
      if (!this.#done) await this.close();
    }
  }

  /**
   * Stops reading: the socket closes (the writer is told the reader went
   * away) and what was not read yet is dropped.
   *
   * @example
   * ```ts ignore
   * await reader.close();
   * ```
   */
  async close(): Promise<void> {
    this.#finish();
    this.#chunks = [];
    this.#held = 0;
    const ws = this.#ws;
    if (ws && ws.readyState !== "closed") await ws.close(1000, "channel_close");
  }

  #connect(): void {
    if (this.#ws || this.#done) return;
    // Tracked while its socket is open: the worker's shutdown() waits for it, then breaks it off.
    const opened = openTrackedSocket(
      this.#engineUrl,
      this.#ref,
      this.#options,
      (why) => this.#break(why),
    );
    if ("refusal" in opened) {
      void this.#break(opened.refusal); // the worker shut down: the read fails at once
      return;
    }
    const { ws, untrack } = opened;
    this.#ws = ws;
    let error: Error | undefined;
    ws.onerror = (err) => (error = err);
    ws.onmessage = (data) => {
      if (this.#done) return;
      if (typeof data === "string") {
        for (const callback of this.#callbacks) callback(data);
        return;
      }
      this.#chunks.push(data);
      this.#held += data.byteLength;
      if (!this.#paused && this.#held >= READER_HIGH_WATER) {
        this.#paused = true;
        ws.pause();
      }
      this.#wakeUp();
    };
    ws.onclose = (event: CloseEvent) => {
      untrack();
      if (this.#done) return;
      if (error || (event.code !== 1000 && event.code !== 1005)) {
        this.#failure = channelFailure(this.#ref, event, error);
      }
      this.#finish();
    };
  }

  /**
   * Fails the read (what arrived before is still read first) and closes the
   * socket with 1001, so the engine tells the writer the reader went away.
   */
  #break(why: string): Promise<void> {
    if (!this.#done) {
      const id = JSON.stringify(this.#ref.channel_id);
      this.#failure ??= new EngineError("channel_broken", `Channel ${id} broke off: ${why}`);
      this.#finish();
    }
    this.#ws?.resume(); // a paused socket would not read the engine's answer to the close
    return breakSocket(this.#ws);
  }

  #finish(): void {
    this.#done = true;
    this.#wakeUp();
  }

  #wakeUp(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
