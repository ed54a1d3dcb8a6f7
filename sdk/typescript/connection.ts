/**
 * The worker's control connection: one WebSocket at a time, reopened with
 * backoff whenever it drops, with a ping heartbeat and an idle deadline.
 *
 * @module
 */

import type { ConnectionOptions as TlsOptions } from "node:tls";
import { WebSocketClient } from "./websocket/client.ts";
import { BATCH_PROTOCOL, FrameBatcher, splitBatch } from "./batch.ts";

/** Backoff between reconnect attempts: `min(initial * multiplier^attempt, max) ± jitter`. */
export interface ReconnectOptions {
  /** First delay. Default 1000 ms. */
  initialDelayMs: number;
  /** Largest delay. Default 30000 ms. */
  maxDelayMs: number;
  /** Growth per attempt. Default 2. */
  backoffMultiplier: number;
  /** Random spread as a fraction of the delay (0.3 = ±30 %). Default 0.3. */
  jitterFactor: number;
}

/** Default reconnect backoff. */
export const DEFAULT_RECONNECT: ReconnectOptions = {
  initialDelayMs: 1000,
  maxDelayMs: 30_000,
  backoffMultiplier: 2,
  jitterFactor: 0.3,
};

/**
 * The delay before reconnect attempt number `attempt` (0 for the first).
 *
 * @example
 * ```ts
 * const noJitter = { ...DEFAULT_RECONNECT, jitterFactor: 0 };
 * console.log(reconnectDelay(0, noJitter), reconnectDelay(10, noJitter)); // 1000 30000
 * ```
 */
export function reconnectDelay(
  attempt: number,
  options: ReconnectOptions,
  random = Math.random,
): number {
  const capped = Math.min(
    options.initialDelayMs * options.backoffMultiplier ** attempt,
    options.maxDelayMs,
  );
  const jitter = capped * options.jitterFactor * (2 * random() - 1);
  return Math.max(0, Math.floor(capped + jitter));
}

/** Settings of a {@linkcode Connection}. */
export interface ConnectionSettings {
  url: string;
  headers: Record<string, string>;
  reconnect: ReconnectOptions;
  heartbeatIntervalMs: number;
  idleTimeoutMs: number;
  handshakeTimeoutMs: number;
  maxMessageSize: number;
  tls?: TlsOptions | undefined;
  /** Offer {@linkcode BATCH_PROTOCOL}. */
  batchFrames: boolean;
}

/** What a {@linkcode Connection} reports to its owner. */
export interface ConnectionEvents {
  open(): void;
  message(text: string): void;
  /** An open connection closed (also at `stop()`); a reconnect follows unless stopped. */
  close(code: number, reason: string): void;
}

const utf8 = new TextDecoder();

/** A self-healing WebSocket connection; see the module doc. */
export class Connection {
  #settings: ConnectionSettings;
  #events: ConnectionEvents;
  #ws: WebSocketClient | undefined;
  #attempt = 0;
  #stopped = false;
  #lastError = "";
  #lastInbound = 0;
  #reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  /** Sends the pings and checks the idle deadline. */
  #heartbeatTimer: ReturnType<typeof setTimeout> | undefined;
  /** Set while the open connection speaks {@linkcode BATCH_PROTOCOL}. */
  #batcher: FrameBatcher | undefined;

  constructor(settings: ConnectionSettings, events: ConnectionEvents) {
    this.#settings = settings;
    this.#events = events;
  }

  /** Whether a WebSocket is open right now. */
  get isOpen(): boolean {
    return this.#ws?.readyState === "open";
  }

  /** Opens the first connection. */
  start(): void {
    this.#open();
  }

  /** Sends a text frame; returns false (and sends nothing) when not open. */
  send(text: string): boolean {
    if (!this.isOpen) return false;
    if (this.#batcher) this.#batcher.push(text);
    else this.#ws!.send(text);
    return true;
  }

  /** Closes for good (no reconnect) with `code` and resolves once closed. */
  async stop(code = 1000, reason = ""): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#reconnectTimer);
    this.#stopHeartbeat();
    const ws = this.#ws;
    if (!ws) return;
    if (ws.readyState === "open") {
      this.#batcher?.flush();
      await ws.close(code, reason);
    } else {
      ws.terminate();
      await ws.closed;
    }
  }

