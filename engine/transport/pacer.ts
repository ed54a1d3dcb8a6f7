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
 * Each connection has its own {@linkcode FrameLane}. Order is kept within a
 * lane: a frame that arrives while others of its lane wait queues behind them,
 * and so does the end of a connection. Lanes take turns, a frame each: one
 * connection that sends a hundred thousand frames at once does not hold up the
 * frames of the others until all of its own are through.
 *
 * A lane holds at most {@linkcode LANE_FRAMES} frames or {@linkcode LANE_UNITS}
 * of text waiting; past that, frames go on at once as new ones come in, the
 * lanes still taking turns (each frame over the bound moves the ring on by
 * one: the other lanes' frames go too, not only the flood's). The socket is
 * then read only as fast as its frames are handled (as it was before there
 * was a pacer), so a client that floods the engine fills no memory beyond
 * that, and holds up the others no longer than its share.
 *
 * @module
 */
import { setImmediate } from "node:timers";

/** Frames handed on before the event loop gets a turn. */
export const FRAMES_PER_TURN = 8;

/** Frames a lane holds waiting before it hands them on as they come. */
export const LANE_FRAMES = 1024;
/** Size (UTF-16 units of text, bytes of binary) a lane holds waiting before the same. */
export const LANE_UNITS = 1024 * 1024;

/** Handed-on entries dropped from the front of a queue once this many have gone. */
const COMPACT_AT = 4096;

/** Where one frame goes: a session's handler, given the frame as it came. */
export type FrameSink<T> = (item: T) => void;

/** The size of a frame as a lane counts it against {@linkcode LANE_UNITS}. */
export function frameUnits(item: unknown): number {
  if (typeof item === "string") return item.length;
  if (item instanceof Uint8Array) return item.length;
  if (item instanceof ArrayBuffer) return item.byteLength;
  return 0;
}

/** One connection's frames on their way to its `sink`, in the order they came. */
export class FrameLane<T> {
  readonly #pacer: FramePacer;
  readonly #sink: FrameSink<T>;
  #items: (T | undefined)[] = [];
  #head = 0;
  /** {@linkcode frameUnits} of the frames waiting. */
  #units = 0;
  /** Whether the pacer's ring holds this lane. */
  queued = false;

  constructor(pacer: FramePacer, sink: FrameSink<T>) {
    this.#pacer = pacer;
    this.#sink = sink;
  }

  /** Frames of this lane waiting for a turn. */
  get waiting(): number {
    return this.#items.length - this.#head;
  }

  /** Hands `item` to the sink now, or after the frames of this lane already waiting. */
  submit(item: T): void {
    if (this.#head === this.#items.length && this.#pacer.take()) return this.#sink(item);
    this.#items.push(item);
    this.#units += frameUnits(item);
    if (!this.queued) this.#pacer.wait(this);
    // Over its bounds the lane keeps up with its socket: frames go on now, in the lanes' turns
    // (this lane is in the ring, so each pass of it hands on one of its own).
    while (this.waiting > LANE_FRAMES || (this.#units > LANE_UNITS && this.waiting > 0)) {
      this.#pacer.step();
    }
  }

  /** Takes the oldest waiting frame off the lane (there is one). */
  shift(): T {
    const at = this.#head++;
    const item = this.#items[at] as T;
    this.#items[at] = undefined;
    this.#units -= frameUnits(item);
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= COMPACT_AT) {
      // A lane that never empties under steady load would otherwise only grow.
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Hands `item`, taken off the lane, to the sink. */
  deliver(item: T): void {
    this.#sink(item);
  }
}

export class FramePacer {
  #perTurn: number;
  #budget: number;
  /** Lanes with frames waiting, the next to go first; each appears once. */
  // deno-lint-ignore no-explicit-any
  #lanes: FrameLane<any>[] = [];
  #head = 0;
  #scheduled = false;

  constructor(perTurn = FRAMES_PER_TURN) {
    this.#perTurn = perTurn;
    this.#budget = perTurn;
  }

  /** A lane of frames for `sink` (one per connection). */
  lane<T>(sink: FrameSink<T>): FrameLane<T> {
    return new FrameLane(this, sink);
  }

  /** Frames waiting for a turn, in all lanes. */
  get waiting(): number {
    let n = 0;
    for (let i = this.#head; i < this.#lanes.length; i++) n += this.#lanes[i]!.waiting;
    return n;
  }

  /** Whether a frame may go on at once (nothing waits and this turn has budget left); takes it. */
  take(): boolean {
    if (this.#head !== this.#lanes.length || this.#budget === 0) return false;
    this.#budget--;
    return true;
  }

  /** `lane` has frames waiting and is not in the ring yet. */
  // deno-lint-ignore no-explicit-any
  wait(lane: FrameLane<any>): void {
    lane.queued = true;
    this.#lanes.push(lane);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#turn);
    }
  }

  /** Hands on one frame, of the lane whose turn it is; false when no frame waits. */
  step(): boolean {
    while (this.#head < this.#lanes.length) {
      const lane = this.#lanes[this.#head]!;
      if (lane.waiting === 0) {
        // Emptied past its bounds, as its frames came.
        lane.queued = false;
        this.#lanes[this.#head++] = undefined!;
        continue;
      }
      const item = lane.shift();
      // The lane leaves the ring, or goes to its back, before the frame is handed on (a sink
      // may throw); a lane alone in the ring keeps its place.
      if (lane.waiting === 0) {
        lane.queued = false;
        this.#lanes[this.#head++] = undefined!;
      } else if (this.#lanes.length - this.#head > 1) {
        this.#lanes[this.#head++] = undefined!;
        this.#lanes.push(lane);
      }
      // Steps between turns (a flood past its bounds) move the ring on too: keep it compact.
      if (this.#head >= COMPACT_AT) {
        this.#lanes = this.#lanes.slice(this.#head);
        this.#head = 0;
      }
      lane.deliver(item);
      return true;
    }
    return false;
  }

  #turn = (): void => {
    this.#scheduled = false;
    this.#budget = this.#perTurn;
    try {
      while (this.#budget > 0 && this.#head < this.#lanes.length) {
        this.#budget--;
        if (!this.step()) break;
      }
    } finally {
      // step() keeps the ring compact; an empty one starts afresh.
      if (this.#head < this.#lanes.length) {
        this.#scheduled = true;
        setImmediate(this.#turn);
      } else {
        this.#lanes = [];
        this.#head = 0;
      }
    }
  };
}

/** The pacer of this process's engine sessions. */
export const framePacer: FramePacer = new FramePacer();
