/**
 * The console's JSON API: each route is one or two calls of `engine::*` or
 * `state::*` functions, so what a page shows, a script calling those
 * functions can read too.
 *
 * @module
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { type EngineLink, LinkError } from "./link.ts";
import { queuesSnapshot } from "./queues.ts";
import { sendHttpRequest } from "./http_request.ts";
import { deadLetterRoutes } from "./dead_letters.ts";
import { isCliConnection } from "../engine/connection_log.ts";

/** Mounted under `/api` by the server. */
export function createApi(link: EngineLink, info: { version: string }): Hono {
  const api = new Hono();
  const call = (id: string, payload: unknown = {}) => link.call(id, payload);

  api.get("/config", (c) => c.json({ engine_url: link.engineUrl, version: info.version }));
  api.get("/health", async (c) => c.json(await call("engine::health::check")));
  // Supervised workers (started from the config file) add status, restarts and output.
  api.get("/workers", async (c) => {
    // One after the other, so neither read counts as a call in flight of the other.
    const supervised = await (call("engine::supervisor::list") as Promise<{ workers: unknown[] }>)
      .then(
        (r) => r.workers,
        (e) => {
          if (e instanceof LinkError && e.code === "function_not_found") return null;
          throw e;
        },
      );
    const listed = await call("engine::workers::list") as { workers: Record<string, unknown>[] };
    // The CLI's own connections (a command running, `engine logs -f`) are tools, not workers:
    // counted, not listed, as `engine worker list` does.
    const cli = listed.workers.filter((w) => isCliConnection({ metadata: w }));
    const workers = listed.workers.filter((w) => !isCliConnection({ metadata: w }));
    return c.json({ workers, supervised, cli_connections: cli.length });
  });
  api.get("/functions", async (c) =>
    c.json(
      await call("engine::functions::list", {
        include_internal: c.req.query("internal") === "1",
      }),
    ));
  // One function as `engine::functions::info` says it: description, schemas, the triggers
  // that call it. By query (`?id=`): an id may hold any character, "/" included.
  api.get("/functions/info", async (c) => {
    const id = c.req.query("id");
    if (!id) return badRequest(c, "Expected ?id=<function id>");
    const info = await call("engine::functions::info", { function_id: id }) as {
      functions: unknown[];
    };
    return c.json(info.functions[0]);
  });
  api.get("/triggers", async (c) => {
    const [registered, types] = await Promise.all([
      call("engine::registered-triggers::list") as Promise<{ registered_triggers: unknown[] }>,
      call("engine::triggers::list") as Promise<{ triggers: unknown[] }>,
    ]);
    return c.json({ triggers: registered.registered_triggers, types: types.triggers });
  });
  api.get("/queues", async (c) => c.json(await queuesSnapshot(link)));
  api.route("/queues", deadLetterRoutes(link, badRequest));
  api.get("/logs", async (c) => {
    const q = c.req.query();
    const limit = limitOf(q.limit, 500);
    if (typeof limit === "string") return badRequest(c, limit);
    return c.json(
      await call("engine::logs::list", {
        ...(q.level ? { level: q.level } : {}),
        ...(q.worker ? { worker: q.worker } : {}),
        ...(q.function_id ? { function_id: q.function_id } : {}),
        ...(q.trace_id ? { trace_id: q.trace_id } : {}),
        ...(q.text ? { text: q.text } : {}),
        limit,
      }),
    );
  });
  api.get("/traces", async (c) => {
    const limit = limitOf(c.req.query("limit"), 100);
    if (typeof limit === "string") return badRequest(c, limit);
    return c.json(await call("engine::traces::list", { limit }));
  });
  api.get("/traces/:id", async (c) => {
    const id = c.req.param("id");
    const trace = await call("engine::traces::get", { trace_id: id }) as { spans: unknown[] };
    if (trace.spans.length > 0) return c.json(trace);
    return c.json({
      error: {
        code: "not_found",
        message:
          `No spans of trace "${id}": it is unknown, still running, or older than what the engine keeps`,
      },
    }, 404);
  });

  api.get("/state", async (c) => c.json(await call("state::list_groups")));
  api.get(
    "/state/:scope",
    async (c) =>
      c.json({ entries: await call("state::list_keys", { scope: c.req.param("scope") }) }),
  );
  api.put("/state/:scope/:key", async (c) => {
    const body = await jsonBody(c);
    if (!body || !("value" in body)) return badRequest(c, 'Expected a JSON body {"value": …}');
    const { scope, key } = c.req.param();
    return c.json(await call("state::set", { scope, key, value: body.value }));
  });
  api.delete("/state/:scope/:key", async (c) => {
    const { scope, key } = c.req.param();
    return c.json(await call("state::delete", { scope, key }));
  });

  api.post("/call", async (c) => {
    const body = await jsonBody(c);
    const functionId = body?.function_id;
    if (typeof functionId !== "string" || functionId === "") {
      return badRequest(c, 'Expected a JSON body {"function_id": "<id>", "payload": …}');
    }
    const timeout = typeof body!.timeout_ms === "number" ? body!.timeout_ms : 30_000;
    const start = performance.now();
    try {
      // No payload is an empty object; a given one (null, 0, "") is passed as it is.
      const payload = body!.payload === undefined ? {} : body!.payload;
      const result = await link.call(functionId, payload, timeout);
      return c.json({ result: result ?? null, duration_ms: elapsed(start) });
    } catch (e) {
      if (!(e instanceof LinkError)) throw e;
      const error = e.stacktrace === undefined
        ? { code: e.code, message: e.message }
        : { code: e.code, message: e.message, stacktrace: e.stacktrace };
      return c.json({ error, duration_ms: elapsed(start) });
    }
  });

  api.post("/http", async (c) => {
    const body = await jsonBody(c);
    if (!body || typeof body.path !== "string") {
      return badRequest(c, 'Expected a JSON body {"method", "path": "/…", "headers"?, "body"?}');
    }
    if (!body.path.startsWith("/")) {
      return badRequest(c, `The path must start with "/": got ${JSON.stringify(body.path)}`);
    }
    // A header the request cannot carry is refused, not dropped with the others.
    const headers = body.headers ?? {};
    const bad = headersProblem(headers);
    if (bad) return badRequest(c, `The headers must be an object of strings: ${bad}`);
    // The body is sent as the text it is; an object was dropped and the request went without one.
    if (body.body !== undefined && typeof body.body !== "string") {
      return badRequest(
        c,
        `The body must be text, the request's bytes as a string (JSON.stringify an object): ` +
          `got ${kindOf(body.body)}`,
      );
    }
    const result = await sendHttpRequest(link, {
      method: typeof body.method === "string" ? body.method.toUpperCase() : "GET",
      path: body.path,
      headers: headers as Record<string, string>,
      ...(typeof body.body === "string" ? { body: body.body } : {}),
    });
    return c.json(result);
  });

  api.onError((e, c) => {
    if (e instanceof LinkError) {
      return c.json({ error: { code: e.code, message: e.message } }, statusOf(e.code));
    }
    return c.json({ error: { code: "console_error", message: (e as Error).message } }, 500);
  });
  return api;
}