  #open(): void {
    const s = this.#settings;
    let ws: WebSocketClient;
    try {
      ws = new WebSocketClient(s.url, {
        headers: s.headers,
        handshakeTimeoutMs: s.handshakeTimeoutMs,
        maxMessageSize: s.maxMessageSize,
        ...(s.tls ? { tls: s.tls } : {}),
        ...(s.batchFrames ? { protocols: [BATCH_PROTOCOL] } : {}),
      });
    } catch (err) {
      this.#report(err);
      this.#scheduleReconnect();
      return;
    }
    this.#ws = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      this.#attempt = 0;
      if (this.#lastError) console.info(`[engine-sdk] Connected to ${s.url}`);
      this.#lastError = "";
      this.#batcher = ws.protocol === BATCH_PROTOCOL
        ? new FrameBatcher((text) => ws.readyState === "open" && ws.send(text), {
          sendLines: (frames) => ws.readyState === "open" && ws.sendLines(frames),
        })
        : undefined;
      this.#startHeartbeat();
      this.#events.open();
    };
    ws.onmessage = (data) => {
      this.#lastInbound = performance.now();
      const text = typeof data === "string" ? data : utf8.decode(data);
      if (ws.protocol !== BATCH_PROTOCOL) return this.#events.message(text);
      for (const frame of splitBatch(text)) this.#events.message(frame);
    };
    ws.onping = ws.onpong = () => (this.#lastInbound = performance.now());
    ws.onerror = (err) => this.#report(err);
    ws.onclose = (event) => {
      if (this.#ws === ws) {
        this.#ws = undefined;
        this.#batcher?.clear();
        this.#batcher = undefined;
      }
      this.#stopHeartbeat();
      if (opened && !this.#stopped) {
        // The engine says why in the reason (a frame over its size limit, say): pass it on.
        const why = event.reason ? `: ${event.reason}` : "";
        console.warn(`[engine-sdk] Disconnected from ${s.url} (code ${event.code}${why})`);
      }
      if (opened) this.#events.close(event.code, event.reason);
      if (!this.#stopped) this.#scheduleReconnect();
    };
  }

  #report(err: unknown): void {
    if (this.#stopped) return;
    const message = err instanceof Error ? err.message : String(err);
    // Say it once per distinct failure, not on every retry.
    if (message !== this.#lastError) console.warn(`[engine-sdk] ${message}`);
    this.#lastError = message;
  }

  #scheduleReconnect(): void {
    if (this.#stopped) return;
    const delay = reconnectDelay(this.#attempt, this.#settings.reconnect);
    this.#attempt++;
    // The first attempts, then every tenth: an engine down for an hour does not fill the log.
    if (this.#attempt <= 3 || this.#attempt % 10 === 0) {
      console.debug(`[engine-sdk] Reconnecting in ${delay}ms (attempt ${this.#attempt})...`);
    }
    this.#reconnectTimer = setTimeout(() => this.#open(), delay);
  }

  #startHeartbeat(): void {
    const { heartbeatIntervalMs, idleTimeoutMs } = this.#settings;
    // A quiet engine answers only pings: one goes out at least every half of the idle deadline,
    // or a deadline below the heartbeat would drop a live connection each time it ran out.
    const interval = Math.min(heartbeatIntervalMs, Math.max(1, Math.floor(idleTimeoutMs / 2)));
    this.#lastInbound = performance.now();
    let seen = this.#lastInbound;
    /** Time since `seen` that the event loop was held up, so no ping could go out. */
    let stalled = 0;
    let nextPing = seen + interval;
    const tick = (due: number) => {
      const now = performance.now();
      if (this.#lastInbound !== seen) {
        seen = this.#lastInbound;
        stalled = 0;
      }
      // A handler that blocks the loop (CPU work, a sync read, Atomics.wait) keeps the pings
      // from going out, and the engine, which speaks only when asked, stays quiet meanwhile. A
      // wake-up later than timer jitter explains is such a stall: it is not the engine's silence,
      // or the worker would drop its own live connection as soon as the loop moved again.
      const late = now - due;
      if (late > interval / 4) stalled += late;
      if (now - seen - stalled >= idleTimeoutMs) {
        console.warn(
          `[engine-sdk] No inbound data for ${idleTimeoutMs}ms, terminating connection to force reconnect`,
        );
        this.#ws?.terminate();
        return;
      }
      if (now >= nextPing) {
        if (this.isOpen) this.#ws!.ping();
        nextPing = now + interval;
      }
      const wake = Math.max(now, Math.min(nextPing, seen + stalled + idleTimeoutMs));
      this.#heartbeatTimer = setTimeout(() => tick(wake), wake - now);
    };
    this.#heartbeatTimer = setTimeout(() => tick(nextPing), interval);
  }

  #stopHeartbeat(): void {
    clearTimeout(this.#heartbeatTimer);
    this.#heartbeatTimer = undefined;
  }
}
