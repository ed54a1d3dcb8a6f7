/**
 * The write end of a data channel: binary frames of at most 64 KiB for data,
 * text frames for messages, a close with 1000 for the end.
 *
 * @module
 */

import { EngineError } from "../errors.ts";
import type { CloseEvent, WebSocketClient } from "../websocket/client.ts";
import { type ChannelOptions, type ChannelRef, endRef } from "./ref.ts";
import { channelFailure } from "./failure.ts";
import { breakSocket, openTrackedSocket } from "./socket.ts";

/** The largest binary frame a writer sends; longer data goes in several. */
export const CHUNK_SIZE = 64 * 1024;

const encoder = new TextEncoder();

/**
 * The write end of a data channel. It connects on the first write,
 * message or end (not when created), so a handler that ignores a writer opens
 * no socket. Operations go out in the order they were called; each returns a
 * promise that resolves once its frames were handed on (`write()` waits while
 * the socket is backed up, so awaiting it keeps pace with the reader). A
 * failed operation rejects with an {@linkcode EngineError} (`channel_refused`,
 * `channel_broken`, `channel_closed`), and so does every later one; an
 * operation left unawaited does not crash the process when it fails.
 *
 * @example
 * ```ts ignore
 * worker.registerFunction("report::produce", async ({ out }: { out: ChannelWriter }) => {
 *   await out.sendMessage(JSON.stringify({ rows: 2 }));
 *   await out.write("id,total\n");
 *   await out.write(new TextEncoder().encode("1,10\n2,20\n"));
 *   await out.end();
 * });
 * ```
 */
export class ChannelWriter {
  readonly #ref: ChannelRef<"write">;
  readonly #engineUrl: string;
  readonly #options: ChannelOptions;
  #ws: Promise<WebSocketClient> | undefined;
  #socket: WebSocketClient | undefined;
  #tail: Promise<void> = Promise.resolve();
  #ending = false;
  #failure: EngineError | undefined;

  /** Usually made by the SDK from a ref; `engineUrl` is the worker's engine URL. */
  constructor(engineUrl: string, ref: ChannelRef, options: ChannelOptions = {}) {
    this.#ref = endRef(ref, "write", "ChannelWriter");
    this.#engineUrl = engineUrl; // the URL is made when it connects: most ends never do
    this.#options = options;
  }

  /** The ref of this end (a copy), e.g. to hand it on to another function unused. */
  get ref(): ChannelRef<"write"> {
    return { ...this.#ref };
  }

  /**
   * Sends `data` (a string as UTF-8) as binary frames of at most
   * {@linkcode CHUNK_SIZE} bytes; resolves once the socket took them.
   *
   * @example
   * ```ts ignore
   * await writer.write(new Uint8Array([1, 2, 3]));
   * ```
   */
  write(data: Uint8Array | string): Promise<void> {
    const bytes = typeof data === "string" ? encoder.encode(data) : data;
    return this.#enqueue("write", async (ws) => {
      for (let offset = 0; offset < bytes.byteLength; offset += CHUNK_SIZE) {
        this.#check(ws);
        ws.send(bytes.subarray(offset, offset + CHUNK_SIZE));
        await ws.drained();
      }
    });
  }

  /**
   * Sends `text` as one text message (the reader's `onMessage` gets it).
   *
   * @example
   * ```ts ignore
   * await writer.sendMessage(JSON.stringify({ type: "progress", done: 0.5 }));
   * ```
   */
  sendMessage(text: string): Promise<void> {
    return this.#enqueue("sendMessage", (ws) => {
      this.#check(ws);
      ws.send(String(text));
    });
  }

  /**
   * Ends the data after everything sent before (close code 1000,
   * `stream_complete`); resolves once the engine took the end. Never opened,
   * the writer opens to end: the reader sees empty data. A second call does
   * nothing.
   *
   * @example
   * ```ts ignore
   * await writer.write("last chunk");
   * await writer.end();
   * ```
   */
  end(): Promise<void> {
    return this.#close("stream_complete");
  }

  /**
   * Same as {@linkcode ChannelWriter.end}, with the close reason
   * `channel_close` (what the npm SDK's `close()` sends).
   *
   * @example
   * ```ts ignore
   * await writer.close();
   * ```
   */
  close(): Promise<void> {
    return this.#close("channel_close");
  }

  #close(reason: string): Promise<void> {
    if (this.#ending) return this.#tail;
    const run = this.#enqueue("end", async (ws) => {
      if (this.#failure) throw this.#failure;
      if (ws.readyState === "open") await ws.close(1000, reason);
    });
    this.#ending = true;
    return run;
  }

  /** Throws the failure, if the socket failed, before a send. */
  #check(ws: WebSocketClient): void {
    if (this.#failure) throw this.#failure;
    if (ws.readyState !== "open") {
      throw new EngineError("channel_closed", `Channel "${this.#ref.channel_id}" is closed`);
    }
  }

  #enqueue(what: string, op: (ws: WebSocketClient) => void | Promise<void>): Promise<void> {
    if (this.#ending) {
      const id = JSON.stringify(this.#ref.channel_id);
      const error = new EngineError(
        "channel_closed",
        `Channel ${id}: ${what}() after end()/close()`,
      );
      const failed = Promise.reject(error);
      failed.catch(() => {}); // unawaited, it does not crash the process
      return failed;
    }
    const run = this.#tail.then(async () => {
      if (this.#failure) throw this.#failure;
      await op(await this.#connect());
    });
    this.#tail = run.catch(() => {}); // the next operation runs either way
    return run;
  }

  /** The open socket, connecting on first use; rejects with the failure to open it. */
  #connect(): Promise<WebSocketClient> {
    this.#ws ??= new Promise((resolve, reject) => {
      // Tracked while its socket is open: the worker's shutdown() waits for it, then breaks it off.
      const opened = openTrackedSocket(
        this.#engineUrl,
        this.#ref,
        this.#options,
        (why) => this.#break(why),
      );
      if ("refusal" in opened) return reject(this.#broken(opened.refusal));
      const { ws, untrack } = opened;
      this.#socket = ws;
      let error: Error | undefined;
      ws.onopen = () => resolve(ws);
      ws.onerror = (err) => (error = err);
      ws.onclose = (event: CloseEvent) => {
        untrack();
        const asked = this.#ending && event.code === 1000 && !error;
        if (!asked) this.#failure ??= channelFailure(this.#ref, event, error);
        if (this.#failure) reject(this.#failure);
      };
    });
    return this.#ws;
  }

  /**
   * Closes the socket with 1001 (not 1000, which would end the data cleanly):
   * the engine breaks the channel off, so the reader gets an error, not a
   * stream that looks complete. Later calls reject.
   */
  #break(why: string): Promise<void> {
    this.#broken(why);
    return breakSocket(this.#socket);
  }

  #broken(why: string): EngineError {
    const id = JSON.stringify(this.#ref.channel_id);
    return this.#failure ??= new EngineError(
      "channel_closed",
      `Channel ${id} cannot be written to: ${why}`,
    );
  }
}
