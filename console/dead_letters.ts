/**
 * The Queues page's dead letters: list a queue's newest ones (in pages of the
 * queue worker's cursor), redrive or discard one or all (with the cut-off of the
 * operator's confirmation), through `engine::queue::dead_letters`, `redrive`
 * and `discard`. Mounted under `/api/queues/:queue/…` behind the console's guard
 * like every other route.
 *
 * @module
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { EngineLink } from "./link.ts";

/** What `engine::queue::dead_letters` lists at most in one call. */
export const CALL_MAX = 1000;

/** The most dead letters one read of the console answers (read in calls of {@link CALL_MAX}). */
export const LIST_MAX = 10_000;

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
  next_cursor?: string;
}

/** The routes; `badRequest` answers a bad input the way the rest of the API does. */
export function deadLetterRoutes(
  link: EngineLink,
  badRequest: (c: Context, message: string) => Response,
): Hono {
  const api = new Hono();

  // Newest first, `limit` of them (default 50), after `cursor` (a `next_cursor` answered before)
  // when given: `{queue, total, dead_letters, next_cursor?}`.
  api.get("/:queue/dead-letters", async (c) => {
    const queue = c.req.param("queue");
    const given = c.req.query("limit");
    const limit = given === undefined || given === "" ? 50 : Number(given);
    if (!Number.isInteger(limit) || limit <= 0 || limit > LIST_MAX) {
      return badRequest(
        c,
        `limit must be an integer from 1 to ${LIST_MAX}: got ${JSON.stringify(given)}`,
      );
    }
    let cursor = c.req.query("cursor") || undefined;
    const letters: DeadLetterView[] = [];
    let r: DeadLettersResult;
    do {
      r = await link.call("engine::queue::dead_letters", {
        queue,
        order: "newest_first",
        limit: Math.min(limit - letters.length, CALL_MAX),
        ...(cursor === undefined ? {} : { cursor }),
      }) as DeadLettersResult;
      letters.push(...r.dead_letters);
      cursor = r.next_cursor;
    } while (cursor !== undefined && letters.length < limit);
    return c.json({
      queue: r.queue,
      total: r.total,
      dead_letters: letters,
      ...(cursor === undefined ? {} : { next_cursor: cursor }),
    });
  });

  // {id}: that dead letter. {all: true, failed_before_ms}: every dead letter of the queue that
  // failed before then (the moment the operator confirmed; later failures are kept), in one call,
  // one atomic step of the queue worker. Redrive also takes all without the cut-off; discard
  // requires it (deleting is for good).
  const oneOrAll = (action: "redrive" | "discard") => async (c: Context) => {
    const body = await bodyOf(c);
    const queue = c.req.param("queue");
    const functionId = `engine::queue::${action}`;
    if (typeof body?.id === "string" && body.id !== "") {
      return c.json(await link.call(functionId, { queue, id: body.id }));
    }
    const before = body?.failed_before_ms;
    const cutOffRequired = action === "discard";
    if (body?.all !== true || (cutOffRequired && typeof before !== "number")) {
      return badRequest(
        c,
        `Expected a JSON body {"id": "<id>"} or {"all": true, "failed_before_ms"${
          cutOffRequired ? "" : "?"
        }: <time>}`,
      );
    }
    return c.json(
      await link.call(functionId, {
        queue,
        all: true,
        ...(before === undefined ? {} : { failed_before_ms: before }),
      }),
    );
  };
  api.post("/:queue/redrive", oneOrAll("redrive"));
  api.post("/:queue/discard", oneOrAll("discard"));
  return api;
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
