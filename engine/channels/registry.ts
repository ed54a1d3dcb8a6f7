/**
 * The engine's data channels by id: creating them, claiming each end once
 * (with the channel's access key), removing them. Pure: the clock and the id
 * source are injected; the engine runs {@linkcode ChannelRegistry.sweep}
 * from a timer and {@linkcode ChannelRegistry.removeOwnedBy} when a
 * connection goes.
 *
 * Besides channels it holds reservations: ids whose channel is made only when
 * an end is claimed (engine-http reserves the two refs of every request this
 * way, so a ref no handler opens costs a map entry and no channel).
 *
 * @module
 */
import { sameToken } from "../token.ts";
import { Channel, type Direction } from "./channel.ts";
import { type ChannelLimitOptions, ChannelLimits } from "./limits.ts";

/** An end nobody claimed within this is removed with its channel (the reference's `CHANNEL_TTL`). */
export const CHANNEL_TTL_MS = 5 * 60_000;
export const DEFAULT_BUFFER_SIZE = 64;
export const MAX_BUFFER_SIZE = 1024;

/** A channel id whose channel is made when one of its ends is claimed. */
export interface Reservation {
  readonly key: string;
  /** Why `direction` of `channelId` cannot be claimed, or `undefined` when it can. */
  refusal(channelId: string, direction: Direction): string | undefined;
  /** The channel, with `direction` claimed for the caller; only after `refusal` said none. */
  open(channelId: string, direction: Direction): Channel;
}

export type ClaimOutcome =
  | { kind: "claimed"; channel: Channel }
  | { kind: "refused"; status: 404 | 409; code: string; message: string };

export interface RegistryOptions {
  /** Milliseconds; default `Date.now`. */
  now?: () => number;
  /** Ids and access keys; default `crypto.randomUUID`. */
  newId?: () => string;
  /** How many channels {@linkcode ChannelRegistry.create} may have alive, per creator and in all. */
  limits?: ChannelLimitOptions;
  /** Bytes queued in a channel before its writer is held back (see `Channel`). */
  maxQueuedBytes?: number;
}

export interface CreateOptions {
  /** Frames queued before the writer is held back; default 64, at most 1024. */
  bufferSize?: number;
  /** The connection creating it. */
  owner?: string;
}

export class ChannelRegistry {
  readonly #channels = new Map<string, Channel>();
  /** Reservation sources by id prefix (see {@linkcode reserveSource}). */
  readonly #sources = new Map<string, (id: string) => Reservation | undefined>();
  readonly #now: () => number;
  readonly #newId: () => string;
  readonly #maxQueuedBytes: number | undefined;
  /** Alive channels made by {@linkcode create}, counted against the limits. */
  readonly #counted = new Set<Channel>();
  readonly limits: ChannelLimits;

  constructor(options: RegistryOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#newId = options.newId ?? (() => crypto.randomUUID());
    this.limits = new ChannelLimits(options.limits);
    this.#maxQueuedBytes = options.maxQueuedBytes;
  }

  /** Channels held (reservations not counted). */
  get size(): number {
    return this.#channels.size;
  }

  get(id: string): Channel | undefined {
    return this.#channels.get(id);
  }

