/**
 * Which workers provide which functions. Pure: data in, data out; the owner
 * is an opaque handle (a worker id), so local, remote and in-process workers
 * are all the same to it.
 *
 * Several live workers may register the same id: they are replicas, and the
 * router balances calls across them. A worker re-registering an id it already
 * provides replaces its own entry.
 *
 * @module
 */

export interface FunctionInfo {
  description?: string;
  metadata?: Record<string, unknown>;
  request_format?: unknown;
  response_format?: unknown;
}

export interface Replica<O> {
  owner: O;
  info: FunctionInfo;
  /** Milliseconds since the epoch. */
  registeredAt: number;
}

export class FunctionRegistry<O> {
  #byId = new Map<string, Replica<O>[]>();
  #byOwner = new Map<O, Set<string>>();

  /** Adds or replaces `owner`'s replica of `id`. Returns true when `id` is new to the system. */
  add(id: string, owner: O, info: FunctionInfo, now = Date.now()): boolean {
    const replicas = this.#byId.get(id);
    const entry: Replica<O> = { owner, info, registeredAt: now };
    let ids = this.#byOwner.get(owner);
    if (!ids) this.#byOwner.set(owner, ids = new Set());
    ids.add(id);
    if (!replicas) {
      this.#byId.set(id, [entry]);
      return true;
    }
    const i = replicas.findIndex((r) => r.owner === owner);
    if (i >= 0) replicas[i] = entry;
    else replicas.push(entry);
    return false;
  }

  /** Removes `owner`'s replica of `id`. Returns true when `id` is gone from the system. */
  remove(id: string, owner: O): boolean {
    const replicas = this.#byId.get(id);
    if (!replicas) return false;
    const next = replicas.filter((r) => r.owner !== owner);
    if (next.length === replicas.length) return false;
    this.#byOwner.get(owner)?.delete(id);
    if (next.length === 0) {
      this.#byId.delete(id);
      return true;
    }
    this.#byId.set(id, next);
    return false;
  }

  /** Removes every function of `owner`; returns the ids no one provides any more. */
  removeOwner(owner: O): string[] {
    const ids = this.#byOwner.get(owner);
    this.#byOwner.delete(owner);
    if (!ids) return [];
    const gone: string[] = [];
    for (const id of ids) if (this.remove(id, owner)) gone.push(id);
    return gone;
  }

  replicas(id: string): readonly Replica<O>[] {
    return this.#byId.get(id) ?? [];
  }

  has(id: string): boolean {
    return this.#byId.has(id);
  }

  /** The ids `owner` provides. */
  ofOwner(owner: O): string[] {
    return [...(this.#byOwner.get(owner) ?? [])];
  }

  countOf(owner: O): number {
    return this.#byOwner.get(owner)?.size ?? 0;
  }

  get size(): number {
    return this.#byId.size;
  }

  entries(): IterableIterator<[string, Replica<O>[]]> {
    return this.#byId.entries();
  }
}
