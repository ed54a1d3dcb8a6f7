/**
 * The "Function <id> registered by <worker>" lines of the engine's log. The
 * SDKs register their functions first and say their worker's name right
 * after (`engine::workers::register`), so a line written at once named a
 * placeholder (`worker-1ce8b7c5`). Lines of a worker that has not said its
 * name yet are held until it does, until it leaves, or for `waitMs` at most
 * (a worker that never says it keeps the placeholder).
 *
 * @module
 */
import type { Logger } from "./api.ts";

/** What the log needs of a worker connection: its id and its name as it is now. */
interface Named {
  id: string;
  name: string;
}

export class RegistrationLog {
  #log: Logger;
  #waitMs: number;
  #described = new Set<string>();
  #held = new Map<string, { conn: Named; ids: string[]; timer: ReturnType<typeof setTimeout> }>();

  constructor(log: Logger, waitMs = 250) {
    this.#log = log;
    this.#waitMs = waitMs;
  }

  /** `conn` has said who it is (or was named from the start): its lines are written now. */
  described(conn: Named): void {
    this.#described.add(conn.id);
    this.#flush(conn.id);
  }

  /** `conn` registered function `id`. */
  registered(conn: Named, id: string): void {
    if (this.#described.has(conn.id)) return this.#write(conn, id);
    const held = this.#held.get(conn.id);
    if (held) return void held.ids.push(id);
    const timer = setTimeout(() => this.#flush(conn.id), this.#waitMs);
    this.#held.set(conn.id, { conn, ids: [id], timer });
  }

  /** `conn` left: its held lines are written (before its departure's) and it is forgotten. */
  left(workerId: string): void {
    this.#flush(workerId);
    this.#described.delete(workerId);
  }

  #flush(workerId: string): void {
    const held = this.#held.get(workerId);
    if (!held) return;
    clearTimeout(held.timer);
    this.#held.delete(workerId);
    for (const id of held.ids) this.#write(held.conn, id);
  }

  #write(conn: Named, id: string): void {
    this.#log.info(`Function ${id} registered by "${conn.name}"`);
  }
}
