/**
 * Which provider holds which trigger: the engine hands each trigger to the
 * worker that provides its type, takes it back when the trigger or its
 * worker goes, and moves triggers when a provider leaves or another takes
 * its type over.
 *
 * The rule kept throughout: the provider of the moment holds (or is
 * deciding) each live trigger exactly once, and nothing else. A trigger
 * offered to a provider is an {@link Offer} until the provider answers; an
 * offer withdrawn meanwhile is undone at the answer. Twins (the same type,
 * function, config and metadata from several replicas: `trigger_twins.ts`)
 * are handed over as one: the provider holds the first, the others follow
 * its status, and when it goes the next twin is handed over before the
 * provider lets go of it, so the trigger neither lapses nor fires twice.
 *
 * Two kinds of refusal are not final. A provider refusing a trigger as taken
 * (`trigger_taken`: its route is bound to another function, say) is offered
 * it again when a trigger of that type lets go of the provider, the oldest
 * such trigger first; a registration refused because another connection held
 * its id (`trigger_id_taken`) is kept and made when that trigger goes
 * (`trigger_parking.ts`).
 *
 * @module
 */
import type { ErrorBody, Logger, TriggerBinding } from "./api.ts";
import type { Peer } from "./peer.ts";
import type { WorkerConn } from "./core.ts";
import type { TriggerRecord, TriggerRegistry, TriggerTypeFormats } from "./registry/triggers.ts";
import { ErrorCode } from "./protocol/errors.ts";
import { binding } from "./trigger_binding.ts";
import { TwinIndex } from "./trigger_twins.ts";
import { ParkedIds, type TriggerInput } from "./trigger_parking.ts";

export interface BindingsHost {
  readonly workers: ReadonlyMap<string, WorkerConn>;
  readonly triggers: TriggerRegistry<string>;
  readonly log: Logger;
  /** Tells the engine's listeners that triggers changed. */
  changed(): void;
}

/** A trigger handed to a provider: accepted, or still being decided. */
interface Offer {
  peer: Peer;
  binding: TriggerBinding;
  accepted: boolean;
}

type Trigger = TriggerRecord<string>;

export class TriggerBindings {
  readonly #host: BindingsHost;
  readonly #twins = new TwinIndex();
  readonly #offers = new Map<Trigger, Offer>();
  /** Triggers refused as taken, with the refusal their worker was last told. */
  readonly #blocked = new Map<Trigger, string>();
  readonly #parked = new ParkedIds<WorkerConn>();

  constructor(host: BindingsHost) {
    this.#host = host;
  }

  /**
   * Adds or replaces the provider of trigger type `id`. A type a built-in
   * worker provides (`http`, `state`) is refused to a worker: its triggers
   * (every HTTP route) would move to that worker, and once it left, the type
   * would be gone until the built-in worker restarted.
   */
  registerType(
    conn: WorkerConn,
    id: string,
    description: string,
    formats?: TriggerTypeFormats,
  ): ErrorBody | undefined {
    const { workers, triggers, log } = this.#host;
    // A connection already gone (replaced by a reattach, say) registers nothing: no one would remove it.
    if (!workers.has(conn.id)) return undefined;
    const previous = triggers.type(id);
    const holder = previous && previous.owner !== conn.id ? workers.get(previous.owner) : undefined;
    if (holder?.kind === "builtin" && conn.kind !== "builtin") {
      return {
        code: "trigger_type_taken",
        message:
          `Cannot register trigger type "${id}": the built-in worker "${holder.name}" provides it, use another id`,
      };
    }
    if (previous && previous.owner !== conn.id) {
      log.warn(`Trigger type "${id}" is now provided by worker "${conn.name}"`);
      // The old provider lets go of what it holds, or those triggers would fire from both, and on
      // after their workers unregistered them (only the provider of the moment is told of that).
      for (const t of triggers.ofType(id)) this.#withdraw(t);
    }
    // The same provider registering its type again is handed only what it does not hold yet.
    for (const t of triggers.addType(id, description, conn.id, formats)) this.#activate(t);
    this.#host.changed();
    return undefined;
  }

