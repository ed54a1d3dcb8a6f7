import assert from "node:assert/strict";
import { REDACTED } from "../engine/observability/redact.ts";
import { readEvents, startHarness } from "./_testing.ts";

const json = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

Deno.test("console serves the pages and their assets from the program", async (t) => {
  const h = await startHarness();
  try {
    await t.step("/ is the shell, opening on the Workers page", async () => {
      const res = await h.app.request("/");
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(html, /<script type="module" src="\/assets\/app\.js">/);
      assert.match(html, /href="\/workers" data-page="workers"/);
    });
    await t.step("every page path serves the shell", async () => {
      for (const page of ["functions", "triggers", "queues", "logs", "traces/abc", "state/x"]) {
        const res = await h.app.request(`/${page}`);
        assert.equal(res.status, 200, page);
        assert.match(res.headers.get("content-type") ?? "", /text\/html/);
        await res.body?.cancel();
      }
    });
    await t.step("assets have their content types; unknown ones are 404", async () => {
      const js = await h.app.request("/assets/pages/traces.js");
      assert.match(js.headers.get("content-type") ?? "", /javascript/);
      assert.match(await js.text(), /export function mount/);
      const css = await h.app.request("/assets/style.css");
      assert.match(css.headers.get("content-type") ?? "", /text\/css/);
      await css.body?.cancel();
      assert.equal((await h.app.request("/assets/nope.js")).status, 404);
    });
  } finally {
    await h.stop();
  }
});

Deno.test("console API reads workers, functions, triggers, queues and health through engine::*", async () => {
  const h = await startHarness();
  try {
    const workers = await (await h.app.request("/api/workers")).json();
    const names = workers.workers.map((w: { name: string }) => w.name);
    for (const name of ["engine", "engine-http", "engine-state", "probe"]) {
      assert.ok(names.includes(name), `${name} in ${names}`);
    }
    const functions = await (await h.app.request("/api/functions")).json();
    const echo = functions.functions.find((f: { function_id: string }) =>
      f.function_id === "probe::echo"
    );
    assert.deepEqual([echo.workers, echo.replicas], [["probe"], 1]);
    const ids = (list: { function_id: string }[]) => list.map((f) => f.function_id);
    assert.ok(!ids(functions.functions).some((id) => id.includes("::listen-")), "listeners hidden");
    const all = await (await h.app.request("/api/functions?internal=1")).json();
    assert.ok(ids(all.functions).some((id) => id.startsWith("console-test::listen-")));

    const triggers = await (await h.app.request("/api/triggers")).json();
    const hello = triggers.triggers.find((t: { function_id: string }) =>
      t.function_id === "probe::hello"
    );
    assert.deepEqual([hello.trigger_type, hello.config.api_path, hello.status], [
      "http",
      "/hello",
      "active",
    ]);
    assert.ok(triggers.types.some((t: { id: string }) => t.id === "engine::events"));

    const queues = await (await h.app.request("/api/queues")).json();
    assert.deepEqual(queues.http, { worker: "engine-http", in_flight: 0, waiting: 0 });
    assert.equal(queues.invocations.in_flight, 0, "the console's own reads are not counted");
    assert.equal(queues.durable, null);

    assert.equal((await (await h.app.request("/api/health")).json()).status, "ok");
  } finally {
    await h.stop();
  }
});

Deno.test("POST /api/call returns the result or the error, with the duration", async () => {
  const h = await startHarness();
  try {
    const ok = await (await h.app.request(
      "/api/call",
      json({ function_id: "probe::echo", payload: { n: 1 } }),
    )).json();
    assert.deepEqual(ok.result, { echoed: { n: 1 } });
    assert.equal(typeof ok.duration_ms, "number");
    const failed = await (await h.app.request(
      "/api/call",
      json({ function_id: "probe::fail" }),
    )).json();
    const { stacktrace, ...error } = failed.error;
    assert.deepEqual(error, { code: "probe_failed", message: "Probe failed on purpose" });
    assert.match(stacktrace, /^Error: Probe failed on purpose\n\s+at .*_testing\.ts/, "its stack");
    const missing = await (await h.app.request(
      "/api/call",
      json({ function_id: "nope::nothing" }),
    )).json();
    assert.equal(missing.error.code, "function_not_found");
    const bad = await h.app.request("/api/call", json({ payload: 1 }));
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error.message, /function_id/);
  } finally {
    await h.stop();
  }
});

