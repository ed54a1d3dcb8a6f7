/**
 * Test support: one suite of cases for a store interface, run against every
 * adapter (the state and queue workers' `adapters/conformance_test.ts`). Each
 * adapter gets one `Deno.test` with a step per case; every case starts on a
 * fresh back end, and the stores it opened are closed after it.
 *
 * @module
 */

/** What a store must offer for the suite to release it. */
export interface Closable {
  close(): unknown;
}

/** What an adapter's set-up started, for every case of the suite. */
export interface Harness<B> {
  /** A fresh, empty back end for one case. */
  backend(): Promise<B>;
  /** Releases what the harness started. */
  teardown(): Promise<void>;
}

/** One case: it opens stores on `backend` and pushes each onto `stores` to have it closed. */
export type StoreCase<B, S extends Closable> = (backend: B, stores: S[]) => Promise<void>;

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
        for (const [title, run] of Object.entries(cases)) {
          await t.step(title, async () => {
            const backend = await harness.backend();
            const stores: S[] = [];
            try {
              await run(backend, stores);
            } finally {
              for (const store of stores) await store.close();
            }
          });
        }
      } finally {
        await harness.teardown();
      }
    });
  };
}