  unregisterType(conn: WorkerConn, id: string): void {
    if (this.#dropType(conn, id)) this.#host.changed();
  }

  /**
   * Adds (or, for its own worker, replaces) a trigger. A trigger id of
   * another connected worker is refused: the ids are listed to every worker
   * (`engine::registered-triggers::list`), and taking one over would move
   * that worker's route to the taker. The refused registration is kept and
   * made when that trigger goes, should this connection outlive it: a worker
   * back on a new connection while its old one lingers gets its triggers
   * then. A worker's name proves nothing (any worker may give any name),
   * so nothing is taken over at once; a reattach (its token) does that.
   */
  register(conn: WorkerConn, t: TriggerInput): ErrorBody | undefined {
    const { workers, triggers } = this.#host;
    if (!workers.has(conn.id)) return undefined; // gone: as registerType
    const existing = triggers.get(t.id);
    const holder = existing && existing.owner !== conn.id ? workers.get(existing.owner) : undefined;
    if (holder !== undefined) {
      this.#parked.park(conn, t);
      return {
        code: "trigger_id_taken",
        message:
          `Cannot register trigger "${t.id}" now: the id belongs to a trigger of worker "${holder.name}"; it is registered for this connection if that trigger goes first (or use another id)`,
      };
    }
    const { record, replaced } = triggers.add({ ...t, owner: conn.id });
    if (replaced) this.#forget(replaced);
    this.#twins.add(record);
    this.#activate(record);
    this.#host.changed();
    return undefined;
  }

  /** Removes a trigger; only the worker that registered it may. */
  unregister(conn: WorkerConn, id: string): boolean {
    const record = this.#host.triggers.get(id);
    if (!record || record.owner !== conn.id) return this.#parked.drop(conn.id, id);
    this.#drop(record, conn.name);
    this.#host.changed();
    return true;
  }

  /**
   * A worker left: its triggers go, and the triggers of the types it provided
   * go to the provider standing by, or wait.
   */
  dropWorker(conn: WorkerConn): void {
    const { triggers } = this.#host;
    this.#parked.dropConn(conn.id);
    // First: a provider standing by that leaves too is not the one to take its types.
    triggers.dropStandby(conn.id);
    for (const t of triggers.ofOwner(conn.id)) this.#drop(t, conn.name);
    for (const type of triggers.typesOf(conn.id)) this.#dropType(conn, type.id);
  }

  /**
   * Removes trigger type `id` of `conn`: its triggers go to the provider that
   * stood by for it, if one still does, else they wait, and the log says so.
   */
  #dropType(conn: WorkerConn, id: string): boolean {
    const { triggers, log } = this.#host;
    if (!triggers.removeType(id, conn.id)) return false;
    const waiting = triggers.ofType(id);
    // The provider has left or given the type up: what it held is its own business now.
    for (const t of waiting) {
      this.#offers.delete(t);
      this.#blocked.delete(t);
    }
    const heir = triggers.promote(id);
    const heirConn = heir && this.#host.workers.get(heir.owner);
    if (heirConn) {
      log.warn(
        `Trigger type "${id}" is provided by worker "${heirConn.name}" again: its provider "${conn.name}" is gone`,
      );
      for (const t of waiting) if (t.owner !== conn.id) this.#activate(t);
      return true;
    }
    // Its own triggers are not told of: the worker gave the type up itself, and at its shutdown
    // (a type unregistered before its triggers) they go a moment later, with it.
    const others = waiting.filter((t) => t.owner !== conn.id).length;
    if (others > 0 && conn.kind === "websocket") {
      log.warn(
        `Trigger type "${id}" is gone with its provider "${conn.name}": ${others} trigger(s) of it wait for a worker that provides it`,
      );
    }
    return true;
  }

