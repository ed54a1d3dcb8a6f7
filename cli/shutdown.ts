/**
 * The engine's stop within a time budget (`shutdown_timeout_ms`, default 8 s:
 * docker sends SIGKILL 10 s after SIGTERM). Each step gets until a point of
 * the budget, counted from the signal:
 *
 * 1. The built-in workers that take requests from outside (engine-http,
 *    engine-console), together: no new connection; the requests in progress
 *    finish while the workers answering them still run. Until half the budget.
 * 2. Every local worker at once: SIGTERM (the SDKs drain their handlers),
 *    SIGKILL 5 s later, or 1.5 s before the budget ends if that is sooner.
 * 3. The other built-in workers (engine-state, engine-queue), together: until
 *    0.5 s before the budget ends.
 * 4. The engine: calls still in flight get what is left, then fail; the
 *    connections close.
 *
 * A step that runs out of its time is cut off, with a warning naming what
 * was cut and the calls it had in flight: a built-in worker is left behind
 * (the process exits under it), a local worker gets SIGKILL.
 *
 * @module
 */
import type { RunningEngine } from "../engine/engine.ts";
import type { Supervision } from "./supervise.ts";

/** The built-in workers that take requests from outside: stopped first. */
const FRONT = new Set(["engine-http", "engine-console"]);
/** A local worker's time between SIGTERM and SIGKILL when the budget allows it. */
const WORKER_GRACE_MS = 5000;
/** Kept for the steps after the local workers' SIGKILL: their exit, the stores, the engine. */
const AFTER_WORKERS_MS = 1500;
/** Kept for the engine's own stop (step 4). */
const ENGINE_MS = 500;

/** What {@link stopWithinBudget} did. */
export interface BudgetedStop {
  /** One line per step cut off, as logged; empty for a clean stop. */
  cut: string[];
}

/** Stops the built-in workers, the local workers and the engine within `budgetMs` of `startedAt`. */
export async function stopWithinBudget(
  engine: RunningEngine,
  supervision: Supervision | undefined,
  budgetMs: number,
  startedAt = Date.now(),
): Promise<BudgetedStop> {
  const log = engine.logs.logger({ source: "engine" });
  const cut: string[] = [];
  const report = (line: string) => {
    cut.push(line);
    log.warn(line);
  };
  const at = (ms: number) => startedAt + ms;
  const left = (until: number) => Math.max(0, until - Date.now());
  const budget = `shutdown_timeout_ms (${budgetMs} ms)`;

  const names = engine.builtinNames().reverse();
  const front = names.filter((name) => FRONT.has(name));
  const back = names.filter((name) => !FRONT.has(name));
  await stopBuiltins(engine, front, left(at(budgetMs / 2)), (name, calls) =>
    report(
      `Shutdown: built-in worker "${name}" cut off at half of ${budget}: ${calls}; ` +
        "the local workers stop now",
    ));

  if (supervision) {
    const killAt = at(budgetMs - AFTER_WORKERS_MS);
    const graceMs = Math.min(WORKER_GRACE_MS, left(killAt));
    const stopped = supervision.stop({
      graceMs,
      onKill: (name) =>
        report(
          `Shutdown: local worker "${name}" cut off with SIGKILL after ${graceMs} ms: ` +
            `${callsText(callsOf(engine, name).running)} it was running`,
        ),
    });
    if (!await settlesWithin(stopped, left(at(budgetMs - AFTER_WORKERS_MS + 500)))) {
      report(
        `Shutdown: local workers still stopping (their output not read to its end) left behind`,
      );
    }
  }

  await stopBuiltins(
    engine,
    back,
    left(at(budgetMs - ENGINE_MS)),
    (name, calls) => report(`Shutdown: built-in worker "${name}" cut off by ${budget}: ${calls}`),
  );

  // Calls still in flight then fail with "the engine is shutting down" (a caller's SDK says so).
  const stopped = engine.stop({ graceMs: Math.max(0, left(at(budgetMs)) - 100) });
  if (!await settlesWithin(stopped, left(at(budgetMs)) + 100)) {
    report(`Shutdown: the engine's own stop cut off by ${budget}`);
  }
  return { cut };
}

/** Stops built-in workers `names` together; `onCut(name, calls)` for each still stopping after `ms`. */
async function stopBuiltins(
  engine: RunningEngine,
  names: string[],
  ms: number,
  onCut: (name: string, calls: string) => void,
): Promise<void> {
  const log = engine.logs.logger({ source: "engine" });
  const done = new Set<string>();
  await settlesWithin(
    Promise.all(
      names.map((name) =>
        engine.stopBuiltin(name).catch((e) =>
          log.error(`Stopping built-in worker "${name}" failed`, { error: String(e) })
        ).finally(() => done.add(name))
      ),
    ),
    ms,
  );
  for (const name of names.filter((n) => !done.has(n))) {
    const { running, made } = callsOf(engine, name);
    onCut(name, `${callsText(running)} it was running, ${callsText(made)} it made in flight`);
  }
}

/** The calls in flight that connection(s) named `name` run and made. */
function callsOf(engine: RunningEngine, name: string): { running: number; made: number } {
  const core = engine.engine;
  const ids = new Set(
    [...core.workers.values()].filter((conn) => conn.name === name).map((conn) => conn.id),
  );
  let running = 0;
  let made = 0;
  for (const id of core.invocations.ids()) {
    const call = core.invocations.get(id);
    if (call && ids.has(call.target)) running++;
    if (call?.caller !== undefined && ids.has(call.caller)) made++;
  }
  return { running, made };
}

function callsText(count: number): string {
  return `${count} call${count === 1 ? "" : "s"}`;
}

/** Whether `step` settles within `ms` (it runs on either way). */
async function settlesWithin(step: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const settled = await Promise.race([
    step.then(() => true, () => true),
    new Promise<false>((resolve) => timer = setTimeout(resolve, ms, false)),
  ]);
  clearTimeout(timer);
  return settled;
}