Deno.test("POST /api/call passes the payload given, null and falsy ones included; none is {}", async () => {
  const h = await startHarness();
  try {
    const cases: [body: Record<string, unknown>, echoed: unknown][] = [
      [{ payload: null }, null],
      [{ payload: 0 }, 0],
      [{ payload: "" }, ""],
      [{ payload: false }, false],
      [{}, {}],
    ];
    for (const [body, echoed] of cases) {
      const answer = await (await h.app.request(
        "/api/call",
        json({ function_id: "probe::echo", ...body }),
      )).json();
      assert.deepEqual(answer.result, { echoed }, JSON.stringify(body));
    }
  } finally {
    await h.stop();
  }
});

Deno.test("state routes set, list and delete values through state::*", async () => {
  const h = await startHarness();
  try {
    const put = await h.app.request("/api/state/orders/o-1", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ value: { total: 12 } }),
    });
    assert.equal(put.status, 200);
    await put.body?.cancel();
    assert.deepEqual(await h.link.call("state::get", { scope: "orders", key: "o-1" }), {
      total: 12,
    });
    assert.deepEqual((await (await h.app.request("/api/state")).json()).groups, ["orders"]);
    assert.deepEqual((await (await h.app.request("/api/state/orders")).json()).entries, [
      { key: "o-1", value: { total: 12 } },
    ]);
    const del = await h.app.request("/api/state/orders/o-1", { method: "DELETE" });
    assert.equal(del.status, 200);
    await del.body?.cancel();
    assert.equal(await h.link.call("state::get", { scope: "orders", key: "o-1" }), null);
    const bad = await h.app.request("/api/state/orders/o-2", { method: "PUT", body: "{}" });
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
    // A refusal of the state worker is the caller's mistake, not a bad gateway.
    const huge = await h.app.request("/api/state/orders/o-2", {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ value: "x".repeat(1_100_000) }),
    });
    assert.equal(huge.status, 413);
    assert.equal((await huge.json()).error.code, "VALUE_TOO_LARGE");
  } finally {
    await h.stop();
  }
});

Deno.test("POST /api/http sends the request to engine-http; the trace shows the request, middleware and handler", async () => {
  const h = await startHarness();
  try {
    const r = await (await h.app.request(
      "/api/http",
      json({
        method: "POST",
        path: "/hello",
        headers: { "content-type": "application/json", authorization: "Bearer s3cret" },
        body: '{"name":"ada"}',
      }),
    )).json();
    assert.equal(r.status, 200);
    assert.deepEqual(JSON.parse(r.body), { hello: { name: "ada" } });
    assert.ok(r.headers.some(([k]: [string]) => k === "content-type"));

    const { traces } = await (await h.app.request("/api/traces")).json();
    const trace = traces.find((t: { rootName: string }) => t.rootName === "POST /hello");
    assert.ok(trace, JSON.stringify(traces));
    const { spans } = await (await h.app.request(`/api/traces/${trace.traceId}`)).json();
    const root = spans.find((s: { kind: string }) => s.kind === "http");
    assert.equal(root.attributes["http.response.status_code"], 200);
    const children = spans.filter((s: { parentSpanId?: string }) => s.parentSpanId === root.spanId)
      .map((s: { name: string }) => s.name).sort();
    assert.deepEqual(children, ["probe::gate", "probe::hello"]);

    const { logs } = await (await h.app.request(`/api/logs?text=Handled%20hello`)).json();
    assert.equal(logs.length, 1);

    const refused = [
      [{ method: "GET", path: "http://x" }, 'The path must start with "/": got "http://x"'],
      [{ method: "GET" }, 'Expected a JSON body {"method", "path": "/…", "headers"?, "body"?}'],
      // Before, one header that was not a string silently dropped all of them.
      [
        { method: "POST", path: "/hello", headers: { "content-type": "application/json", n: 5 } },
        'The headers must be an object of strings: "n" is a number',
      ],
      [
        { method: "GET", path: "/hello", headers: ["a"] },
        'The headers must be an object of strings: got ["a"]',
      ],
      // Before, a body that was not a string was dropped: the request went without one.
      [
        { method: "POST", path: "/hello", body: { name: "ada" } },
        "The body must be text, the request's bytes as a string (JSON.stringify an object): " +
        "got an object",
      ],
    ] as const;
    for (const [body, message] of refused) {
      const r = await h.app.request("/api/http", json(body));
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.deepEqual(await r.json(), { error: { code: "invalid_request", message } });
    }
  } finally {
    await h.stop();
  }
});