  /** Removes `record` of the worker named `holderName`; a registration kept for its id is made. */
  #drop(record: Trigger, holderName: string): void {
    this.#host.triggers.remove(record.id);
    this.#forget(record);
    const next = this.#parked.take(record.id, holderName);
    if (!next) return;
    this.#host.log.info(
      `Trigger "${record.id}" of worker "${next.conn.name}" is registered now: the trigger of worker "${holderName}" that held its id is gone`,
    );
    this.register(next.conn, next.trigger);
  }

  /**
   * Takes a removed (or replaced) trigger out of play: a twin takes its
   * place at the provider first, then the provider lets go of it.
   */
  #forget(record: Trigger): void {
    this.#blocked.delete(record);
    const twins = this.#twins.twinsOf(record);
    this.#twins.remove(record);
    const offer = this.#offers.get(record);
    if (!offer) return;
    this.#offers.delete(record);
    const heir = twins.find((t) => !this.#offers.has(t));
    if (heir) this.#offer(heir, offer.peer);
    if (offer.accepted) this.#release(offer);
  }

  /**
   * The provider lets go of an accepted trigger; once it has, what it
   * refused as taken is offered again, as it may be free now.
   */
  #release(offer: Offer): void {
    const { type } = offer.binding;
    Promise.resolve(offer.peer.unregisterTrigger(offer.binding))
      .then(() => this.#offerBlocked(type, offer.peer))
      .catch((e) =>
        this.#host.log.error(`Offering the triggers of type "${type}" again failed`, {
          error: String(e),
        })
      );
  }

  /** Offers `provider` again the triggers of `type` it refused as taken, the oldest first. */
  #offerBlocked(type: string, provider: Peer): void {
    const { triggers } = this.#host;
    const owner = triggers.type(type)?.owner;
    if (owner === undefined || this.#host.workers.get(owner)?.peer !== provider) return;
    const blocked = [...this.#blocked.keys()]
      .filter((t) => t.type === type && t.status === "failed" && triggers.get(t.id) === t)
      .sort((a, b) => a.registeredAt - b.registeredAt);
    if (blocked.length === 0) return;
    this.#host.log.debug(
      `Offering ${blocked.length} trigger(s) of type "${type}" refused as taken again: a trigger of that type is gone`,
    );
    for (const t of blocked) this.#activate(t);
    this.#host.changed();
  }

  /** The provider lets go of `record`, now or, if it is still deciding, at its answer. */
  #withdraw(record: Trigger): void {
    const offer = this.#offers.get(record);
    if (!offer) return;
    this.#offers.delete(record);
    if (offer.accepted) offer.peer.unregisterTrigger(offer.binding);
  }

  #providerOf(record: Trigger): Peer | undefined {
    const type = this.#host.triggers.type(record.type);
    return type ? this.#host.workers.get(type.owner)?.peer : undefined;
  }

  /** Hands `record` to its type's provider, unless it (or a twin) is there already. */
  #activate(record: Trigger): void {
    const provider = this.#providerOf(record);
    if (!provider) {
      record.status = "pending";
      this.#host.log.warn(
        `Trigger "${record.id}" for ${record.functionId} waits: no worker provides trigger type "${record.type}" yet`,
      );
      return;
    }
    if (this.#offers.get(record)?.peer === provider) return;
    const lead = this.#twins.twinsOf(record).find((t) => this.#offers.get(t)?.peer === provider);
    if (lead) {
      record.status = this.#offers.get(lead)!.accepted ? "active" : "pending";
      delete record.error;
      return;
    }
    this.#offer(record, provider);
  }

  #offer(record: Trigger, provider: Peer): void {
    const offer: Offer = { peer: provider, binding: binding(record), accepted: false };
    this.#offers.set(record, offer);
    record.status = "pending";
    delete record.error;
    provider.registerTrigger(offer.binding).then((refusal) =>
      this.#answered(record, offer, refusal)
    );
  }

  #answered(record: Trigger, offer: Offer, refusal: ErrorBody | undefined): void {
    if (this.#offers.get(record) !== offer) {
      // Withdrawn while the provider decided (the trigger or its worker went, the provider left
      // or lost the type): a yes is undone, or the trigger would fire on for ever. Unless the
      // same id was handed to this provider again since: that later offer is what it holds.
      const now = this.#host.triggers.get(offer.binding.id);
      const again = now !== undefined && this.#offers.get(now)?.peer === offer.peer;
      if (!refusal && !again) this.#release(offer);
      return;
    }
    const group = [record, ...this.#twins.twinsOf(record).filter((t) => !this.#offers.has(t))];
    if (refusal) {
      this.#offers.delete(record);
      for (const t of group) this.#refused(t, refusal);
    } else {
      offer.accepted = true;
      for (const t of group) {
        t.status = "active";
        delete t.error;
        this.#blocked.delete(t);
      }
    }
    this.#host.changed();
  }

  #refused(t: Trigger, refusal: ErrorBody): void {
    t.status = "failed";
    t.error = refusal.message;
    const told = this.#blocked.get(t);
    if (refusal.code !== ErrorCode.TriggerTaken) this.#blocked.delete(t);
    else {
      this.#blocked.set(t, refusal.message);
      if (told === refusal.message) return; // offered again, refused alike: its worker knows
    }
    const registrant = this.#host.workers.get(t.owner);
    this.#host.log.warn(
      `Trigger "${t.id}" (${t.type}) of ${t.functionId} from worker "${
        registrant?.name ?? t.owner
      }" refused: ${refusal.message}`,
    );
    registrant?.peer.triggerRefused(binding(t), refusal);
  }
}
