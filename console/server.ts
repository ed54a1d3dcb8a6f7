/**
 * The console's Hono app: the pages (one HTML shell, plain JavaScript
 * modules, no build step), the JSON API under `/api`, and `/api/events`, a
 * Server-Sent Events stream of the live feed.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { VERSION } from "../engine/version.ts";
import { createApi } from "./api.ts";
import { ASSETS, INDEX_HTML } from "./assets/mod.ts";
import type { EventFeed, FeedEvent } from "./feed.ts";
import type { EngineLink } from "./link.ts";
import { refuseOtherSites } from "./guard.ts";
import { securityHeaders } from "./security_headers.ts";
import { requireToken } from "./token.ts";

export interface ConsoleAppOptions {
  link: EngineLink;
  feed: EventFeed;
  /** When set, every request must carry it (see `token.ts`). */
  token?: string | undefined;
  /** Events held per browser before the oldest are dropped (default 2000). */
  clientBuffer?: number;
  /** Interval of the keep-alive comment on `/api/events` (default 15 s). */
  keepAliveMs?: number;
}

/** The pages, each a path the shell's router knows; `/` is the Workers page. */
export const PAGES = ["workers", "functions", "triggers", "queues", "logs", "traces", "state"];

export function createConsoleApp(options: ConsoleAppOptions): Hono {
  const app = new Hono();
  app.use("*", securityHeaders());
  app.use("*", refuseOtherSites({ checkHost: !options.token }));
  if (options.token) app.use("*", requireToken(options.token));

  const shell = (c: Context) => c.html(INDEX_HTML);
  app.get("/", shell);
  for (const page of PAGES) {
    app.get(`/${page}`, shell);
    app.get(`/${page}/*`, shell);
  }
  app.get("/assets/*", (c) => {
    const asset = ASSETS[c.req.path.slice("/assets/".length)];
    if (!asset) return c.text("Not found", 404);
    return c.body(asset.body, 200, {
      "content-type": asset.type,
      "cache-control": "no-cache",
    });
  });
  app.get("/api/events", () => eventStream(options));
  app.route("/api", createApi(options.link, { version: VERSION }));
  app.notFound((c) =>
    c.json({ error: { code: "not_found", message: `No page at ${c.req.path}` } }, 404)
  );
  return app;
}

const encoder = new TextEncoder();

function encode(e: FeedEvent): Uint8Array {
  return encoder.encode(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
}

/** One browser's stream; when it falls behind, events are dropped and counted. */
function eventStream(options: ConsoleAppOptions): Response {
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let dropped = 0;
      let open = true;
      const send = (e: FeedEvent) => {
        if (!open) return;
        if ((controller.desiredSize ?? 0) <= 0) {
          dropped++;
          return;
        }
        if (dropped > 0) {
          controller.enqueue(encode({ event: "dropped", data: { count: dropped } }));
          dropped = 0;
        }
        controller.enqueue(encode(e));
      };
      const ping = setInterval(
        () => open && controller.enqueue(encoder.encode(": keep-alive\n\n")),
        options.keepAliveMs ?? 15_000,
      );
      const unsubscribe = options.feed.subscribe({
        send,
        close: () => {
          cleanup();
          controller.close();
        },
      });
      cleanup = () => {
        open = false;
        clearInterval(ping);
        unsubscribe();
      };
      controller.enqueue(encoder.encode(": connected\n\nretry: 1000\n\n"));
    },
    cancel() {
      cleanup();
    },
  }, new CountQueuingStrategy({ highWaterMark: options.clientBuffer ?? 2000 }));
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    },
  });
}
