/**
 * The Workers page in headless Chromium with 300 worker connections (raw
 * WebSockets) to a real engine in this process: after workers come and go,
 * the table lists exactly the connected ones, in order, with their current
 * function counts; rows of workers that did not change are the same
 * elements (not built anew), and a function list the operator opened stays
 * open, with the focus where it was.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { RawWorker } from "../support/raw_worker.ts";
import { servedHarness } from "../../console/_testing.ts";

const MANY = 300;

/** Connects a raw worker named `name`, with `functions` registered. */
async function connect(url: string, name: string, functions: string[] = []): Promise<RawWorker> {
  const w = await RawWorker.connect(url);
  await w.call("engine::workers::register", { name });
  for (const id of functions) w.send({ type: "registerfunction", id });
  // Frames of one connection are handled in order: the pong says the registrations are in.
  const pong = w.next((f) => f.type === "pong");
  w.send({ type: "ping" });
  await pong;
  return w;
}

interface Listed {
  name: string;
  kind: string;
  function_count: number;
}

/** The page's order: connected workers by name, built-in ones after them. */
async function expected(url: string): Promise<string[]> {
  const { workers } = await (await fetch(`${url}/api/workers`)).json() as { workers: Listed[] };
  const order = (w: Listed) => (w.kind === "builtin" ? 1 : 0);
  return workers.sort((a, b) => order(a) - order(b) || a.name.localeCompare(b.name))
    .map((w) => `${w.name} ${w.function_count}`);
}

/** Each row as "name function-count", in order. */
const SHOWN = `[...document.querySelectorAll("tr[data-worker]")].map((tr) =>
  tr.dataset.worker + " " + tr.querySelector("td[data-label=Functions]").firstChild.textContent)`;

/**
 * Waits until the console's API lists what `until` wants (it may still list workers whose
 * connection just closed), then until the table shows that.
 */
async function waitForTable(
  page: Page,
  url: string,
  until: (rows: string[]) => boolean = () => true,
): Promise<void> {
  let want: string[] = [];
  for (let tries = 0; tries < 100; tries++) {
    want = await expected(url);
    if (!until(want)) {
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    try {
      await page.waitForFunction(
        `JSON.stringify(${SHOWN}) === ${JSON.stringify(JSON.stringify(want))}`,
        undefined,
        { timeout: 1_000 },
      );
      return;
    } catch {
      // The list may have changed meanwhile (a worker registered): ask again.
    }
  }
  assert.deepEqual(await page.evaluate(SHOWN), want);
}

Deno.test({
  name: "console Workers page keeps rows of unchanged workers among 300 while others come and go",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const { harness, url, stop } = await servedHarness();
    const engineUrl = harness.engine.url;
    const workers: RawWorker[] = [];
    let browser: Browser | undefined;
    try {
      for (let i = 0; i < MANY; i += 50) {
        workers.push(
          ...await Promise.all(
            Array.from({ length: 50 }, (_, j) => {
              const n = String(i + j).padStart(3, "0");
              return connect(engineUrl, `many-${n}`, [`many::f${n}`]);
            }),
          ),
        );
      }
      const [many100, many200] = [workers[100]!, workers[200]!];
      // Two connections of one name (replicas) are two rows.
      workers.push(await connect(engineUrl, "twin"), await connect(engineUrl, "twin"));
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(20_000);
      await page.goto(`${url}/workers`);
      await waitForTable(page, url);

      await t.step("after connects and disconnects the table lists the connected", async () => {
        // Mark every row; open one worker's function list and put the focus on it.
        await page.evaluate(`
          for (const tr of document.querySelectorAll("tr[data-worker]")) tr.marked = true;
          const summary = document.querySelector("tr[data-worker=many-150] details summary");
          summary.click();
          summary.focus();`);
        const gone = workers.splice(0, 40); // many-000 … many-039
        await Promise.all(gone.map((w) => w.close()));
        workers.push(
          ...await Promise.all(
            Array.from({ length: 40 }, (_, i) => connect(engineUrl, `late-${i}`)),
          ),
        );
        await waitForTable(page, url, (rows) => !rows.some((r) => /^many-0[0-3]\d /.test(r)));
        const { unmarked, open, focused } = await page.evaluate(`({
          unmarked: [...document.querySelectorAll("tr[data-worker]")]
            .filter((tr) => !tr.marked).map((tr) => tr.dataset.worker),
          open: document.querySelector("tr[data-worker=many-150] details")?.open,
          focused: document.activeElement?.closest("tr")?.dataset.worker,
        })`) as { unmarked: string[]; open: boolean; focused: string | undefined };
        assert.deepEqual(
          unmarked.sort(),
          Array.from({ length: 40 }, (_, i) => `late-${i}`).sort(),
          "rows of workers that did not change were built anew",
        );
        assert.equal(open, true, "the opened function list closed");
        assert.equal(focused, "many-150", "the focus left the opened function list");
      });

      await t.step("a worker's new function changes its row in place", async () => {
        many200.send({ type: "registerfunction", id: "many::extra" });
        await page.waitForFunction(
          `document.querySelector("tr[data-worker=many-200] td[data-label=Functions]")
            ?.textContent.startsWith("2")`,
        );
        await waitForTable(page, url);
        const marked = await page.evaluate(
          `document.querySelector("tr[data-worker=many-200]").marked === true`,
        );
        assert.ok(marked, "the row of the worker that changed was built anew");
        const listed = await page.evaluate(
          `document.querySelector("tr[data-worker=many-200] details").textContent`,
        ) as string;
        assert.match(listed, /many::extra/);
      });

      await t.step(
        "a call in flight shows in its worker's row from the queue snapshots",
        async () => {
          const reads: string[] = [];
          page.on("request", (r) => {
            if (new URL(r.url()).pathname === "/api/workers") reads.push(r.url());
          });
          const inFlight = page.locator("tr[data-worker=many-100] td[data-label='In flight']");
          const invoked = many100.next((f) => f.type === "invokefunction");
          const call = harness.api.call("many::f100", {});
          const frame = await invoked;
          await inFlight.filter({ hasText: /^1$/ }).waitFor();
          many100.send({
            type: "invocationresult",
            invocation_id: frame.invocation_id,
            function_id: "many::f100",
            result: null,
          });
          await call;
          await inFlight.filter({ hasText: /^0$/ }).waitFor();
          // At most a late read of the changes before: none for the counts.
          assert.ok(reads.length <= 1, `the list was read ${reads.length} times for two counts`);
          const marked = await page.evaluate(
            `document.querySelector("tr[data-worker=many-100]").marked === true`,
          );
          assert.ok(marked, "the row was built anew");
        },
      );
    } finally {
      await browser?.close();
      await Promise.all(workers.map((w) => w.close()));
      await stop();
    }
  },
});
