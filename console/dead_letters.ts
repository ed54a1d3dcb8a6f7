/**
 * The Queues page's dead letters: list a queue's newest ones, redrive or
 * discard one or all, through `engine::queue::dead_letters`, `redrive` and
 * `discard`. Mounted under `/api/queues/:queue/…` behind the console's guard
 * like every other route.
 *
 * @module
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { EngineLink } from "./link.ts";

/** What `engine::queue::dead_letters` lists at most in one call. */
export const LIST_MAX = 1000;

export interface DeadLetterView {
  id: string;
  function_id: string;
  data: unknown;
  attempts: number;
  last_error: { code: string; message: string; stacktrace?: string } | null;
  enqueued_at_ms: number;
  failed_at_ms: number;
  traceparent?: string;
}

interface DeadLettersResult {
  queue: string;
  total: number;
  dead_letters: DeadLetterView[];
}

/** The routes; `badRequest` answers a bad input the way the rest of the API does. */
export function deadLetterRoutes(
  link: EngineLink,
  badRequest: (c: Context, message: string) => Response,
): Hono {
  const api = new Hono();

  // Newest first, `limit` of them (default 50). The queue worker lists the oldest failures
  // first, at most 1,000: of a longer list only the oldest 1,000 can be read (`listed`).
  api.get("/:queue/dead-letters", async (c) => {
    const queue = c.req.param("queue");
    const given = c.req.query("limit");
    const limit = given === undefined || given === "" ? 50 : Number(given);
    if (!Number.isInteger(limit) || limit <= 0) {
      return badRequest(c, `limit must be a positive integer: got ${JSON.stringify(given)}`);
    }
    const r = await link.call("engine::queue::dead_letters", {
      queue,
      limit: LIST_MAX,
    }) as DeadLettersResult;
    const newest = r.dead_letters.slice().reverse();
    return c.json({
      queue: r.queue,
      total: r.total,
      listed: r.dead_letters.length,
      dead_letters: newest.slice(0, Math.min(limit, LIST_MAX)),
    });
  });

  // {id}: that dead letter; {all: true}: every dead letter of the queue (one call, so
  // letters failing meanwhile go too).
  api.post("/:queue/redrive", async (c) => {
    const body = await bodyOf(c);
    const queue = c.req.param("queue");
    if (typeof body?.id === "string" && body.id !== "") {
      return c.json(await link.call("engine::queue::redrive", { queue, id: body.id }));
    }
    if (body?.all !== true) {
      return badRequest(c, 'Expected a JSON body {"id": "<id>"} or {"all": true}');
    }
    return c.json(await link.call("engine::queue::redrive", { queue }));
  });

  // {id}: that dead letter. {all: true, failed_before_ms}: every dead letter that had failed by
  // then (what the operator saw when confirming), one `discard` call each: the queue worker
  // has no discard-all; letters failing meanwhile are kept.
  api.post("/:queue/discard", async (c) => {
    const body = await bodyOf(c);
    const queue = c.req.param("queue");
    if (typeof body?.id === "string" && body.id !== "") {
      return c.json(await link.call("engine::queue::discard", { queue, id: body.id }));
    }
    const before = body?.failed_before_ms;
    if (body?.all !== true || typeof before !== "number") {
      return badRequest(
        c,
        'Expected a JSON body {"id": "<id>"} or {"all": true, "failed_before_ms": <time>}',
      );
    }
    return c.json({ queue, discarded: await discardAll(link, queue, before) });
  });
  return api;
}

/** Discards the dead letters of `queue` that failed by `before`; how many. */
async function discardAll(link: EngineLink, queue: string, before: number): Promise<number> {
  let discarded = 0;
  while (true) {
    // A page of the oldest failures, discarded one by one.
    const r = await link.call("engine::queue::dead_letters", {
      queue,
      limit: LIST_MAX,
    }) as DeadLettersResult;
    const due = r.dead_letters.filter((d) => d.failed_at_ms <= before);
    const start = discarded;
    for (const letter of due) {
      const done = await link.call("engine::queue::discard", { queue, id: letter.id }).then(
        () => true,
        // Redriven or discarded by someone else meanwhile: not ours to count.
        (e) => (e as { code?: string }).code === "NOT_FOUND" ? false : Promise.reject(e),
      );
      if (done) discarded++;
    }
    // Oldest first: only a full list of letters all due may have more due beyond it.
    const more = r.dead_letters.length === LIST_MAX && due.length === LIST_MAX;
    if (!more || discarded === start) return discarded;
  }
}

async function bodyOf(c: Context): Promise<Record<string, unknown> | undefined> {
  try {
    const text = await c.req.text();
    if (text.trim() === "") return {};
    const body = JSON.parse(text);
    return body !== null && typeof body === "object" && !Array.isArray(body) ? body : undefined;
  } catch {
    return undefined;
  }
}
