/**
 * The trigger type `log` over real sockets: the records it fires, its level
 * filter, and its guard against loops (a function that logs what it is
 * given, then fails, must not be fed its own entries, nor another such
 * function's, forever).
 */
import assert from "node:assert/strict";
import { withEngine } from "../support/in_process_engine.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { bind, calls } from "../support/bound_triggers.ts";

const bodies = (w: RawWorker, fn: string) => calls(w, fn).map((r) => r.body as string);
const delivered = (fn: string, body: string) => (f: Frame) =>
  f.type === "invokefunction" && f.function_id === fn && f.data?.body === body;

Deno.test("log fires an OpenTelemetry-style record for each entry at or above its level", () =>
  withEngine(async (url) => {
    const sink = await RawWorker.connect(url);
    const poker = await RawWorker.connect(url);
    try {
      await poker.call("engine::workers::register", { name: "poker" });
      sink.serve("logs::sink", () => null);
      await waitForFunctions(sink, ["logs::sink"]);
      await bind(sink, "l-warn", "log", "logs::sink", { level: "warn" });

      const loud = sink.next(delivered("logs::sink", "loud-1"));
      await poker.call("engine::log::info", { message: "quiet-1" });
      const traceId = "0af7651916cd43dd8448eb211c80319c";
      const before = Date.now();
      await poker.call("engine::log::warn", {
        message: "loud-1",
        data: { order: 42 },
        trace_id: traceId,
        span_id: "b7ad6b7169203331",
      });
      const record = (await loud).data;
      assert.deepEqual(
        { ...record, timestamp_unix_nano: 0, observed_timestamp_unix_nano: 0 },
        {
          timestamp_unix_nano: 0,
          observed_timestamp_unix_nano: 0,
          severity_number: 13,
          severity_text: "WARN",
          body: "loud-1",
          trace_id: traceId,
          span_id: "b7ad6b7169203331",
          service_name: "poker",
          attributes: { worker: "poker", "log.data": { order: 42 } },
          resource: { "service.name": "poker" },
        },
      );
      assert.ok(record.timestamp_unix_nano >= (before - 1000) * 1e6, "a time in nanoseconds");
      // Entries are sent in the order they were written: the info entry would have come first.
      assert.ok(!bodies(sink, "logs::sink").includes("quiet-1"), "below the level: not sent");
    } finally {
      await poker.close();
      await sink.close();
    }
  }));

Deno.test("log: functions that log what they get and fail do not feed themselves or each other", () =>
  withEngine(async (url) => {
    const a = await RawWorker.connect(url);
    const b = await RawWorker.connect(url);
    const poker = await RawWorker.connect(url);
    try {
      // `a` logs each entry back twice, traced as a Logger in a handler does and untraced (as its
      // printed output would be), then fails. `b` logs each entry back traced, then fails.
      a.serve("echo::a", async (data, frame) => {
        const body = (data as Frame).body;
        const traceId = String(frame.traceparent).split("-")[1];
        await a.call("engine::log::info", { message: `echo:${body}`, trace_id: traceId });
        await a.call("engine::log::info", { message: `echo-untraced:${body}` });
        throw new Error(`cannot take ${body}`);
      });
      b.serve("echo::b", async (data, frame) => {
        const body = (data as Frame).body;
        const traceId = String(frame.traceparent).split("-")[1];
        await b.call("engine::log::error", { message: `echo:${body}`, trace_id: traceId });
        throw new Error(`cannot take ${body}`);
      });
      await waitForFunctions(poker, ["echo::a", "echo::b"]);
      await bind(a, "l-a", "log", "echo::a");
      await bind(b, "l-b", "log", "echo::b");

      await poker.call("engine::log::warn", { message: "poke" });
      // `a`'s untraced echo reaches `b` (it is not `b`'s own), whose traced echo of it is written.
      for (const deadline = Date.now() + 10_000;;) {
        const r = await poker.call("engine::logs::list", { text: "echo:echo-untraced:poke" });
        if (r.result.logs.length > 0) break;
        assert.ok(Date.now() < deadline, "b echoed the untraced echo of a");
        await new Promise((r) => setTimeout(r, 10));
      }
      // Entries are sent in the order they were written: an echo delivered would come first.
      const sentinels = [
        a.next(delivered("echo::a", "sentinel")),
        b.next(delivered("echo::b", "sentinel")),
      ];
      await poker.call("engine::log::warn", { message: "sentinel" });
      await Promise.all(sentinels);

      const mine = (list: string[]) => list.filter((t) => /^(echo|poke|sentinel)/.test(t));
      assert.deepEqual(mine(bodies(a, "echo::a")), ["poke", "sentinel"]);
      assert.deepEqual(mine(bodies(b, "echo::b")), ["poke", "echo-untraced:poke", "sentinel"]);
      const warnings = (await poker.call("engine::logs::list", { text: "cannot take" })).result
        .logs.map((e: Frame) => e.message);
      assert.equal(warnings.length, 2, `one warning per failing trigger: ${warnings}`);
      assert.ok(!bodies(a, "echo::a").some((t) => t.includes("cannot take")));
    } finally {
      await poker.close();
      await b.close();
      await a.close();
    }
  }));
