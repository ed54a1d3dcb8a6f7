/**
 * Test support: a real engine on a free port with engine-http and an
 * in-memory engine-state, a built-in `probe` worker with a few functions and
 * an HTTP route behind a middleware, and the console's app on top, driven
 * in-process with `app.request()`.
 *
 * @module
 */
import type { BuiltinWorker, EngineApi } from "../engine/api.ts";
import { type RunningEngine, startEngine } from "../engine/engine.ts";
import { httpWorker } from "../workers/http/mod.ts";
import { stateWorker } from "../workers/state/mod.ts";
import { EventFeed, type FeedEvent } from "./feed.ts";
import { builtinLink, type EngineLink } from "./link.ts";
import { createConsoleApp } from "./server.ts";
import type { Hono } from "hono";

/** `probe::wait` answers once this resolves. */
let release = Promise.withResolvers<void>();

export interface Harness {
  /** Answers every `probe::wait` call in flight. */
  release(): void;
  engine: RunningEngine;
  api: EngineApi;
  link: EngineLink;
  feed: EventFeed;
  app: Hono;
  /** `http://127.0.0.1:<port>` of engine-http. */
  httpBase: string;
  stop(): Promise<void>;
}

function probeWorker(ready: (api: EngineApi) => void): BuiltinWorker {
  return {
    name: "probe",
    description: "Functions for the console's tests",
    parseConfig: (raw) => raw,
    defaultConfig: {},
    start(api) {
      api.registerFunction("probe::echo", (payload) => ({ echoed: payload }), {
        description: "Returns its payload",
      });
      api.registerFunction("probe::fail", () => {
        throw Object.assign(new Error("Probe failed on purpose"), { code: "probe_failed" });
      });
      api.registerFunction("probe::wait", () => release.promise);
      api.registerFunction("probe::gate", () => ({ action: "continue", context: { gate: 1 } }));
      api.registerFunction("probe::hello", (req) => {
        api.log.info("Handled hello", { function_id: "probe::hello" });
        return { status_code: 200, body: { hello: (req as { body?: unknown }).body ?? null } };
      });
      api.registerTrigger({
        type: "http",
        function_id: "probe::hello",
        config: {
          api_path: "/hello",
          http_method: "POST",
          middleware_function_ids: ["probe::gate"],
        },
      });
      ready(api);
      return Promise.resolve({ stop: () => Promise.resolve() });
    },
  };
}

export async function startHarness(options: { token?: string } = {}): Promise<Harness> {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 100 });
  try {
    await engine.startBuiltin(httpWorker, httpWorker.parseConfig({ port: 0 }));
    await engine.startBuiltin(stateWorker, stateWorker.parseConfig({ adapter: "memory" }));
    const { promise, resolve } = Promise.withResolvers<EngineApi>();
    await engine.startBuiltin(probeWorker(resolve), {});
    const api = await promise;
    // The route goes live once engine-http has accepted the trigger.
    while (engine.engine.triggers.all().some((t) => t.status === "pending")) {
      await api.call("engine::health::check", {});
    }
    const link = builtinLink(api, engine.url, "console-test");
    const feed = new EventFeed(link, { snapshotIntervalMs: 50 });
    await feed.start();
    const app = createConsoleApp({ link, feed, token: options.token, keepAliveMs: 60_000 });
    const http = engine.describeBuiltin("engine-http") as { port: number };
    release = Promise.withResolvers<void>();
    return {
      release: () => release.resolve(),
      engine,
      api,
      link,
      feed,
      app,
      httpBase: `http://127.0.0.1:${http.port}`,
      async stop() {
        await feed.stop();
        await engine.stop();
      },
    };
  } catch (e) {
    await engine.stop();
    throw e;
  }
}

/** Reads Server-Sent Events from a response until `done` says so. */
export async function readEvents(
  response: Response,
  done: (events: FeedEvent[]) => boolean,
): Promise<FeedEvent[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: FeedEvent[] = [];
  let buffer = "";
  try {
    while (!done(events)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      buffer += value;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const name = /^event: (.+)$/m.exec(block)?.[1];
        const data = /^data: (.+)$/m.exec(block)?.[1];
        if (name && data) {
          events.push({ event: name as FeedEvent["event"], data: JSON.parse(data) });
        }
      }
    }
  } finally {
    await reader.cancel();
  }
  return events;
}

/** A {@linkcode startHarness} whose console app is served on a free port, for a browser. */
export async function servedHarness(
  options: { token?: string } = {},
): Promise<{ harness: Harness; url: string; stop(): Promise<void> }> {
  const harness = await startHarness(options);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    harness.app.fetch,
  );
  return {
    harness,
    url: `http://127.0.0.1:${server.addr.port}`,
    stop: async () => {
      await server.shutdown();
      await harness.stop();
    },
  };
}
