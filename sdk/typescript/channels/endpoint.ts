/**
 * Where a worker's channel ends connect: its engine URL and TLS options,
 * recorded when the worker is made. Kept apart from `Worker` so that its
 * options stay private.
 *
 * @module
 */

import type { ChannelOptions, ChannelRef } from "./ref.ts";
import { ChannelReader } from "./reader.ts";
import { ChannelWriter } from "./writer.ts";

/** An engine URL and how to connect to it. */
export interface ChannelEndpoint {
  url: string;
  options: ChannelOptions;
}

const endpoints = new WeakMap<object, ChannelEndpoint>();

/** Records where `worker`'s channel ends connect. */
export function setChannelEndpoint(worker: object, endpoint: ChannelEndpoint): void {
  endpoints.set(worker, endpoint);
}

/** Where `worker`'s channel ends connect, if it is a worker. */
export function channelEndpoint(worker: unknown): ChannelEndpoint | undefined {
  return typeof worker === "object" && worker !== null ? endpoints.get(worker) : undefined;
}

/**
 * A live end for `ref`: a {@linkcode ChannelReader} for `read`, a
 * {@linkcode ChannelWriter} for `write`. Neither connects yet.
 *
 * @example
 * ```ts
 * const endpoint = { url: "ws://127.0.0.1:49134", options: {} };
 * const end = openEnd(endpoint, { channel_id: "c1", access_key: "k", direction: "write" });
 * console.log(end.constructor.name); // ChannelWriter
 * ```
 */
export function openEnd(endpoint: ChannelEndpoint, ref: ChannelRef): ChannelReader | ChannelWriter {
  return ref.direction === "read"
    ? new ChannelReader(endpoint.url, ref, endpoint.options)
    : new ChannelWriter(endpoint.url, ref, endpoint.options);
}
