/**
 * Channel refs: the `{channel_id, access_key, direction}` objects that name
 * one end of a data channel, where an end connects, and the replacement of
 * refs in a handler's input by live ends.
 *
 * @module
 */

import type { ConnectionOptions } from "node:tls";
import type { WebSocketClientOptions } from "../websocket/client.ts";

/** Which end of a channel a ref names: `read` (a reader) or `write` (a writer). */
export type ChannelDirection = "read" | "write";

/**
 * One end of a data channel, as `engine::channels::create` answers it and as
 * it travels in payloads. The `access_key` is the credential to open the end:
 * give a ref only to the worker meant to use it.
 */
export interface ChannelRef<D extends ChannelDirection = ChannelDirection> {
  channel_id: string;
  access_key: string;
  direction: D;
}

/** How a channel end connects, besides the engine's URL. */
export interface ChannelOptions {
  /** `node:tls` options for `wss:` engine URLs (the worker's `tls` option). */
  tls?: ConnectionOptions | undefined;
  /** Connect plus upgrade deadline. Default 10000 ms. */
  handshakeTimeoutMs?: number | undefined;
}

/** The WebSocket client options for a channel end (no headers: the key is the credential). */
export function socketOptions(options: ChannelOptions): WebSocketClientOptions {
  const out: WebSocketClientOptions = {};
  if (options.tls !== undefined) out.tls = options.tls;
  if (options.handshakeTimeoutMs !== undefined) out.handshakeTimeoutMs = options.handshakeTimeoutMs;
  return out;
}

/** Refs nested deeper than this in a handler's input stay plain objects. */
export const MAX_REF_DEPTH = 100;

/**
 * Whether `value` is shaped as a {@linkcode ChannelRef}: string `channel_id`
 * and `access_key`, and `direction` `"read"` or `"write"`.
 *
 * @example
 * ```ts
 * console.log(isChannelRef({ channel_id: "c1", access_key: "k", direction: "read" })); // true
 * console.log(isChannelRef({ channel_id: "c1", direction: "read" })); // false
 * ```
 */
export function isChannelRef(value: unknown): value is ChannelRef {
  if (typeof value !== "object" || value === null) return false;
  const ref = value as Record<string, unknown>;
  return typeof ref.channel_id === "string" && typeof ref.access_key === "string" &&
    (ref.direction === "read" || ref.direction === "write");
}

/**
 * A copy of `ref` for the end `kind` (`"ChannelReader"`, `"ChannelWriter"`),
 * which opens `direction`; a `TypeError` naming the channel for a ref of the
 * other end.
 *
 * @example
 * ```ts
 * const ref = { channel_id: "c1", access_key: "k", direction: "read" } as const;
 * console.log(endRef(ref, "read", "ChannelReader").direction); // read
 * ```
 */
export function endRef<D extends ChannelDirection>(
  ref: ChannelRef,
  direction: D,
  kind: string,
): ChannelRef<D> {
  if (ref.direction !== direction) {
    throw new TypeError(
      `Channel "${ref.channel_id}": a ${kind} needs a "${direction}" ref, got "${ref.direction}"`,
    );
  }
  return { channel_id: ref.channel_id, access_key: ref.access_key, direction };
}

/**
 * The WebSocket URL of a channel end (protocol.md §15):
 * `<engine URL without a trailing "/">/ws/channels/<id>?key=<key>&dir=<direction>`.
 *
 * @example
 * ```ts
 * const ref = { channel_id: "c1", access_key: "k/1", direction: "write" } as const;
 * console.log(channelUrl("ws://127.0.0.1:49134/", ref)); // ws://127.0.0.1:49134/ws/channels/c1?key=k%2F1&dir=write
 * ```
 */
export function channelUrl(engineUrl: string, ref: ChannelRef): string {
  return `${engineUrl.replace(/\/$/, "")}/ws/channels/${encodeURIComponent(ref.channel_id)}?key=${
    encodeURIComponent(ref.access_key)
  }&dir=${ref.direction}`;
}

/**
 * `value` with every {@linkcode ChannelRef} in it (in objects and arrays, up
 * to {@linkcode MAX_REF_DEPTH} levels) replaced by `open(ref)`. Objects and
 * arrays on the way to a ref are copied; the rest, and `value` itself when it
 * holds no ref, are returned as they are.
 *
 * @example
 * ```ts
 * const input = { n: 1, out: { channel_id: "c1", access_key: "k", direction: "write" } };
 * console.log(replaceChannelRefs(input, (ref) => `<${ref.direction} end>`)); // { n: 1, out: "<write end>" }
 * ```
 */
export function replaceChannelRefs(value: unknown, open: (ref: ChannelRef) => unknown): unknown {
  return replace(value, open, 0);
}

function replace(value: unknown, open: (ref: ChannelRef) => unknown, depth: number): unknown {
  if (typeof value !== "object" || value === null || depth > MAX_REF_DEPTH) return value;
  if (isChannelRef(value)) return open(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = replace(value[i], open, depth + 1);
      if (item === value[i]) continue;
      copy ??= value.slice();
      copy[i] = item;
    }
    return copy ?? value;
  }
  let copy: Record<string, unknown> | undefined;
  const record = value as Record<string, unknown>;
  // for-in (no key array per object: this runs on every call's input); JSON-made objects
  // inherit no enumerable keys.
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const item = replace(record[key], open, depth + 1);
    if (item === record[key]) continue;
    copy ??= { ...record };
    if (key === "__proto__") {
      // A "__proto__" key (JSON.parse makes it an own property) stays a key, not the prototype.
      Object.defineProperty(copy, key, { value: item, writable: true, enumerable: true });
    } else copy[key] = item;
  }
  return copy ?? value;
}
