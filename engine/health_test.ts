import assert from "node:assert/strict";
import { Readiness, type WorkerProblem } from "./health.ts";
import { routeRequest } from "./transport/route.ts";
import { Engine } from "./core.ts";
import { LogStore } from "./observability/logs.ts";
import { TraceStore } from "./observability/traces.ts";

const request = (pathname: string) => ({
  pathname,
  upgrade: false,
  origin: null,
  authorization: null,
  remoteAddress: "127.0.0.1",
});

Deno.test("Readiness.report() says each state, naming failed workers without their error", () => {
  const problems: WorkerProblem[] = [];
  const cases: [string, (r: Readiness) => void, unknown][] = [
    ["ready at start", () => {}, { status: "ok" }],
    ["stopping", (r) => r.stopping(), { status: "stopping" }],
    ["stopping stays", (r) => (r.stopping(), r.serving()), { status: "stopping" }],
    ["degraded", () => {
      problems.push({ name: "engine-http", error: "listen: address already in use", at: 0 }, {
        name: "engine-state",
        error: "connect redis://user:secret@db:6379 refused",
      });
    }, {
      status: "degraded",
      failed_workers: [
        { name: "engine-http", reason: "port in use", since: "1970-01-01T00:00:00.000Z" },
        { name: "engine-state", reason: "failed to start" },
      ],
    }],
  ];
  for (const [what, act, expected] of cases) {
    const readiness = new Readiness();
    readiness.watch(() => problems);
    act(readiness);
    assert.deepEqual(readiness.report(), expected, what);
    assert.ok(!JSON.stringify(readiness.report()).includes("secret"), what);
  }
  const starting = new Readiness(false);
  starting.watch(() => problems);
  assert.deepEqual(starting.report(), { status: "starting" });
  starting.serving();
  assert.equal(starting.ready, false, "degraded by the shared problems");
});

Deno.test("routeRequest() answers /health 200 and /health/ready 503 unless ready", () => {
  const log = new LogStore({ capacity: 10 }).logger({ source: "t" });
  const engine = new Engine({ log, traces: new TraceStore(10) });
  const cases: [string, Readiness | undefined, number, number][] = [
    ["no readiness", undefined, 200, 200],
    ["ready", new Readiness(), 200, 200],
    ["starting", new Readiness(false), 200, 503],
    [
      "stopping",
      (() => {
        const r = new Readiness();
        r.stopping();
        return r;
      })(),
      200,
      503,
    ],
  ];
  for (const [what, health, live, ready] of cases) {
    const context = { engine, log, ...(health ? { health } : {}) };
    const a = routeRequest(request("/health"), context);
    const b = routeRequest(request("/health/ready"), context);
    assert.ok(a.kind === "reply" && b.kind === "reply", what);
    assert.deepEqual([a.status, b.status], [live, ready], what);
    assert.deepEqual(Object.keys(a.body as object), ["status", "workers", "functions"], what);
  }
  assert.equal(routeRequest(request("/health/other"), { engine, log }).kind, "reply");
  const other = routeRequest(request("/health/other"), { engine, log });
  assert.ok(other.kind === "reply" && other.status === 404);
});
