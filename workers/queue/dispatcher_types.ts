/**
 * What the delivery loop (`Dispatcher` in `dispatcher.ts`) is given and
 * tells: the engine it calls through, its options, the events it reports.
 *
 * @module
 */
import type { ErrorBody, Logger } from "../../engine/api.ts";
import type { QueueStore } from "./adapters/store.ts";
import type { Clock } from "./clock.ts";
import type { QueueSettings } from "./config.ts";
import type { Verdict } from "./retry.ts";

/** What the loop needs from the engine. */
export interface DeliveryTarget {
  call(
    functionId: string,
    data: unknown,
    options: {
      timeoutMs: number;
      traceparent?: string;
      baggage?: string;
      signal: AbortSignal;
      /** `"async"`: the delivery's span is marked as a call the enqueuer did not wait for. */
      trace?: "async";
    },
  ): Promise<unknown>;
  hasFunction(functionId: string): boolean;
}

/** Something that happened to a message, for counters and tests. */
export interface DeliveryEvent {
  queue: string;
  id: string;
  kind: Verdict["kind"];
  /** The failed deliveries of the message after this one. */
  attempts: number;
  error?: ErrorBody;
}

export interface DispatcherOptions {
  store: QueueStore;
  settingsOf(queue: string): QueueSettings;
  target: DeliveryTarget;
  log: Logger;
  clock?: Clock;
  /** The longest the timer sleeps. Default 1000 ms. */
  pollMs?: number;
  /** How long `stop()` lets deliveries finish before stopping them. Default 5000 ms. */
  shutdownGraceMs?: number;
  onEvent?(event: DeliveryEvent): void;
  /** How long a queue stays empty and idle before the store forgets it. Default `FORGET_AFTER_MS` (idle.ts). */
  forgetAfterMs?: number;
  /** Called once the store forgot an empty, idle queue (not used again meanwhile). */
  onForget?(queue: string): void;
}
