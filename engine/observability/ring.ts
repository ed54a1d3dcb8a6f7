/**
 * A bounded, append-only buffer that forgets its oldest entries, with live
 * subscribers. Backs the log and trace stores.
 *
 * @module
 */

export class Ring<T> {
  #items: (T | undefined)[];
  #next = 0;
  #count = 0;
  #listeners = new Set<(item: T) => void>();

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`Ring capacity must be a positive integer: got ${capacity}`);
    }
    this.#items = new Array(capacity);
  }

  push(item: T): void {
    this.#items[this.#next] = item;
    this.#next = (this.#next + 1) % this.capacity;
    if (this.#count < this.capacity) this.#count++;
    for (const listener of this.#listeners) {
      try {
        listener(item);
      } catch { /* a failing subscriber must not break the writer */ }
    }
  }

  /** Oldest first. */
  toArray(): T[] {
    const out: T[] = [];
    const start = (this.#next - this.#count + this.capacity) % this.capacity;
    for (let i = 0; i < this.#count; i++) out.push(this.#items[(start + i) % this.capacity]!);
    return out;
  }

  /** The newest `n` items (all when fewer), newest first. */
  newest(n: number): T[] {
    const out: T[] = [];
    const take = Math.min(n, this.#count);
    for (let i = 1; i <= take; i++) {
      out.push(this.#items[(this.#next - i + this.capacity) % this.capacity]!);
    }
    return out;
  }

  get size(): number {
    return this.#count;
  }

  /** Calls `listener` for every item pushed from now on; returns the unsubscribe. */
  subscribe(listener: (item: T) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
