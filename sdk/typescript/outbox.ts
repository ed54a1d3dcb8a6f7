/**
 * `trigger()` calls kept while the worker is disconnected, sent after the registration
 * replay of the next connection.
 *
 * @module
 */

/** A queued frame; `invocationId` marks a call that may time out meanwhile. */
export interface Queued {
  text: string;
  invocationId?: string | undefined;
}

/**
 * A bounded FIFO of frames; past `capacity` the oldest are dropped, with one
 * warning per disconnection.
 *
 * @example
 * ```ts
 * const outbox = new Outbox(2);
 * outbox.push({ text: "a" });
 * outbox.push({ text: "b" });
 * outbox.push({ text: "c" }); // warns once, drops "a"
 * console.log(outbox.take().map((q) => q.text)); // ["b", "c"]
 * ```
 */
export class Outbox {
  #items: Queued[] = [];
  #capacity: number;
  #warned = false;

  constructor(capacity = 10_000) {
    this.#capacity = capacity;
  }

  push(item: Queued): void {
    if (this.#items.length >= this.#capacity) {
      // Drop a tenth at once so a long outage does not shift on every push.
      this.#items.splice(0, Math.max(1, Math.floor(this.#capacity / 10)));
      if (!this.#warned) {
        console.warn(
          `[engine-sdk] More than ${this.#capacity} frames queued while disconnected; dropping the oldest`,
        );
      }
      this.#warned = true;
    }
    this.#items.push(item);
  }

  /** Removes and returns everything queued, oldest first. */
  take(): Queued[] {
    const items = this.#items;
    this.#items = [];
    this.#warned = false;
    return items;
  }
}
