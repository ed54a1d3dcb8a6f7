/**
 * The engine's side of data channels: `engine::channels::create`, the sweep
 * of unclaimed channels, and forgetting what a departed connection created
 * and nobody opened.
 *
 * @module
 */
import { z } from "zod";
import { CallError, type EngineApi, type Logger } from "../api.ts";
import { parseInput } from "../builtins.ts";
import type { Engine } from "../core.ts";
import { ChannelLimitError, limitMessage } from "./limits.ts";
import { type ChannelRegistry, DEFAULT_BUFFER_SIZE, MAX_BUFFER_SIZE } from "./registry.ts";

/** How often unclaimed channels are looked for (they expire 5 minutes after creation). */
export const SWEEP_INTERVAL_MS = 30_000;

export const CREATE_FUNCTION_ID = "engine::channels::create";

/** The error code of a create refused because its worker or the engine has too many channels. */
export const CHANNEL_LIMIT = "CHANNEL_LIMIT";

/**
 * Registers `engine::channels::create` on the engine's own worker and starts
 * the sweep; returns the stop.
 */
export function serveChannels(
  api: EngineApi,
  options: { engine: Engine; channels: ChannelRegistry; log: Logger },
): () => void {
  const { engine, channels, log } = options;
  api.registerFunction(CREATE_FUNCTION_ID, (payload, ctx) => {
    const { buffer_size: size } = parseInput(CREATE_FUNCTION_ID, CreateInput, payload);
    const channel = created(() =>
      channels.create({
        bufferSize: size,
        ...(ctx.callerWorkerId ? { owner: ctx.callerWorkerId } : {}),
      })
    );
    const ref = { channel_id: channel.id, access_key: channel.key };
    return { writer: { ...ref, direction: "write" }, reader: { ...ref, direction: "read" } };
  }, {
    description:
      "Creates a data channel: {buffer_size?} (default 64, at most 1024) → {writer, reader} refs",
  });
  const timer = setInterval(() => {
    const removed = channels.sweep();
    if (removed > 0) log.info(`Removed ${removed} data channel(s) not opened within 5 minutes`);
  }, SWEEP_INTERVAL_MS);
  Deno.unrefTimer(timer);
  const unsubscribe = engine.subscribe((event) => {
    if (event.type === "worker_disconnected") channels.removeOwnedBy(event.workerId);
  });
  return () => {
    clearInterval(timer);
    unsubscribe();
  };

  /** `make()`'s channel; a limit reached is a {@linkcode CHANNEL_LIMIT} error naming the worker. */
  function created<T>(make: () => T): T {
    try {
      return make();
    } catch (e) {
      if (!(e instanceof ChannelLimitError)) throw e;
      const name = e.owner === undefined ? undefined : engine.workers.get(e.owner)?.name;
      const who = e.owner === undefined
        ? undefined
        : `worker ${JSON.stringify(name ?? e.owner)}${
          name === undefined ? "" : ` (id ${JSON.stringify(e.owner)})`
        }`;
      throw new CallError({ code: CHANNEL_LIMIT, message: limitMessage(e, who) });
    }
  }
}

/** `{buffer_size?}`: the frames a channel holds before its writer is held back. */
const CreateInput = z.object({
  buffer_size: z.number().int().min(1).max(MAX_BUFFER_SIZE).default(DEFAULT_BUFFER_SIZE),
}).loose();
