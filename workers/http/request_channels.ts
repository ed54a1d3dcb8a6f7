/**
 * The two channel refs a handler call carries (the reference's
 * `request_body` and `response`), made cheap for the common handler that
 * opens neither: the refs are reserved ids, and a channel is made only when
 * a worker opens one (an iii-sdk `ChannelReader`/`ChannelWriter`).
 *
 * Per request that is this object, a random key and an entry in engine-http's
 * own table ({@linkcode RequestIds}), gone when the request ends ({@linkcode
 * RequestChannels.release}). No socket, timer or registry entry is made until
 * a handler opens a ref.
 *
 * - `request_body` (the worker reads): the raw request bytes as one binary
 *   frame (none for an empty body), then the end.
 * - `response` (the worker writes): `set_status`/`set_headers` text frames,
 *   then binary chunks (see `streamed_response.ts`).
 *
 * @module
 */
import type { ChannelApi, ChannelRef } from "../../engine/api.ts";
import type { Channel, Direction } from "../../engine/channels/channel.ts";
import type { Reservation } from "../../engine/channels/registry.ts";
import { ResponseStream } from "./streamed_response.ts";

/** Frames queued per channel before the writer is held back. */
const BUFFER_SIZE = 64;

/**
 * The requests whose refs are out, by number: channel ids are this table's
 * random prefix, the request's number and `-body` or `-response`, and the
 * engine's channel registry asks the table about an id only when a worker
 * opens one (`reserveSource`). A request costs a table entry, nothing in the
 * registry.
 */
export class RequestIds {
  readonly #prefix = `http-${crypto.randomUUID().slice(0, 8)}-`;
  readonly #requests = new Map<number, RequestChannels>();
  readonly #api: ChannelApi;
  #next = 0;

  readonly #unregister: () => void;

  constructor(api: ChannelApi) {
    this.#api = api;
    this.#unregister = api.reserveSource(this.#prefix, (id) => this.#lookup(id));
  }

  /** Stops answering for its ids (the worker stopped): refs still out are refused. */
  close(): void {
    this.#unregister();
  }

  /** The channels of a new request, whose raw body is `bytes`; `release()` them when it ends. */
  open(bytes: Uint8Array | null): RequestChannels {
    const n = ++this.#next;
    const channels = new RequestChannels(this.#api, `${this.#prefix}${n}`, bytes, () => {
      this.#requests.delete(n);
    });
    this.#requests.set(n, channels);
    return channels;
  }

  #lookup(id: string): RequestChannels | undefined {
    const rest = id.slice(this.#prefix.length);
    const dash = rest.indexOf("-");
    const n = Number(rest.slice(0, dash));
    const channels = this.#requests.get(n);
    return channels !== undefined && (id === channels.bodyId || id === channels.responseId)
      ? channels
      : undefined;
  }
}

export class RequestChannels implements Reservation {
  readonly key = crypto.randomUUID();
  readonly bodyId: string;
  readonly responseId: string;
  #api: ChannelApi;
  #bytes: Uint8Array | null;
  #body: Channel | undefined;
  #response: ResponseStream | undefined;
  /** Called once the response is committed (see {@linkcode whenCommitted}). */
  #wake: (() => void) | undefined;
  /** Called once the handler opened its response ref (see {@linkcode whenResponseOpened}). */
  #opened: (() => void) | undefined;
  #released = false;
  #onRelease: () => void;

  constructor(api: ChannelApi, id: string, bytes: Uint8Array | null, onRelease: () => void) {
    this.#api = api;
    this.bodyId = `${id}-body`;
    this.responseId = `${id}-response`;
    this.#bytes = bytes;
    this.#onRelease = onRelease;
  }

  /** The refs the handler's request carries. */
  refs(): { request_body: ChannelRef; response: ChannelRef } {
    return {
      request_body: { channel_id: this.bodyId, access_key: this.key, direction: "read" },
      response: { channel_id: this.responseId, access_key: this.key, direction: "write" },
    };
  }

  refusal(channelId: string, direction: Direction): string | undefined {
    if (this.#released) return "its request has ended";
    const mine = channelId === this.bodyId ? "write" : "read";
    if (direction === mine) return `its ${direction} end is engine-http's`;
    return undefined;
  }

  open(channelId: string, direction: Direction): Channel {
    const channel = this.#api.add({ id: channelId, key: this.key, bufferSize: BUFFER_SIZE });
    channel.claim("read");
    channel.claim("write");
    if (direction === "read") {
      // The request body: all of it at once, then the end; kept only while the request runs.
      this.#body = channel;
      if (this.#bytes !== null && this.#bytes.byteLength > 0) channel.push(this.#bytes);
      this.#bytes = null;
      channel.endWrite();
    } else {
      this.#response = new ResponseStream(channel, () => this.#wake?.());
      this.#opened?.();
    }
    return channel;
  }

  /**
   * Resolves `true` once the handler opened its response ref, `false` if it
   * has not within `graceMs`: a handler that returned nothing and streams
   * nothing is told apart from one that opens its writer after returning (as
   * the iii-sdk `http()` helper does, at once).
   */
  whenResponseOpened(graceMs: number): Promise<boolean> {
    if (this.#response) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#opened = undefined;
        resolve(false);
      }, graceMs);
      this.#opened = () => {
        clearTimeout(timer);
        this.#opened = undefined;
        resolve(true);
      };
    });
  }

  /** The response stream, once the handler opened its ref. */
  get response(): ResponseStream | undefined {
    return this.#response;
  }

  /**
   * Resolves once the response is committed: its first binary chunk came, or
   * the writer closed it. Not before the handler opens the ref.
   */
  whenCommitted(): Promise<void> {
    if (this.#response?.committed) return Promise.resolve();
    return new Promise((resolve) => this.#wake = resolve);
  }

  /**
   * `call`'s result, or {@linkcode STREAMED} when the response is committed
   * first: a handler may stream all of it before it returns (the later
   * result or error is then ignored).
   */
  race(call: Promise<unknown>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#wake = () => {
        call.catch(() => {}); // ignored: the stream is the answer
        resolve(STREAMED);
      };
      call.then(resolve, reject);
    });
  }

  /** The request ended: the refs stop working, a channel still open is ended. */
  release(reason: string): void {
    if (this.#released) return;
    this.#released = true;
    this.#bytes = null;
    this.#wake = undefined;
    this.#opened?.();
    this.#onRelease();
    if (this.#body !== undefined) this.#api.remove(this.bodyId, reason);
    if (this.#response !== undefined) this.#api.remove(this.responseId, reason);
    this.#body = undefined;
  }
}

/** What {@linkcode RequestChannels.race} resolves with when the stream won. */
export const STREAMED: unique symbol = Symbol("streamed");