Deno.test("/api/logs filters, and shows secrets redacted", async () => {
  const h = await startHarness();
  try {
    h.engine.logs.write({
      time: Date.now(),
      level: "warn",
      message: "Rejected request",
      source: "engine-http",
      worker: "engine-http",
      traceId: "t1",
      data: { headers: { authorization: "Bearer s3cret", Cookie: "sid=1", accept: "*/*" } },
    });
    h.engine.logs.write({ time: Date.now(), level: "debug", message: "noise", source: "x" });
    const { logs } = await (await h.app.request("/api/logs?level=warn&worker=engine-http")).json();
    assert.equal(logs.length, 1);
    assert.deepEqual(logs[0].data.headers, {
      authorization: REDACTED,
      Cookie: REDACTED,
      accept: "*/*",
    });
    const byTrace = await (await h.app.request("/api/logs?trace_id=t1")).json();
    assert.equal(byTrace.logs.length, 1);
    const bogus = await h.app.request("/api/logs?level=loud");
    assert.equal(bogus.status, 400);
    assert.match((await bogus.json()).error.message, /engine::logs::list: field "level"/);
    for (const path of ["/api/logs?limit=abc", "/api/traces?limit=-1", "/api/logs?limit=1.5"]) {
      const refused = await h.app.request(path);
      assert.equal(refused.status, 400, path);
      assert.match(
        (await refused.json()).error.message,
        /^limit must be a positive integer: got "/,
      );
    }
    assert.equal((await (await h.app.request("/api/logs?limit=1")).json()).logs.length, 1);
    const unknown = await h.app.request("/api/traces/0af7651916cd43dd8448eb211c80319c");
    assert.equal(unknown.status, 404);
    assert.deepEqual((await unknown.json()).error.code, "not_found");
  } finally {
    await h.stop();
  }
});

Deno.test("/api/events streams logs, spans, engine changes, state changes and queue snapshots", async () => {
  const h = await startHarness();
  try {
    const res = await h.app.request("/api/events");
    assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
    const reading = readEvents(res, (events) => {
      const names = new Set<string>(events.map((e) => e.event));
      return ["log", "span", "engine", "state", "queues"].every((n) => names.has(n));
    });
    h.engine.logs.write({ time: Date.now(), level: "info", message: "hello feed", source: "t" });
    await h.api.call("probe::echo", {}, {
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    await h.link.call("state::set", { scope: "feed", key: "k", value: 1 });
    h.api.registerFunction("probe::late", () => null);
    const events = await reading;
    const log = events.find((e) =>
      e.event === "log" && (e.data as { message: string }).message === "hello feed"
    );
    assert.ok(log);
    const state = events.find((e) => e.event === "state")?.data as { scope: string; key: string };
    assert.deepEqual([state.scope, state.key], ["feed", "k"]);
    assert.equal(h.feed.clientCount, 0, "a closed stream leaves the feed");
  } finally {
    await h.stop();
  }
});

Deno.test("calls in flight show per function and per worker, without the console's own", async () => {
  const h = await startHarness();
  try {
    const waiting = h.api.call("probe::wait", {}, {
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    });
    const queues = await (await h.app.request("/api/queues")).json();
    assert.deepEqual(queues.invocations, {
      in_flight: 1,
      per_function: { "probe::wait": 1 },
      per_worker: { probe: 1 },
    });
    const { workers } = await (await h.app.request("/api/workers")).json();
    const busy = Object.fromEntries(
      workers.map((
        w: { name: string; active_invocations: number },
      ) => [w.name, w.active_invocations]),
    );
    assert.equal(busy.probe, 1);
    assert.equal(busy.engine, 0, "the list call itself is not counted");
    const { functions } = await (await h.app.request("/api/functions")).json();
    const inFlight = Object.fromEntries(
      functions.map((
        f: { function_id: string; in_flight: number },
      ) => [f.function_id, f.in_flight]),
    );
    assert.equal(inFlight["probe::wait"], 1);
    assert.equal(inFlight["probe::echo"], 0);
    h.release();
    await waiting;
  } finally {
    await h.stop();
  }
});
