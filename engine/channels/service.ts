/**
 * The engine's side of data channels: `engine::channels::create`, the sweep
 * of unclaimed channels, and forgetting what a departed connection created
 * and nobody opened.
 *
 * @module
 */
import { CallError, type EngineApi, type Logger } from "../api.ts";
import type { Engine } from "../core.ts";
import { ErrorCode } from "../protocol/errors.ts";
import { bufferSizeProblem, type ChannelRegistry, DEFAULT_BUFFER_SIZE } from "./registry.ts";

/** How often unclaimed channels are looked for (they expire 5 minutes after creation). */
export const SWEEP_INTERVAL_MS = 30_000;

export const CREATE_FUNCTION_ID = "engine::channels::create";

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
    const raw = (payload ?? {}) as { buffer_size?: unknown };
    if (typeof raw !== "object" || Array.isArray(raw)) {
      throw invalid('payload: expected an object such as {"buffer_size": 64}');
    }
    const size = raw.buffer_size ?? DEFAULT_BUFFER_SIZE;
    const problem = typeof size === "number"
      ? bufferSizeProblem(size)
      : `buffer_size must be an integer from 1 to 1024, got ${JSON.stringify(size)}`;
    if (problem !== undefined) throw invalid(`field "buffer_size": ${problem}`);
    const channel = channels.create({
      bufferSize: size as number,
      ...(ctx.callerWorkerId ? { owner: ctx.callerWorkerId } : {}),
    });
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
}

function invalid(detail: string): CallError {
  return new CallError({
    code: ErrorCode.InvalidArgument,
    message: `Invalid input for ${CREATE_FUNCTION_ID}: ${detail}`,
  });
}
