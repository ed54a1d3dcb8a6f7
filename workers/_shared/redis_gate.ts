/**
 * Whether commands to a Redis connection that is down should wait for it or
 * fail at once. ioredis holds a command while it reconnects, so during an
 * outage every call waited up to the command time-out (10 s) to fail, and
 * under load thousands of them piled up although Redis was known to be down.
 *
 * The line between a blip and an outage: when the connection is lost,
 * commands wait for ioredis's first reconnect, at most {@link BLIP_MS} after
 * the loss; once a reconnect attempt failed, that wait ran out, or a command
 * failed because Redis is unreachable, the outage is established and new
 * commands fail at once, until the connection is ready again. The gate keeps
 * no state of the connection itself: it is told what happens (lost, failed,
 * ready) and answers whether an outage is established and why.
 *
 * @module
 */

/** How long after the connection is lost commands still wait for it to come back. */
export const BLIP_MS = 1500;

/** One-shot timers, injected so tests need not sleep. */
export interface GateTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemTimers: GateTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Options of {@link RedisGate}. */
export interface RedisGateOptions {
  /**
   * Called at each failure while the connection is down (a reconnect attempt
   * failed, the wait after the loss ran out, a command failed as
   * unreachable), with its cause; `established` is true for the one that
   * established the outage.
   */
  onFailure(cause: string, established: boolean): void;
  /** Default {@link BLIP_MS}. */
  blipMs?: number;
  timers?: GateTimers;
}

/** The outage state of one Redis connection. */
export class RedisGate {
  readonly #o: RedisGateOptions;
  readonly #timers: GateTimers;
  #cause: string | undefined;
  #timer: unknown;

  constructor(options: RedisGateOptions) {
    this.#o = options;
    this.#timers = options.timers ?? systemTimers;
  }

  /** Why Redis is unreachable when an outage is established; `undefined` otherwise. */
  get cause(): string | undefined {
    return this.#cause;
  }

  /**
   * The connection was lost and is being made again: unless it is ready
   * within the blip's wait, the outage is established with `cause()`.
   */
  lost(cause: () => string): void {
    if (this.#cause !== undefined || this.#timer !== undefined) return;
    this.#timer = this.#timers.setTimeout(() => {
      this.#timer = undefined;
      this.failed(cause());
    }, this.#o.blipMs ?? BLIP_MS);
  }

  /**
   * A reconnect attempt failed, or a command failed as unreachable, because
   * of `cause`: the outage is established if it was not.
   */
  failed(cause: string): void {
    this.#stopTimer();
    const established = this.#cause === undefined;
    this.#cause = cause;
    this.#o.onFailure(cause, established);
  }

  /** The connection is ready: commands go through again. */
  ready(): void {
    this.#stopTimer();
    this.#cause = undefined;
  }

  /** The connection was closed for good: no timer is left behind. */
  close(): void {
    this.#stopTimer();
  }

  #stopTimer(): void {
    if (this.#timer === undefined) return;
    this.#timers.clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
