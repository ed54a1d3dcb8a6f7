/**
 * The channel ends of a worker whose sockets are open. An open socket keeps
 * the process alive, and an HTTP handler may return before its stream ends,
 * so `shutdown()` waits for them within its drain time, then breaks the rest
 * off: their peers see an error, not a clean end (which would make a cut-off
 * stream look complete), and the process can exit.
 *
 * @module
 */

import type { ChannelOptions } from "./ref.ts";

/** How {@linkcode OpenEnds} breaks an end off; resolves once its socket closed. */
export interface BreakableEnd {
  break(why: string): Promise<void>;
}

/**
 * The open ends of one worker.
 *
 * @example
 * ```ts
 * const ends = new OpenEnds();
 * const end = { break: (why: string) => Promise.resolve(console.log("broken:", why)) };
 * ends.add(end);
 * await ends.close(10, "the worker shut down"); // broken: the worker shut down
 * console.log(ends.add(end), ends.refusal); // false the worker shut down
 * ```
 */
export class OpenEnds {
  #ends = new Set<BreakableEnd>();
  #emptied: (() => void)[] = [];
  #refusal: string | undefined;

  /** Why no end may open any more (set by {@linkcode OpenEnds.close}), else `undefined`. */
  get refusal(): string | undefined {
    return this.#refusal;
  }

  /** Records an end whose socket is opening; `false` (not recorded) once closed. */
  add(end: BreakableEnd): boolean {
    if (this.#refusal !== undefined) return false;
    this.#ends.add(end);
    return true;
  }

  /** Forgets an end whose socket closed. */
  delete(end: BreakableEnd): void {
    if (!this.#ends.delete(end) || this.#ends.size > 0) return;
    for (const wake of this.#emptied.splice(0)) wake();
  }

  /**
   * Waits up to `timeoutMs` for every end to close, then breaks the ones
   * still open with `why`, refuses new ones, and resolves once their sockets
   * closed.
   */
  async close(timeoutMs: number, why: string): Promise<void> {
    if (this.#ends.size > 0 && timeoutMs > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#emptied.push(resolve);
        timer = setTimeout(resolve, timeoutMs);
      });
      clearTimeout(timer);
    }
    this.#refusal = why;
    await Promise.all([...this.#ends].map((end) => end.break(why)));
  }
}

const byOptions = new WeakMap<ChannelOptions, OpenEnds>();

/** Makes the ends connecting with `options` (a worker's) report to `ends`. */
export function trackEnds(options: ChannelOptions, ends: OpenEnds): void {
  byOptions.set(options, ends);
}

/** Where an end connecting with `options` reports, if they are a worker's. */
export function openEndsOf(options: ChannelOptions): OpenEnds | undefined {
  return byOptions.get(options);
}
