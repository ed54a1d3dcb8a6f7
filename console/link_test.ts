import assert from "node:assert/strict";
import { startEngine } from "../engine/engine.ts";
import type { EventBatch } from "../engine/events.ts";
import { consoleWorker, LinkError, remoteLink, startConsole } from "./mod.ts";
import { eventually } from "../tests/support/local_worker.ts";
import { freePort } from "../tests/support/ports.ts";
import { readEvents } from "./_testing.ts";

Deno.test("remoteLink() calls functions and listens to engine::events as a worker", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 100 });
  const link = await remoteLink(engine.url, {
    name: "console-remote",
    namespace: "console-remote",
  });
  try {
    assert.equal((await link.call("engine::health::check", {}) as { status: string }).status, "ok");
    await assert.rejects(
      link.call("nope::missing", {}),
      (e) => e instanceof LinkError && e.code === "function_not_found",
    );
    const got = Promise.withResolvers<EventBatch>();
    link.listen({ type: "engine::events", config: { kinds: ["log"] } }, (batch) => {
      if ((batch as EventBatch).events.length) got.resolve(batch as EventBatch);
      return null;
    });
    await link.call("engine::health::check", {}); // the trigger is active once this answers
    engine.logs.write({ time: Date.now(), level: "info", message: "over the wire", source: "t" });
    const batch = await got.promise;
    assert.deepEqual(batch.events.map((e) => e.kind === "log" && e.log.message), ["over the wire"]);
    const workers = await link.call("engine::workers::list", {}) as {
      workers: { name: string }[];
    };
    assert.ok(workers.workers.some((w) => w.name === "console-remote"));
  } finally {
    await link.close();
    await engine.stop();
  }
});

Deno.test("remoteLink() says which engine it cannot reach", async () => {
  const port = freePort("0.0.0.0");
  await assert.rejects(
    remoteLink(`ws://127.0.0.1:${port}`, { name: "c", namespace: "c", connectTimeoutMs: 300 }),
    new RegExp(`^LinkError: Cannot reach the engine at ws://127\\.0\\.0\\.1:${port}: `),
  );
});

Deno.test("the console against a remote engine serves its API and live events over HTTP", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 100 });
  const link = await remoteLink(engine.url, {
    name: "engine-console",
    namespace: "engine-console",
  });
  const console = await startConsole({ link, host: "127.0.0.1", port: 0 });
  try {
    assert.match(console.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const workers = await (await fetch(`${console.url}/api/workers`)).json();
    assert.ok(workers.workers.some((w: { name: string }) => w.name === "engine-console"));
    const events = await fetch(`${console.url}/api/events`);
    // Other lines may come first (the console's own registration is logged as it connects).
    const pushed = (e: { event: string; data: unknown }) =>
      e.event === "log" && (e.data as { message: string }).message === "pushed";
    const reading = readEvents(events, (list) => list.some(pushed));
    engine.logs.write({ time: Date.now(), level: "warn", message: "pushed", source: "t" });
    const got = await reading;
    assert.equal(got.filter(pushed).length, 1);
  } finally {
    await console.stop();
    await link.close();
    await engine.stop();
  }
});

Deno.test("consoleWorker runs the console inside the engine and stops with it", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 100 });
  try {
    await engine.startBuiltin(
      consoleWorker,
      consoleWorker.parseConfig({ port: 0, engine_url: engine.url }),
    );
    const { url } = engine.describeBuiltin("engine-console") as { url: string };
    const page = await fetch(url);
    assert.match(await page.text(), /engine console/);
    const config = await (await fetch(`${url}/api/config`)).json();
    assert.equal(config.engine_url, engine.url);
    // An open event stream must not hold up the engine's shutdown.
    const events = await fetch(`${url}/api/events`);
    await engine.stop();
    await events.body?.cancel();
  } finally {
    await engine.stop();
  }
});

Deno.test("remoteLink() fails a call at once while the engine is away, and recovers", async () => {
  const port = freePort("127.0.0.1");
  let engine = await startEngine({ port, shutdownGraceMs: 100 });
  const link = await remoteLink(engine.url, { name: "c-away", namespace: "c-away" });
  try {
    await engine.stop();
    // Short calls until the link has seen the connection drop.
    await eventually(
      () =>
        link.call("engine::health::check", {}, 300).then(
          () => false,
          (e) => (e as LinkError).code === "unreachable",
        ),
      "the link to notice the engine stopped",
      10_000,
    );
    // Without the check this call would wait out its 20 s and fail with TIMEOUT.
    await assert.rejects(
      link.call("engine::health::check", {}, 20_000),
      (e) =>
        e instanceof LinkError && e.code === "unreachable" &&
        e.message === `Not connected to the engine at ${engine.url}: it is stopped or ` +
            "restarting (reconnecting)",
    );
    engine = await startEngine({ port, shutdownGraceMs: 100 });
    // Reconnecting takes a back-off step or two; calls answer again after it.
    let answer: unknown;
    await eventually(
      async () => {
        answer = await link.call("engine::health::check", {}, 2000).catch(() => undefined);
        return answer !== undefined;
      },
      "an answer after the engine came back",
      10_000,
    );
    assert.equal((answer as { status: string }).status, "ok");
  } finally {
    await link.close();
    await engine.stop();
  }
});
