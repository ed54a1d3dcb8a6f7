/**
 * What an HTTP trigger's handler receives from engine-http, and a response
 * streamed on its `response` writer: `set_status` and `set_headers` text
 * frames, then binary chunks, then the end (workers/http/README.md).
 *
 * @module
 */

import type { ChannelReader } from "./reader.ts";
import type { ChannelWriter } from "./writer.ts";

/**
 * The input of an HTTP trigger's handler. `request_body` and `response` arrive
 * as refs and reach the handler as a {@linkcode ChannelReader} (the raw
 * request bytes) and a {@linkcode ChannelWriter} (a streamed response).
 */
export interface HttpRequest<TBody = unknown> {
  /** The parsed body: JSON, a string for `text/*`, a map for a form; `null` when empty. */
  body: TBody;
  /** Lower-case names. */
  headers: Record<string, string>;
  query_params: Record<string, string>;
  path_params: Record<string, string>;
  method: string;
  /** The request's path, as sent. */
  path: string;
  /** The route: `{type: "http", path: <its pattern>, method}`. */
  trigger?: { type: string; path: string; method: string };
  /** What middleware put there. */
  context?: Record<string, unknown>;
  /** The request's raw bytes. */
  request_body: ChannelReader;
  /** The writer of a streamed response (see {@linkcode streamResponse}). */
  response: ChannelWriter;
}

/** The status and headers {@linkcode streamResponse} starts with. */
export interface StreamResponseInit {
  /** 200 to 599; 200 when not set. */
  status_code?: number;
  headers?: Record<string, string>;
}

/**
 * A response streamed to the HTTP client: set the status and headers, then
 * write chunks; the first chunk sends them (later changes throw), and
 * {@linkcode HttpResponseStream.end} ends the body. Made by
 * {@linkcode streamResponse}.
 */
export class HttpResponseStream {
  readonly #writer: ChannelWriter;
  #headersSent = false;

  constructor(writer: ChannelWriter) {
    this.#writer = writer;
  }

  /** Whether the first chunk (or the end) went out: the status and headers are final. */
  get headersSent(): boolean {
    return this.#headersSent;
  }

  /**
   * Sets the status, 200 to 599 (a `RangeError` otherwise).
   *
   * @example
   * ```ts ignore
   * await streamResponse(req.response).setStatus(206);
   * ```
   */
  setStatus(status_code: number): Promise<void> {
    if (!Number.isInteger(status_code) || status_code < 200 || status_code > 599) {
      throw new RangeError(`Invalid HTTP status ${status_code}: use an integer from 200 to 599`);
    }
    this.#assertOpen("setStatus");
    return this.#writer.sendMessage(JSON.stringify({ type: "set_status", status_code }));
  }

  /**
   * Sets headers (string values; repeated calls add to them). The engine drops
   * hop-by-hop fields such as `connection`.
   *
   * @example
   * ```ts ignore
   * await streamResponse(req.response).setHeaders({ "content-type": "text/csv" });
   * ```
   */
  setHeaders(headers: Record<string, string>): Promise<void> {
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== "string") {
        throw new TypeError(`Header "${name}" must be a string, got ${typeof value}`);
      }
    }
    this.#assertOpen("setHeaders");
    return this.#writer.sendMessage(JSON.stringify({ type: "set_headers", headers }));
  }

  /**
   * Sends a body chunk (a string as UTF-8); the first sends the status and
   * headers. Resolves once taken: awaiting it keeps pace with the client.
   * An empty chunk sends nothing.
   *
   * @example
   * ```ts ignore
   * await res.write("line 1\n");
   * ```
   */
  write(chunk: Uint8Array | string): Promise<void> {
    if ((typeof chunk === "string" ? chunk.length : chunk.byteLength) === 0) {
      return Promise.resolve();
    }
    this.#headersSent = true;
    return this.#writer.write(chunk);
  }

  /**
   * Writes `chunk`, if given, then ends the body (with no chunk at all: an
   * empty body with the status and headers set).
   *
   * @example
   * ```ts ignore
   * await res.end("done\n");
   * ```
   */
  async end(chunk?: Uint8Array | string): Promise<void> {
    if (chunk !== undefined) await this.write(chunk);
    this.#headersSent = true;
    await this.#writer.end();
  }

  #assertOpen(what: string): void {
    if (this.#headersSent) {
      throw new Error(`${what}() after the first chunk: the status and headers were sent`);
    }
  }
}

/**
 * Streams an HTTP response on a handler's `req.response` writer, starting
 * with `init`'s status and headers. The handler may return before the body
 * ends (engine-http then waits for it) or after; a stream started first wins
 * over the value it returns.
 *
 * @example
 * ```ts
 * import { type HttpRequest, registerWorker, streamResponse } from "../mod.ts";
 *
 * const worker = registerWorker("ws://127.0.0.1:49134");
 * worker.registerFunction("report::csv", async (req: HttpRequest) => {
 *   const res = streamResponse(req.response, { headers: { "content-type": "text/csv" } });
 *   for (const row of ["id,total\n", "1,10\n", "2,20\n"]) await res.write(row);
 *   await res.end();
 * });
 * worker.registerTrigger({ type: "http", function_id: "report::csv", config: { api_path: "/report.csv" } });
 * await worker.shutdown();
 * ```
 */
export function streamResponse(
  writer: ChannelWriter,
  init: StreamResponseInit = {},
): HttpResponseStream {
  const res = new HttpResponseStream(writer);
  if (init.status_code !== undefined) res.setStatus(init.status_code).catch(() => {});
  if (init.headers !== undefined) res.setHeaders(init.headers).catch(() => {});
  return res;
}
