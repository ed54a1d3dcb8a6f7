/**
 * Making a data channel (`engine::channels::create`) and opening a ref that
 * arrived other than in a handler's input.
 *
 * @module
 */

import { currentScope } from "../trace.ts";
import { defaultWorker, type Worker } from "../worker.ts";
import { type ChannelEndpoint, channelEndpoint, openEnd } from "./endpoint.ts";
import { type ChannelRef, isChannelRef } from "./ref.ts";
import type { ChannelReader } from "./reader.ts";
import type { ChannelWriter } from "./writer.ts";

/** Options of {@linkcode createChannel}. */
export interface CreateChannelOptions {
  /** Frames the engine holds for a slow reader before it holds the writer back: 1 to 1024, default 64. */
  bufferSize?: number;
  /** The worker to ask; default the one running the current handler, else the latest registered. */
  worker?: Worker;
  /** Time-out of the `engine::channels::create` call. */
  timeoutMs?: number;
}

/** A new channel: both ends, and their refs to hand to other functions. */
export interface Channel {
  reader: ChannelReader;
  writer: ChannelWriter;
  readerRef: ChannelRef<"read">;
  writerRef: ChannelRef<"write">;
}

/**
 * Creates a data channel through `engine::channels::create`. Use one end
 * here and pass the other end's ref in a call's payload: the function called
 * gets it as a live reader or writer. An end not opened within 5 minutes is
 * removed by the engine. Rejects with an {@linkcode EngineError} as
 * `trigger()` does (`INVALID_ARGUMENT` for a `bufferSize` outside 1-1024).
 *
 * @example
 * ```ts ignore
 * const channel = await createChannel({ bufferSize: 16 });
 * const received = worker.trigger({ function_id: "files::store", payload: { file: channel.readerRef } });
 * await channel.writer.write(new TextEncoder().encode("file contents"));
 * await channel.writer.end();
 * console.log(await received);
 * ```
 */
export async function createChannel(options: CreateChannelOptions = {}): Promise<Channel> {
  const worker = workerFor(options.worker, "createChannel");
  const payload = options.bufferSize === undefined ? {} : { buffer_size: options.bufferSize };
  const refs = await worker.trigger<unknown, { reader: unknown; writer: unknown }>({
    function_id: "engine::channels::create",
    payload,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const readerRef = refs?.reader as ChannelRef<"read">;
  const writerRef = refs?.writer as ChannelRef<"write">;
  if (readerRef?.direction !== "read" || writerRef?.direction !== "write") {
    throw new Error(
      `engine::channels::create answered no {reader, writer} refs: ${JSON.stringify(refs)}`,
    );
  }
  const endpoint = endpointOf(worker);
  return {
    reader: openEnd(endpoint, readerRef) as ChannelReader,
    writer: openEnd(endpoint, writerRef) as ChannelWriter,
    readerRef,
    writerRef,
  };
}

/**
 * A live end for a ref that did not come in a handler's input (those are
 * replaced already), e.g. one in a call's result. It connects through the
 * given worker's engine (default as for {@linkcode createChannel}) on first use.
 *
 * @example
 * ```ts ignore
 * const { export: ref } = await worker.trigger({ function_id: "files::export", payload: {} });
 * const bytes = await openChannel(ref as ChannelRef<"read">).readAll();
 * ```
 */
export function openChannel(ref: ChannelRef<"read">, options?: { worker?: Worker }): ChannelReader;
export function openChannel(ref: ChannelRef<"write">, options?: { worker?: Worker }): ChannelWriter;
export function openChannel(
  ref: ChannelRef,
  options?: { worker?: Worker },
): ChannelReader | ChannelWriter;
export function openChannel(
  ref: ChannelRef,
  options: { worker?: Worker } = {},
): ChannelReader | ChannelWriter {
  if (!isChannelRef(ref)) {
    throw new TypeError(`openChannel() needs a {channel_id, access_key, direction} ref`);
  }
  return openEnd(endpointOf(workerFor(options.worker, "openChannel")), ref);
}

function workerFor(given: Worker | undefined, what: string): Worker {
  const worker = given ?? (currentScope()?.worker as Worker | undefined) ?? defaultWorker();
  if (!worker) throw new Error(`${what}() needs a worker: call registerWorker() first`);
  return worker;
}

function endpointOf(worker: Worker): ChannelEndpoint {
  const endpoint = channelEndpoint(worker);
  if (!endpoint) throw new TypeError(`No engine URL is known for worker "${worker.name}"`);
  return endpoint;
}