/**
 * The status of a failed engine call: the caller's mistake (a bad filter, a
 * value too large) is a 4xx like any other bad request; only a failure of the
 * engine or a worker behind it is 502.
 */
function statusOf(code: string): 400 | 404 | 413 | 502 {
  switch (code) {
    case "function_not_found":
    case "NOT_FOUND":
    case "QUEUE_NOT_FOUND":
      return 404;
    case "INVALID_ARGUMENT":
    case "INVALID_ARGUMENTS":
    case "INVALID_OP":
      return 400;
    case "VALUE_TOO_LARGE":
      return 413;
    default:
      return 502;
  }
}

function elapsed(start: number): number {
  return Math.round((performance.now() - start) * 100) / 100;
}

async function jsonBody(c: Context): Promise<Record<string, unknown> | undefined> {
  try {
    const body = await c.req.json();
    return body !== null && typeof body === "object" && !Array.isArray(body) ? body : undefined;
  } catch {
    return undefined;
  }
}

/** The `limit` query parameter (at most 10,000), `fallback` when absent, or why it is refused. */
function limitOf(given: string | undefined, fallback: number): number | string {
  if (given === undefined || given === "") return fallback;
  const limit = Number(given);
  if (!Number.isInteger(limit) || limit <= 0) {
    return `limit must be a positive integer: got ${JSON.stringify(given)}`;
  }
  return Math.min(limit, 10_000);
}

function badRequest(c: Context, message: string) {
  return c.json({ error: { code: "invalid_request", message } }, 400);
}

/** Why `v` is not an object of string header values, or undefined when it is. */
/** "null", "an array", "an object", "a number", … */
function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

function headersProblem(v: unknown): string | undefined {
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    return `got ${JSON.stringify(v)}`;
  }
  for (const [name, value] of Object.entries(v)) {
    if (typeof value !== "string") {
      return `"${name}" is ${value === null ? "null" : `a ${typeof value}`}`;
    }
  }
  return undefined;
}