  /**
   * A new channel with both ends free, counted against the limits until it
   * is gone; throws a `RangeError` for a bad `bufferSize`, a
   * `ChannelLimitError` when its owner or the engine has too many alive.
   */
  create(options: CreateOptions = {}): Channel {
    const bufferSize = options.bufferSize ?? DEFAULT_BUFFER_SIZE;
    const problem = bufferSizeProblem(bufferSize);
    if (problem !== undefined) throw new RangeError(problem);
    this.limits.take(options.owner);
    const channel = this.add({ bufferSize, owner: options.owner, key: this.#newId() });
    this.#counted.add(channel);
    return channel;
  }

  /** Registers a channel made here with `init` (a reservation's `open` uses it too). */
  add(init: { bufferSize: number; key: string; owner?: string | undefined; id?: string }): Channel {
    const channel = new Channel({
      id: init.id ?? this.#newId(),
      key: init.key,
      bufferSize: init.bufferSize,
      owner: init.owner,
      createdAt: this.#now(),
      ...(this.#maxQueuedBytes !== undefined ? { maxQueuedBytes: this.#maxQueuedBytes } : {}),
    });
    this.#channels.set(channel.id, channel);
    channel.onFinished = () => this.#forget(channel);
    return channel;
  }

  #forget(channel: Channel): void {
    if (this.#channels.get(channel.id) === channel) this.#channels.delete(channel.id);
    if (this.#counted.delete(channel)) this.limits.give(channel.owner);
  }

  /**
   * Serves the reservations of every id starting with `prefix`: `lookup`
   * finds one by id (or not) when an end is claimed, so a source that hands
   * out many refs (engine-http, two per request) keeps them in a table of its
   * own and costs the registry nothing per ref. Returns the undoing.
   */
  reserveSource(prefix: string, lookup: (id: string) => Reservation | undefined): () => void {
    this.#sources.set(prefix, lookup);
    return () => {
      if (this.#sources.get(prefix) === lookup) this.#sources.delete(prefix);
    };
  }

  #reservation(id: string): Reservation | undefined {
    for (const [prefix, lookup] of this.#sources) if (id.startsWith(prefix)) return lookup(id);
    return undefined;
  }

  /** Why `direction` of channel `id` cannot be claimed with `key`; `undefined` when it can. */
  check(id: string, key: string, direction: Direction): ClaimOutcome | undefined {
    const shown = JSON.stringify(id.slice(0, 100));
    const entry = this.#channels.get(id) ?? this.#reservation(id);
    if (entry === undefined) {
      return refused(
        404,
        "CHANNEL_NOT_FOUND",
        `Channel ${shown} not found: it never existed, ended, or expired`,
      );
    }
    if (!sameToken(key, entry.key)) {
      return refused(404, "CHANNEL_NOT_FOUND", `Channel ${shown} not found: wrong access key`);
    }
    const problem = entry instanceof Channel
      ? (entry.claimed(direction) ? `its ${direction} end is claimed already` : undefined)
      : entry.refusal(id, direction);
    if (problem !== undefined) {
      return refused(
        409,
        "CHANNEL_CLAIMED",
        `Channel ${shown} cannot be opened to ${direction}: ${problem}`,
      );
    }
    return undefined;
  }

  /** Claims `direction` of channel `id` with `key`, or says why not. */
  claim(id: string, key: string, direction: Direction): ClaimOutcome {
    const refusal = this.check(id, key, direction);
    if (refusal !== undefined) return refusal;
    const channel = this.#channels.get(id);
    if (channel !== undefined) {
      channel.claim(direction);
      return { kind: "claimed", channel };
    }
    return { kind: "claimed", channel: this.#reservation(id)!.open(id, direction) };
  }

  /** Removes channel `id`: an end still open is ended with `reason`. */
  remove(id: string, reason: string): void {
    const channel = this.#channels.get(id);
    if (channel === undefined) return;
    this.#forget(channel);
    channel.destroy(reason);
  }

  /** Removes channels with an end unclaimed {@linkcode CHANNEL_TTL_MS} after creation; returns how many. */
  sweep(now: number = this.#now()): number {
    let removed = 0;
    for (const channel of [...this.#channels.values()]) {
      if (now - channel.createdAt < CHANNEL_TTL_MS) continue;
      if (channel.claimed("read") && channel.claimed("write")) continue;
      this.remove(channel.id, "the channel expired: an end was not opened within 5 minutes");
      removed++;
    }
    return removed;
  }

  /** Removes the channels `owner` created of which no end was claimed; returns how many. */
  removeOwnedBy(owner: string): number {
    let removed = 0;
    for (const channel of [...this.#channels.values()]) {
      if (channel.owner !== owner || channel.claimed("read") || channel.claimed("write")) continue;
      this.remove(channel.id, "its creator disconnected");
      removed++;
    }
    return removed;
  }
}

/** Why `size` is not a valid buffer size, or `undefined`. */
export function bufferSizeProblem(size: number): string | undefined {
  if (!Number.isInteger(size) || size < 1 || size > MAX_BUFFER_SIZE) {
    return `buffer_size must be an integer from 1 to ${MAX_BUFFER_SIZE}, got ${
      JSON.stringify(size)
    }`;
  }
  return undefined;
}

function refused(status: 404 | 409, code: string, message: string): ClaimOutcome {
  return { kind: "refused", status, code, message };
}
