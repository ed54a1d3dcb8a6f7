/**
 * A response a handler streams through its `response` channel (the
 * reference's streamed response, http-worker.md §10.2):
 *
 * | Frame | Effect |
 * |---|---|
 * | text `{"type":"set_status","status_code":N}` | the status, before the first chunk (200 to 599; other values are ignored with a warning) |
 * | text `{"type":"set_headers","headers":{…}}` | headers (strings, or lists of strings that repeat the header), before the first chunk; hop-by-hop fields and `content-length` are dropped (the body is sent chunked); a value that cannot be sent is ignored with a warning saying why |
 * | other text, or any text after the first chunk | ignored |
 * | binary | a body chunk; the first commits the status and headers |
 * | the writer closing | the end of the body (an empty body if no chunk came) |
 * | the writer's connection dropping | before the first chunk: 502; after it: the body ends short (the connection to the client is cut) |
 * | no chunk (nor the end) for `idleMs` after the first | the body ends short, as above, and the writer's end is closed: a handler that never ends its stream does not hold the client for ever |
 *
 * @module
 */
import type { Logger } from "../../engine/api.ts";
import { type Channel, ChannelBroken } from "../../engine/channels/channel.ts";
import { HttpError } from "./errors.ts";
import { dropHopByHop, setHeader } from "./response.ts";

const NULL_BODY_STATUS = new Set([204, 205, 304]);

/** The longest pause between chunks when none is given (engine-http's default `default_timeout`). */
const DEFAULT_IDLE_MS = 30_000;

/** Replies to a `HEAD` whose `GET` body would be a stream, of a length nobody knows. */
const UNSIZED = new WeakSet<Response>();

/**
 * Whether `response` answers a `HEAD` for a streamed body: it must go out
 * without a `Content-Length` (Deno's default for a reply without a body is
 * `content-length: 0`, which says the body is empty).
 */
export function isUnsized(response: Response): boolean {
  return UNSIZED.has(response);
}

export class ResponseStream {
  /** Whether the first chunk came, or the writer closed (or broke off) before any. */
  committed = false;
  status = 200;
  readonly headers = new Headers();
  readonly #channel: Channel;
  #first: Uint8Array | undefined;
  #broken: string | undefined;
  #ignored: string[] = [];

  /** Starts reading `channel`'s control frames; `onCommit` is called once committed. */
  constructor(channel: Channel, onCommit: () => void) {
    this.#channel = channel;
    this.#watch().then(() => {
      this.committed = true;
      onCommit();
    });
  }

  async #watch(): Promise<void> {
    try {
      for (;;) {
        const frame = await this.#channel.read();
        if (frame === null) return;
        if (typeof frame !== "string") {
          if (frame.byteLength === 0) continue;
          this.#first = frame;
          return;
        }
        this.#control(frame);
      }
    } catch (e) {
      this.#broken = e instanceof ChannelBroken ? e.message : String(e);
    }
  }

  #control(text: string): void {
    let message: { type?: unknown; status_code?: unknown; headers?: unknown };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message?.type === "set_status") {
      const status = message.status_code;
      if (
        typeof status === "number" && Number.isInteger(status) && status >= 200 && status <= 599
      ) {
        this.status = status;
      } else this.#ignored.push(`set_status ${JSON.stringify(status)} (use 200 to 599)`);
    } else if (message?.type === "set_headers" && typeof message.headers === "object") {
      for (const [name, value] of Object.entries(message.headers ?? {})) {
        const problem = setHeader(this.headers, name, value);
        if (problem !== undefined) this.#ignored.push(problem);
      }
    }
  }

  /**
   * The HTTP response, once {@linkcode committed}. When it has a streamed
   * body, `done` is called exactly once when that body ends: it completed,
   * was cut short, or the client went away (Deno cancels it). A response
   * without a body (no chunk came, a status without a body, a `HEAD`) never
   * calls `done`: its caller ends it at once, as it does when this throws a
   * 502 {@linkcode HttpError} (the writer broke off before its first chunk).
   * `options.stopping` aborting (the worker stops, after its grace) cuts the
   * body short, as a stall does; for a `HEAD` (`options.head`) the body is
   * not read at all (the writer's socket is closed), as for a status without
   * a body.
   */
  toResponse(
    functionId: string,
    log: Logger,
    done: () => void,
    options: { idleMs?: number | undefined; stopping?: AbortSignal; head?: boolean } = {},
  ): Response {
    const { idleMs = DEFAULT_IDLE_MS, stopping } = options;
    const shown = JSON.stringify(functionId);
    if (this.#ignored.length > 0) {
      log.warn(`Function ${shown} streamed a response: ignored ${this.#ignored.join("; ")}`);
    }
    if (this.#broken !== undefined) {
      throw new HttpError(
        502,
        "STREAM_BROKEN",
        `Function ${shown} streamed no response: ${this.#broken}`,
      );
    }
    dropHopByHop(this.headers);
    // The body is framed as it streams: a length the handler set would cut it (Deno sends no
    // more than it) or leave the client waiting for bytes that never come.
    this.headers.delete("content-length");
    const first = this.#first;
    if (first === undefined || NULL_BODY_STATUS.has(this.status) || options.head) {
      this.#channel.endRead();
      const response = new Response(null, { status: this.status, headers: this.headers });
      if (first !== undefined && !NULL_BODY_STATUS.has(this.status)) UNSIZED.add(response);
      return response;
    }
    this.#first = undefined;
    const channel = this.#channel;
    let sentFirst = false;
    let finished = false;
    let onStop: (() => void) | undefined;
    const finish = () => {
      if (finished) return;
      finished = true;
      if (onStop !== undefined) stopping?.removeEventListener("abort", onStop);
      done();
    };
    const cut = (controller: ReadableStreamDefaultController<Uint8Array>, error: Error) => {
      log.warn(`Function ${shown}: streamed response cut short: ${error.message}`);
      channel.endRead();
      controller.error(error);
      finish();
    };
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        if (stopping === undefined) return;
        onStop = () => {
          if (!finished) cut(controller, new Error("the HTTP worker is stopping"));
        };
        if (stopping.aborted) onStop();
        else stopping.addEventListener("abort", onStop, { once: true });
      },
      pull: async (controller) => {
        if (!sentFirst) {
          sentFirst = true;
          return controller.enqueue(first);
        }
        let timer: ReturnType<typeof setTimeout> | undefined;
        const idle = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no chunk and no end for ${idleMs} ms (default_timeout)`)),
            idleMs,
          );
        });
        try {
          for (;;) {
            const frame = await Promise.race([channel.read(), idle]);
            if (finished) return;
            if (frame === null) {
              controller.close();
              return finish();
            }
            if (typeof frame !== "string" && frame.byteLength > 0) return controller.enqueue(frame);
          }
        } catch (e) {
          if (!finished) cut(controller, e as Error);
        } finally {
          clearTimeout(timer);
        }
      },
      cancel: () => {
        channel.endRead();
        finish();
      },
    }, { highWaterMark: 0 });
    return new Response(body, { status: this.status, headers: this.headers });
  }
}
