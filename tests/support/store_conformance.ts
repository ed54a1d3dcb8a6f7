/**
 * Test support: one suite of cases for a store interface, run against every
 * adapter (the state and queue workers' `adapters/conformance_test.ts`). Each
 * adapter gets one `Deno.test` with a step per case; every case starts on a
 * fresh back end, and the stores it opened are closed after it.
 *
 * @module
 */

import { join } from "node:path";
import { startFlushableRedisServer } from "./redis_server.ts";

/** What a store must offer for the suite to release it. */
export interface Closable {
  close(): unknown;
}

/** How a case gets stores: a fresh back end per case, and more views of it. */
export interface StoreBackend<S, O = never> {
  /** A store over this case's back end. */
  open(options?: O): Promise<S>;
  /** Whether a second `open()` sees the first one's data (a file or a server). */
  shared: boolean;
}

/** What an adapter's set-up started, for every case of the suite. */
export interface Harness<B> {
  /** A fresh, empty back end for one case. */
  backend(): Promise<B>;
  /** Releases what the harness started. */
  teardown(): Promise<void>;
  /** Whether a back end outlives its stores and is seen by all of them (a file or a server). */
  shared: boolean;
}

/** One case: it opens stores on `backend` and pushes each onto `stores` to have it closed. */
export type StoreRun<B, S extends Closable> = (backend: B, stores: S[]) => Promise<void>;

/**
 * A case, or one that needs a shared back end (several stores, or reopening):
 * reported as ignored for an adapter without one, not as passed.
 */
export type StoreCase<B, S extends Closable> =
  | StoreRun<B, S>
  | { sharedOnly: true; run: StoreRun<B, S> };

/**
 * A function registering `cases` for one adapter, as the test
 * `<suite> conformance: <adapter>`; `setup` starts what the adapter needs.
 */
export function storeConformance<B, S extends Closable>(
  suite: string,
  cases: Record<string, StoreCase<B, S>>,
): (adapter: string, setup: () => Promise<Harness<B>>) => void {
  return (adapter, setup) => {
    Deno.test(`${suite} conformance: ${adapter}`, async (t) => {
      const harness = await setup();
      try {
        for (const [title, c] of Object.entries(cases)) {
          const run = typeof c === "function" ? c : c.run;
          await t.step({
            name: title,
            ignore: typeof c !== "function" && !harness.shared,
            fn: async () => {
              const backend = await harness.backend();
              const stores: S[] = [];
              try {
                await run(backend, stores);
              } finally {
                for (const store of stores) await store.close();
              }
            },
          });
        }
      } finally {
        await harness.teardown();
      }
    });
  };
}

/**
 * A harness for an adapter that keeps its data inside the store (memory):
 * each case's back end is `backend()`, and cases that need a shared back end
 * are ignored.
 */
export function memoryHarness<B>(backend: () => B): Promise<Harness<B>> {
  return Promise.resolve({
    backend: () => Promise.resolve(backend()),
    teardown: () => Promise.resolve(),
    shared: false,
  });
}

/**
 * A harness for an adapter over files: each case's back end is `backend(dir)`
 * with `dir` a folder that does not exist yet (opening must create it),
 * inside a temporary folder named with `prefix` that teardown removes.
 */
export async function folderHarness<B>(
  prefix: string,
  backend: (dir: string) => B,
): Promise<Harness<B>> {
  const root = await Deno.makeTempDir({ prefix });
  let count = 0;
  return {
    backend: () => Promise.resolve(backend(join(root, `case-${++count}`, "nested"))),
    teardown: () => Deno.remove(root, { recursive: true }),
    shared: true,
  };
}

/**
 * A harness for an adapter over Redis: one real `redis-server` for the suite,
 * emptied before each case's back end, `backend(url)`.
 */
export async function redisHarness<B>(backend: (url: string) => B): Promise<Harness<B>> {
  const server = await startFlushableRedisServer();
  return {
    backend: async () => {
      await server.flush();
      return backend(server.url);
    },
    teardown: () => server.stop(),
    shared: true,
  };
}
