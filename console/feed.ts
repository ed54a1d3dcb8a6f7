/**
 * The console's live feed: what the engine pushes (`engine::events` batches
 * of logs, spans and changes; `state` trigger events) and a snapshot of the
 * queues taken every second while someone watches, fanned out to every
 * browser connected to `/api/events`.
 *
 * @module
 */
import type { EventBatch } from "../engine/events.ts";
import { type EngineLink, LinkError } from "./link.ts";
import { queuesSnapshot } from "./queues.ts";

export type FeedEventName =
  | "log"
  | "span"
  | "engine"
  | "state"
  | "queues"
  | "dropped"
  | "link";

/**
 * The `link` event: whether the console reaches the engine. A console in its
 * own process (`engine console`) keeps its stream to the browser while the
 * engine is away; only this says the pages are out of date.
 */
export type LinkState =
  | { connected: true; engine_url: string }
  | { connected: false; engine_url: string; message: string };

export interface FeedEvent {
  event: FeedEventName;
  data: unknown;
}

/** One connected browser. */
export interface FeedClient {
  send(event: FeedEvent): void;
  /** Ends the client's stream (the console is stopping). */
  close(): void;
}

export interface FeedOptions {
  /** How often the queues snapshot is taken while clients are connected (default 1000 ms). */
  snapshotIntervalMs?: number;
}

export class EventFeed {
  #link: EngineLink;
  #clients = new Set<FeedClient>();
  #undo: (() => void)[] = [];
  #stateListening = false;
  #snapshotTimer: ReturnType<typeof setInterval> | undefined;
  #snapshotIntervalMs: number;
  #lastSnapshot = "";
  #snapshotting: Promise<void> | undefined;
  #stopped = false;
  /** Why the engine cannot be reached, while it cannot (found by the snapshot's reads). */
  #away: string | undefined;

  constructor(link: EngineLink, options: FeedOptions = {}) {
    this.#link = link;
    this.#snapshotIntervalMs = options.snapshotIntervalMs ?? 1000;
  }

  /** Starts listening to the engine; resolves once the listeners are registered. */
  async start(): Promise<void> {
    this.#undo.push(this.#link.listen(
      { type: "engine::events", config: {} },
      (payload) => this.#onBatch(payload as EventBatch),
    ));
    await this.#listenToState();
  }

  /** Adds a client; returns its removal. */
  subscribe(client: FeedClient): () => void {
    this.#clients.add(client);
    if (this.#away !== undefined) {
      client.send({ event: "link", data: this.#linkState() });
    }
    if (this.#snapshotTimer === undefined && !this.#stopped) {
      this.#snapshotTimer = setInterval(() => {
        this.#snapshotting ??= this.#snapshot().finally(() => this.#snapshotting = undefined);
      }, this.#snapshotIntervalMs);
    }
    return () => {
      this.#clients.delete(client);
      if (this.#clients.size === 0) {
        clearInterval(this.#snapshotTimer);
        this.#snapshotTimer = undefined;
        this.#lastSnapshot = "";
      }
    };
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  /** Closes every client and stops listening. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#snapshotTimer);
    this.#snapshotTimer = undefined;
    for (const undo of this.#undo.splice(0)) undo();
    for (const client of [...this.#clients]) client.close();
    this.#clients.clear();
    await this.#snapshotting;
  }

  #broadcast(event: FeedEvent): void {
    for (const client of this.#clients) client.send(event);
  }

  #onBatch(batch: EventBatch): null {
    if (batch.dropped > 0) this.#broadcast({ event: "dropped", data: { count: batch.dropped } });
    let triggersChanged = false;
    for (const e of batch.events) {
      if (e.kind === "log") this.#broadcast({ event: "log", data: e.log });
      else if (e.kind === "span") this.#broadcast({ event: "span", data: e.span });
      else {
        this.#broadcast({ event: "engine", data: e.change });
        if (e.change.type === "triggers_changed") triggersChanged = true;
      }
    }
    if (triggersChanged && !this.#stateListening) this.#listenToState().catch(() => {});
    return null;
  }

  /** Listens to `state` changes once some worker provides that trigger type. */
  async #listenToState(): Promise<void> {
    if (this.#stateListening || this.#stopped) return;
    let types: { id: string }[];
    try {
      types =
        (await this.#link.call("engine::triggers::list", {}) as { triggers: { id: string }[] })
          .triggers;
    } catch (e) {
      if (e instanceof LinkError) return;
      throw e;
    }
    if (this.#stateListening || this.#stopped || !types.some((t) => t.id === "state")) return;
    this.#stateListening = true;
    this.#undo.push(this.#link.listen({ type: "state", config: {} }, (payload) => {
      this.#broadcast({ event: "state", data: payload });
      return null;
    }));
  }

  async #snapshot(): Promise<void> {
    try {
      const snapshot = await queuesSnapshot(this.#link);
      if (this.#away !== undefined) {
        this.#away = undefined;
        this.#broadcast({ event: "link", data: this.#linkState() });
      }
      const text = JSON.stringify(snapshot);
      if (text === this.#lastSnapshot || this.#clients.size === 0) return;
      this.#lastSnapshot = text;
      this.#broadcast({ event: "queues", data: snapshot });
    } catch (e) {
      // The engine is away (stopped, restarting); the next tick tries again. Browsers are told
      // once, with the reason, and again when it answers.
      if (!(e instanceof LinkError) || e.code !== "unreachable" || this.#away !== undefined) return;
      this.#away = e.message;
      this.#lastSnapshot = "";
      this.#broadcast({ event: "link", data: this.#linkState() });
    }
  }

  #linkState(): LinkState {
    const engine_url = this.#link.engineUrl;
    return this.#away === undefined
      ? { connected: true, engine_url }
      : { connected: false, engine_url, message: this.#away };
  }
}
