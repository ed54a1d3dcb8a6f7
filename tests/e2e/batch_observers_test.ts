/**
 * What an operator watches while SDK workers speaking `engine.batch.v1` make
 * many calls at once: `engine trigger` gets the fan-out's result, `engine
 * logs -f` and the live feed of `engine console` (both reach the engine
 * through the TypeScript SDK, so they batch too) carry every log line once
 * and every call's span, and the console lists the workers with their
 * functions and counts the calls.
 */
import assert from "node:assert/strict";
import { MAIN, ROOT, runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { spawnLineProcess } from "../support/line_process.ts";
import { Logger, registerWorker } from "../../sdk/typescript/mod.ts";

const CONFIG = "host: 127.0.0.1\nport: 0\nworkers: []\nconsole:\n  enabled: false\n";
const COUNT = 200;

function spawnCli(args: string[], env: Record<string, string>) {
  return spawnLineProcess(["run", "--allow-all", MAIN, ...args], {
    cwd: ROOT,
    env: { NO_COLOR: "1", ...env },
    name: `engine ${args.join(" ")}`,
    timeoutMs: 30_000,
  });
}

/** The console's `/api/events` stream, read into `events` as they come. */
async function readFeed(url: string) {
  const abort = new AbortController();
  const response = await fetch(`${url}/api/events`, { signal: abort.signal });
  assert.equal(response.status, 200);
  const events: { event: string; data: Record<string, unknown> }[] = [];
  const waiters: { match: () => boolean; resolve: () => void }[] = [];
  const reading = (async () => {
    let buffer = "";
    for await (const text of response.body!.pipeThrough(new TextDecoderStream())) {
      buffer += text;
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event && data) events.push({ event, data: JSON.parse(data) });
      }
      for (const w of [...waiters]) {
        if (w.match()) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    }
  })().catch(() => {}).finally(() => {
    // The stream ended: the waits end too, and the assertions after them say what is missing.
    for (const w of waiters.splice(0)) w.resolve();
  });
  return {
    events,
    until(match: () => boolean): Promise<void> {
      if (match()) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    async close() {
      abort.abort();
      await reading;
    },
  };
}

Deno.test("engine trigger, engine logs -f and engine console keep up with batched SDK workers making many calls at once", async () => {
  const { file } = await tempConfig(CONFIG);
  const engine = await spawnEngine({ config: file });
  const provider = registerWorker(engine.url, { worker_name: "load-provider" });
  const caller = registerWorker(engine.url, { worker_name: "load-caller" });
  const env = { ENGINE_URL: engine.url };
  const follow = spawnCli(["logs", "--follow", "--worker", "load-provider"], env);
  const console_ = spawnCli(["console", "--port", "0"], env);
  let feed: Awaited<ReturnType<typeof readFeed>> | undefined;
  try {
    const logger = new Logger();
    provider.registerFunction("load::work", async (n: number) => {
      await new Promise((resolve) => setTimeout(resolve, n % 3)); // answers out of order
      logger.info(`work ${n} done`, { n });
      return n + 1;
    });
    provider.registerFunction("load::mark", (text: string) => (logger.info(text), null));
    caller.registerFunction("load::fanout", async (count: number) =>
      await Promise.all(
        Array.from({ length: count }, (_, n) =>
          caller.trigger({ function_id: "load::work", payload: n })),
      ));
    await Promise.all([provider.ready(), caller.ready()]);

    const line = await console_.waitForLine(/^Console on http:\/\//);
    const url = /(http:\/\/\S+)/.exec(line)![1]!;
    feed = await readFeed(url);
    // Both listeners are in place once a marker logged now reaches them.
    const feedLogs = () => feed!.events.filter((e) => e.event === "log").map((e) => e.data);
    const marked = feed.until(() => feedLogs().some((l) => l.message === "marker"));
    await provider.trigger({ function_id: "load::mark", payload: "marker" });
    await follow.waitForLine(/ \[load-provider load::mark\] marker$/);
    await marked;

    const triggered = await runCli([
      "trigger",
      "--function-id=load::fanout",
      `--payload=${COUNT}`,
    ], { env });
    assert.equal(triggered.code, 0, triggered.stderr);
    const inputs = Array.from({ length: COUNT }, (_, n) => n);
    assert.deepEqual(JSON.parse(triggered.stdout), inputs.map((n) => n + 1));

    // engine logs -f: every call's line, with its data, once.
    const printed = (n: number) =>
      follow.lines.filter((l) =>
        l.endsWith(` [load-provider load::work] work ${n} done {"n":${n}}`)
      );
    for (const n of inputs) {
      if (printed(n).length === 0) await follow.waitForLine(new RegExp(` work ${n} done `));
      assert.equal(printed(n).length, 1, `engine logs -f printed "work ${n} done" once`);
    }

    // The console's live feed: every line once, every call's span, nothing dropped.
    const works = () => feedLogs().filter((l) => /^work \d+ done$/.test(String(l.message)));
    const spans = () =>
      feed!.events.filter((e) => e.event === "span").map((e) => e.data) as {
        functionId?: string;
        traceId: string;
        status: string;
      }[];
    const workSpans = () => spans().filter((s) => s.functionId === "load::work");
    await feed.until(() =>
      works().length >= COUNT && workSpans().length >= COUNT &&
      spans().some((s) => s.functionId === "load::fanout")
    );
    assert.deepEqual(
      works().map((l) => l.message).sort(),
      inputs.map((n) => `work ${n} done`).sort(),
    );
    assert.deepEqual(feed.events.filter((e) => e.event === "dropped"), []);

    // Every call's span, in the trace of the fan-out that made it.
    const fanout = spans().filter((s) => s.functionId === "load::fanout");
    assert.equal(fanout.length, 1);
    assert.equal(workSpans().length, COUNT);
    for (const span of workSpans()) {
      assert.deepEqual([span.traceId, span.status], [fanout[0]!.traceId, "ok"]);
    }

    // The console's lists: both workers with their functions, nothing left in flight.
    const { workers } = await (await fetch(`${url}/api/workers`)).json();
    const listed = (name: string) => workers.find((w: { name: string }) => w.name === name);
    assert.deepEqual(
      ["load-provider", "load-caller"].map((name) => {
        const w = listed(name);
        return w && [w.status, w.functions, w.active_invocations];
      }),
      [["connected", ["load::mark", "load::work"], 0], ["connected", ["load::fanout"], 0]],
    );
    const { functions } = await (await fetch(`${url}/api/functions`)).json();
    const work = functions.find((f: { function_id: string }) => f.function_id === "load::work");
    assert.deepEqual([work?.worker_name, work?.in_flight], ["load-provider", 0]);
  } finally {
    await feed?.close();
    assert.equal((await follow.kill("SIGINT")).code, 0, "engine logs -f ends with 0");
    assert.equal((await console_.kill("SIGTERM")).code, 0, "engine console ends with 0");
    await caller.shutdown();
    await provider.shutdown();
    await engine.stop();
  }
});
