/**
 * The function ids the engine refused to register (an invalid id, an
 * HTTP-invoked function), per connected worker, so that a call to one says
 * why it finds nothing: `Function greet not found: worker "w" tried to
 * register it and was refused: <reason>`. The refusal itself goes to the
 * worker as an `error` frame, which the npm iii-sdk ignores: without this,
 * only the engine's log said why. Pure: the engine adds, forgets and asks.
 *
 * @module
 */
import type { ErrorBody } from "./api.ts";
import { functionNotFound } from "./protocol/errors.ts";

/** What is read of a worker: its id, and its name as it is when a call comes. */
interface Named {
  id: string;
  name: string;
}

interface Refusal {
  reason: string;
  /** Order of the refusals, across workers: the latest one is told. */
  seq: number;
}

/** Ids longer than this are not kept (a frame may hold megabytes of one). */
const MAX_ID_LENGTH = 1024;

export class RefusedIds {
  #perWorker: number;
  #byWorker = new Map<string, { worker: Named; ids: Map<string, Refusal> }>();
  #seq = 0;

  /** `perWorker`: how many of a worker's latest refused ids are kept (100 by default). */
  constructor(options: { perWorker?: number } = {}) {
    this.#perWorker = options.perWorker ?? 100;
  }

  /** `worker` tried to register `functionId` and was refused for `reason`. */
  add(worker: Named, functionId: string, reason: string): void {
    if (functionId.length > MAX_ID_LENGTH) return;
    let entry = this.#byWorker.get(worker.id);
    if (!entry) this.#byWorker.set(worker.id, entry = { worker, ids: new Map() });
    entry.ids.delete(functionId); // to the end: the latest
    entry.ids.set(functionId, { reason, seq: this.#seq++ });
    if (entry.ids.size > this.#perWorker) entry.ids.delete(entry.ids.keys().next().value!);
  }

  /** The worker `workerId` left: what it was refused no longer explains anything. */
  forget(workerId: string): void {
    this.#byWorker.delete(workerId);
  }

  /**
   * The `function_not_found` error of a call to `functionId`, with the
   * latest refusal of that id to a connected worker after a colon.
   */
  notFound(functionId: string): ErrorBody {
    let latest: { worker: Named; refusal: Refusal } | undefined;
    for (const { worker, ids } of this.#byWorker.values()) {
      const refusal = ids.get(functionId);
      if (refusal && (!latest || refusal.seq > latest.refusal.seq)) latest = { worker, refusal };
    }
    if (!latest) return functionNotFound(functionId);
    return functionNotFound(
      functionId,
      `worker "${latest.worker.name}" tried to register it and was refused: ${latest.refusal.reason}`,
    );
  }
}
