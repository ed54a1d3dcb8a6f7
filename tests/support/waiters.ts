/**
 * Test support: waits for the next item (a frame, a message, a line) that a
 * predicate accepts, each with a time-out whose error says what was awaited
 * and shows the last items seen, so a failure in CI can be read from its
 * message alone.
 *
 * @module
 */

/** What a wait is for and how long it may take. */
export interface WaitOptions {
  /**
   * What is awaited, for the time-out's message, e.g. `the result of
   * "math::add"`. By default: an item matching the predicate's source text.
   */
  description?: string;
  /** Milliseconds before the wait fails; each helper has its own default. */
  timeoutMs?: number;
}

/** How a {@link Waiters} names and shows its items in a time-out message. */
export interface WaitersOptions<T> {
  /** The name of one item: "frame", "message", "line". */
  item: string;
  /** The items seen so far (or the most recent of them), oldest first. */
  seen(): readonly T[];
  /** One item as text; by default JSON for objects. */
  format?: (item: T) => string;
  /** How many of the last items seen a time-out message shows. */
  show?: number;
  /**
   * More for a time-out message to show after the items, e.g. the last
   * lines a process wrote to its stderr; nothing when it returns "".
   */
  also?: () => string;
  /** The time-out of a wait that names none. */
  timeoutMs: number;
}

interface Waiter<T> {
  match(item: T): boolean;
  /** What the wait is for, as its error messages name it. */
  what: string;
  resolve(item: T): void;
  reject(error: Error): void;
}

/** Longest text shown for a predicate or for one item in a time-out message. */
const PREDICATE_CHARS = 120;
const ITEM_CHARS = 300;

/** Pending waits for items that arrive one at a time; an item goes to the waits that accept it. */
export class Waiters<T> {
  readonly #pending: Waiter<T>[] = [];
  readonly #options: WaitersOptions<T>;

  constructor(options: WaitersOptions<T>) {
    this.#options = options;
  }

  /** The next item `match` accepts, handed over by {@link deliver}. */
  wait(match: (item: T) => boolean, options: WaitOptions = {}): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.#options.timeoutMs;
    const what = options.description ??
      `a ${this.#options.item} matching ${describePredicate(match)}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.splice(this.#pending.indexOf(waiter), 1);
        const also = this.#options.also?.() ?? "";
        reject(
          new Error(
            `Timed out after ${timeoutMs}ms waiting for ${what}: ${this.#recent()}` +
              (also === "" ? "" : `\n${also}`),
          ),
        );
      }, timeoutMs);
      const waiter: Waiter<T> = {
        match,
        what,
        resolve: (item) => (clearTimeout(timer), resolve(item)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      };
      this.#pending.push(waiter);
    });
  }

  /**
   * Hands `item` to the first pending wait that accepts it, or with `all` to
   * every one; returns whether any did.
   */
  deliver(item: T, options: { all?: boolean } = {}): boolean {
    let taken = false;
    for (const waiter of [...this.#pending]) {
      if (!waiter.match(item)) continue;
      this.#pending.splice(this.#pending.indexOf(waiter), 1);
      waiter.resolve(item);
      taken = true;
      if (!options.all) break;
    }
    return taken;
  }

  /**
   * Rejects every pending wait at once, clearing its time-out (the source of
   * items has ended): with `error`, or with the error `error` makes from what
   * the wait is for (its description).
   */
  rejectAll(error: Error | ((what: string) => Error)): void {
    for (const waiter of this.#pending.splice(0)) {
      waiter.reject(typeof error === "function" ? error(waiter.what) : error);
    }
  }

  #recent(): string {
    const { item, seen, format = formatItem, show = 5 } = this.#options;
    const all = seen();
    if (all.length === 0) return `no ${item} has arrived`;
    const last = all.slice(-show).map((i) => `  ${shorten(format(i), ITEM_CHARS)}`);
    const which = all.length > show
      ? `the last ${show} of ${all.length} ${item}s seen`
      : `the ${item}${all.length === 1 ? "" : "s"} seen`;
    return `${which}:\n${last.join("\n")}`;
  }
}

/** A predicate as a time-out message shows it: its source text on one line, shortened. */
export function describePredicate(match: (...args: never[]) => unknown): string {
  return shorten(match.toString().replace(/\s+/g, " ").trim(), PREDICATE_CHARS);
}

function formatItem(item: unknown): string {
  return typeof item === "string" ? item : JSON.stringify(item);
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
