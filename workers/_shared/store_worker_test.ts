import assert from "node:assert/strict";
import { recordingLog } from "../../tests/support/recording_log.ts";
import { startStoreWorker } from "./store_worker.ts";

/** A store that only notes that it was closed, in `steps`. */
function fakeStore(steps: string[]) {
  return { close: () => void steps.push("store closed") };
}

/** What the worker asks of the engine, noting in `steps` when it waits for its handlers. */
function fakeApi(steps: string[], log = recordingLog().log) {
  return {
    baseDir: "/srv/app",
    log,
    whenIdle: () => {
      steps.push("handlers idle");
      return Promise.resolve();
    },
  };
}

Deno.test("startStoreWorker() logs the start with the store's place and describes it first", async () => {
  const steps: string[] = [];
  const { log, infos } = recordingLog();
  const worker = await startStoreWorker(fakeApi(steps, log), {
    label: "Things",
    config: {
      adapter: "redis",
      path: "./data/things.db",
      synchronous: "normal",
      url: "redis://:pw@cache:6379",
    },
    open: (options) => {
      steps.push(`opened in ${options.baseDir}`);
      return Promise.resolve(fakeStore(steps));
    },
    setup: () => ({ stop: () => void steps.push("parts stopped"), describe: () => ({ n: 2 }) }),
  });
  assert.deepEqual(infos, [[
    "Things worker started with the redis adapter",
    { url: "redis://:***@cache:6379" },
  ]]);
  assert.deepEqual(worker.describe?.(), { adapter: "redis", url: "redis://:***@cache:6379", n: 2 });
  await worker.stop();
  assert.deepEqual(steps, [
    "opened in /srv/app",
    "parts stopped",
    "handlers idle",
    "store closed",
  ]);
});

Deno.test("startStoreWorker() stops once however often it is asked, the store last", async () => {
  const steps: string[] = [];
  const worker = await startStoreWorker(fakeApi(steps), {
    label: "Things",
    config: { adapter: "memory", path: "x.db", synchronous: "normal", url: "redis://h" },
    open: () => Promise.resolve(fakeStore(steps)),
    setup: () => ({
      stop: async () => {
        await Promise.resolve();
        steps.push("parts stopped");
      },
      describe: () => ({}),
    }),
  });
  const first = worker.stop();
  assert.equal(worker.stop(), first);
  await first;
  await worker.stop();
  assert.deepEqual(steps, ["parts stopped", "handlers idle", "store closed"]);
  assert.deepEqual(worker.describe?.(), { adapter: "memory" });
});

Deno.test("startStoreWorker() closes the store when the set-up fails, and logs no start", async () => {
  const steps: string[] = [];
  const { log, infos } = recordingLog();
  const starting = startStoreWorker(fakeApi(steps, log), {
    label: "Things",
    config: { adapter: "sqlite", path: "x.db", synchronous: "normal", url: "redis://h" },
    open: () => Promise.resolve(fakeStore(steps)),
    setup: () => Promise.reject(new Error('Trigger type "things" is already registered')),
  });
  await assert.rejects(starting, /Trigger type "things" is already registered/);
  assert.deepEqual(steps, ["store closed"]);
  assert.deepEqual(infos, []);
});
