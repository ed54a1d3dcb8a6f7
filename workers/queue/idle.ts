/**
 * The queues that are empty and idle, each with the time it became so: what
 * the dispatcher forgets once they stayed that way for a while (their name in
 * the store, their counters), so a workload using a new queue name per entity
 * does not grow the engine for ever.
 *
 * Entries are kept in the order they were marked (a queue marked again moves
 * to the end), which is the order of their times: taking the expired ones
 * looks at those alone.
 *
 * @module
 */

/** How long a queue stays empty and idle before it is forgotten, by default: 5 minutes. */
export const FORGET_AFTER_MS = 5 * 60 * 1000;

/** Empty, idle queues by name, oldest first. */
export class IdleQueues {
  readonly #since = new Map<string, number>();

  /** Notes that `queue` is empty and idle from `now` on (again, when it was already). */
  mark(queue: string, now: number): void {
    this.#since.delete(queue);
    this.#since.set(queue, now);
  }

  /** Notes that `queue` is in use: it is not forgotten. */
  clear(queue: string): void {
    this.#since.delete(queue);
  }

  has(queue: string): boolean {
    return this.#since.has(queue);
  }

  /** How many queues are noted. */
  get size(): number {
    return this.#since.size;
  }

  /** Takes out and returns the queues idle since `now - afterMs` or earlier, oldest first. */
  expired(now: number, afterMs: number): string[] {
    const taken: string[] = [];
    for (const [queue, since] of this.#since) {
      if (now - since < afterMs) break;
      taken.push(queue);
    }
    for (const queue of taken) this.#since.delete(queue);
    return taken;
  }
}
