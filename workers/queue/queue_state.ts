/**
 * What the delivery loop keeps per queue it delivers (see `dispatcher.ts`).
 *
 * @module
 */

/** The delivery loop's state of one queue. */
export interface QueueState {
  inFlight: number;
  pumping: boolean;
  /** A pump was asked for while one was running. */
  again: boolean;
  /** A pump is scheduled by `notify`. */
  scheduled: boolean;
  /**
   * After a failed claim, or while messages wait for a missing function, the
   * earliest the timer claims again: a due message would otherwise re-arm it
   * at once, claiming (and failing, or skipping) in a loop.
   */
  retryAt: number;
  /**
   * Functions found not registered: claims leave their messages in the store
   * until they are (claiming and putting back a waiting backlog was a busy loop).
   */
  missing: Set<string>;
}

/** The state of a queue the loop starts delivering. */
export function newQueueState(): QueueState {
  return {
    inFlight: 0,
    pumping: false,
    again: false,
    scheduled: false,
    retryAt: 0,
    missing: new Set(),
  };
}

/** Nothing under way for the queue: no claim, no scheduled pump, no delivery in flight. */
export function isIdle(state: QueueState): boolean {
  return !state.pumping && !state.scheduled && !state.again && state.inFlight === 0;
}
