/**
 * How many channels made by `engine::channels::create` (and a built-in
 * worker's `EngineApi.channels.create`) may be alive at once: per creating
 * connection and in all. A channel counts from its creation until the
 * registry forgets it (both ends done, removed, expired, or its creator left
 * with no end opened). Channels made from a reservation (engine-http's
 * `request_body` and `response` refs) are not counted: they belong to the
 * request that made them and end with it. Pure, O(1) per step.
 *
 * @module
 */

/** Channels one connection may have alive at once, by default. */
export const DEFAULT_MAX_PER_WORKER = 1024;
/** Channels all connections together may have alive at once, by default. */
export const DEFAULT_MAX_TOTAL = 16_384;

export interface ChannelLimitOptions {
  /** Per creating connection; default {@linkcode DEFAULT_MAX_PER_WORKER}. */
  maxPerWorker?: number;
  /** In all; default {@linkcode DEFAULT_MAX_TOTAL}. */
  maxTotal?: number;
}

/** Why a channel was not created: the creator's or the engine's limit is reached. */
export class ChannelLimitError extends Error {
  /** `worker`: the creator's own limit; `engine`: the limit of all channels. */
  readonly scope: "worker" | "engine";
  /** The creating connection's id, when there is one. */
  readonly owner: string | undefined;
  readonly count: number;
  readonly limit: number;
  constructor(init: {
    scope: "worker" | "engine";
    owner?: string | undefined;
    count: number;
    limit: number;
  }) {
    super(
      limitMessage(
        init,
        init.owner === undefined ? undefined : `worker ${JSON.stringify(init.owner)}`,
      ),
    );
    this.name = "ChannelLimitError";
    this.scope = init.scope;
    this.owner = init.owner;
    this.count = init.count;
    this.limit = init.limit;
  }
}

/**
 * The refusal's text, naming the creator as `who` (`worker "billing"`), the
 * count and the limit.
 */
export function limitMessage(
  init: { scope: "worker" | "engine"; count: number; limit: number },
  who: string | undefined,
): string {
  const creator = who === undefined ? "" : ` for ${who}`;
  return init.scope === "worker"
    ? `Cannot create a data channel${creator}: it has ${init.count} channels alive, its limit ` +
      `(channels.max_per_worker is ${init.limit}): a channel counts until both its ends are done`
    : `Cannot create a data channel${creator}: the engine holds ${init.count} created channels, ` +
      `its limit (channels.max_total is ${init.limit})`;
}

/** Counts of alive created channels, by creator and in all. */
export class ChannelLimits {
  readonly maxPerWorker: number;
  readonly maxTotal: number;
  readonly #byOwner = new Map<string, number>();
  #total = 0;

  constructor(options: ChannelLimitOptions = {}) {
    this.maxPerWorker = options.maxPerWorker ?? DEFAULT_MAX_PER_WORKER;
    this.maxTotal = options.maxTotal ?? DEFAULT_MAX_TOTAL;
  }

  /** Alive created channels: of `owner`, or in all without it. */
  count(owner?: string): number {
    return owner === undefined ? this.#total : this.#byOwner.get(owner) ?? 0;
  }

  /** Counts one more channel of `owner`; throws {@linkcode ChannelLimitError} when over a limit. */
  take(owner: string | undefined): void {
    const mine = owner === undefined ? 0 : this.#byOwner.get(owner) ?? 0;
    if (owner !== undefined && mine >= this.maxPerWorker) {
      throw new ChannelLimitError({
        scope: "worker",
        owner,
        count: mine,
        limit: this.maxPerWorker,
      });
    }
    if (this.#total >= this.maxTotal) {
      throw new ChannelLimitError({
        scope: "engine",
        owner,
        count: this.#total,
        limit: this.maxTotal,
      });
    }
    if (owner !== undefined) this.#byOwner.set(owner, mine + 1);
    this.#total++;
  }

  /** A channel counted by {@linkcode take} is gone. */
  give(owner: string | undefined): void {
    this.#total--;
    if (owner === undefined) return;
    const mine = (this.#byOwner.get(owner) ?? 1) - 1;
    if (mine <= 0) this.#byOwner.delete(owner);
    else this.#byOwner.set(owner, mine);
  }
}
