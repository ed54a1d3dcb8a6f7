/**
 * Hands the frames workers send on to their sessions a few at a time: after
 * {@linkcode FRAMES_PER_TURN} frames the rest wait for the next turn of the
 * event loop (`setImmediate`), so the writes they caused leave in between.
 *
 * Under load one read brings many frames (64 calls at once, say). Handled in
 * one go, the whole burst would move from process to process as one wave, each
 * waiting for the one before; handed on in parts, the worker starts on the
 * first calls while the engine reads the rest, and the processes overlap on
 * the machine's cores. `Deno.upgradeWebSocket` writes a message only once the
 * event loop turns (a `send()` queues a task), which a microtask does not let
 * happen: hence a macrotask, and the cheapest one.
 *
 * Order is kept: a frame that arrives while others wait queues behind them,
 * and so does the end of a connection.
 *
 * @module
 */
import { setImmediate } from "node:timers";

/** Frames handed on before the event loop gets a turn. */
export const FRAMES_PER_TURN = 8;

/** Handed-on entries dropped from the front of the queue once this many have gone. */
const COMPACT_AT = 4096;

/** Where one frame goes: a session's handler, given the frame as it came. */
export type FrameSink<T> = (item: T) => void;

export class FramePacer {
  #perTurn: number;
  #budget: number;
  // deno-lint-ignore no-explicit-any
  #sinks: FrameSink<any>[] = [];
  #items: unknown[] = [];
  #head = 0;
  #scheduled = false;

  constructor(perTurn = FRAMES_PER_TURN) {
    this.#perTurn = perTurn;
    this.#budget = perTurn;
  }

  /** Frames waiting for a turn. */
  get waiting(): number {
    return this.#items.length - this.#head;
  }

  /** Hands `item` to `sink` now, or after the frames already waiting. */
  submit<T>(sink: FrameSink<T>, item: T): void {
    if (this.#head === this.#items.length && this.#budget > 0) {
      this.#budget--;
      return sink(item);
    }
    this.#sinks.push(sink);
    this.#items.push(item);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#turn);
    }
  }

  #turn = (): void => {
    this.#scheduled = false;
    this.#budget = this.#perTurn;
    try {
      while (this.#head < this.#items.length && this.#budget > 0) {
        this.#budget--;
        const at = this.#head++;
        const sink = this.#sinks[at]!;
        const item = this.#items[at];
        this.#sinks[at] = noop;
        this.#items[at] = undefined;
        sink(item);
      }
    } finally {
      if (this.#head < this.#items.length) {
        this.#scheduled = true;
        setImmediate(this.#turn);
        if (this.#head >= COMPACT_AT) {
          // A queue that never empties under steady load would otherwise only grow.
          this.#sinks = this.#sinks.slice(this.#head);
          this.#items = this.#items.slice(this.#head);
          this.#head = 0;
        }
      } else {
        this.#sinks = [];
        this.#items = [];
        this.#head = 0;
      }
    }
  };
}

function noop(): void {}

/** The pacer of this process's engine sessions. */
export const framePacer: FramePacer = new FramePacer();
