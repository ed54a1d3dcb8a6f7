/**
 * Registrations refused because their trigger id was held by another
 * connection (`trigger_id_taken`), kept until that trigger goes. The usual
 * case is a worker that reconnected without a reattach while its old
 * connection still lingers (a network drop the engine has not noticed yet):
 * its replay names the same trigger ids, and when the old connection finally
 * goes, its triggers are registered for the new one instead of being lost.
 * Pure bookkeeping.
 *
 * @module
 */

/** What a worker asked to register. */
export interface TriggerInput {
  id: string;
  type: string;
  functionId: string;
  config: unknown;
  metadata?: unknown;
}

/** A connection, as far as parking cares. */
export interface ParkingConn {
  id: string;
  name: string;
}

export interface Parked<C extends ParkingConn> {
  conn: C;
  trigger: TriggerInput;
}

export class ParkedIds<C extends ParkingConn> {
  /** By trigger id, in the order the connections first asked. */
  readonly #byId = new Map<string, Parked<C>[]>();

  /** Keeps `trigger` of `conn`; asked again, the newest config is kept, in its first place. */
  park(conn: C, trigger: TriggerInput): void {
    const queue = this.#byId.get(trigger.id) ?? [];
    const mine = queue.find((p) => p.conn.id === conn.id);
    if (mine) mine.trigger = trigger;
    else queue.push({ conn, trigger });
    this.#byId.set(trigger.id, queue);
  }

  /** Forgets what `connId` parked under `triggerId` (it unregistered it); whether it had. */
  drop(connId: string, triggerId: string): boolean {
    const queue = this.#byId.get(triggerId);
    const at = queue?.findIndex((p) => p.conn.id === connId) ?? -1;
    if (!queue || at < 0) return false;
    queue.splice(at, 1);
    if (queue.length === 0) this.#byId.delete(triggerId);
    return true;
  }

  /** Forgets everything connection `connId` parked (it left). */
  dropConn(connId: string): void {
    for (const [id, queue] of this.#byId) {
      const kept = queue.filter((p) => p.conn.id !== connId);
      if (kept.length === 0) this.#byId.delete(id);
      else if (kept.length < queue.length) this.#byId.set(id, kept);
    }
  }

  /**
   * The registration to make now that the trigger holding `triggerId`, of
   * the worker named `holderName`, is gone: the first one parked by a
   * connection of the same worker name (most likely that worker, back on a
   * new connection), else the first one parked. It is taken out; the
   * others wait for the next holder to go.
   */
  take(triggerId: string, holderName: string): Parked<C> | undefined {
    const queue = this.#byId.get(triggerId);
    if (!queue) return undefined;
    const same = queue.findIndex((p) => p.conn.name === holderName);
    const [taken] = queue.splice(same >= 0 ? same : 0, 1);
    if (queue.length === 0) this.#byId.delete(triggerId);
    return taken;
  }

  /** How many registrations wait, in all. */
  get size(): number {
    let n = 0;
    for (const queue of this.#byId.values()) n += queue.length;
    return n;
  }
}
