/**
 * The Functions page in headless Chromium with 1,200 functions, against a
 * real engine in this process: a call in flight shows in its row from the
 * queue snapshots without reading the list again or building rows anew,
 * a new function adds one row, and a gone one is removed in place (the rows
 * after it are not moved, and the focus on one of them stays). Screenshots land in
 * tests/artifacts/console/functions-*.png.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { ROOT } from "../support/engine_process.ts";
import { servedHarness } from "../../console/_testing.ts";

const ARTIFACTS = `${ROOT}tests/artifacts/console/`;
const MANY = 1200;

Deno.test({
  name: "console Functions page updates only what changed among 1,200 functions",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const { harness, url, stop } = await servedHarness();
    let browser: Browser | undefined;
    try {
      const unregister: (() => void)[] = [];
      for (let i = 0; i < MANY; i++) {
        unregister.push(
          harness.api.registerFunction(`bulk::f${String(i).padStart(4, "0")}`, () => i),
        );
      }
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);
      await page.goto(`${url}/functions`);
      await page.waitForSelector(`tr[data-function='bulk::f${MANY - 1}']`);
      await page.waitForSelector("tr[data-function='probe::wait']");
      // Mark every row, and count the elements the page adds from now on.
      await page.evaluate(`
        for (const tr of document.querySelectorAll("tr[data-function]")) tr.marked = true;
        window.added = 0;
        new MutationObserver((changes) => {
          for (const c of changes) {
            for (const n of c.addedNodes) {
              if (n.nodeType === 1) window.added += 1 + n.querySelectorAll("*").length;
            }
          }
        }).observe(document.getElementById("main"), { childList: true, subtree: true });`);
      const reads: string[] = [];
      page.on("request", (r) => {
        if (new URL(r.url()).pathname === "/api/functions") reads.push(r.url());
      });
      const inFlight = "tr[data-function='probe::wait'] td:nth-child(4)";

      await t.step("a call in flight shows in its row, and its end too", async () => {
        const call = harness.api.call("probe::wait", {});
        await page.locator(inFlight).filter({ hasText: /^1$/ }).waitFor();
        await page.locator("tr[data-function='probe::wait']").scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${ARTIFACTS}functions-in-flight.png` });
        harness.release();
        await call;
        await page.locator(inFlight).filter({ hasText: /^0$/ }).waitFor();
        assert.deepEqual(reads, [], "the list was read again for a queue snapshot");
        const added = await page.evaluate("window.added") as number;
        assert.ok(added <= 4, `${added} elements were added for two changes of a count`);
        const unmarked = await page.evaluate(
          `[...document.querySelectorAll("tr[data-function]")].filter((tr) => !tr.marked).length`,
        );
        assert.equal(unmarked, 0, "rows were built anew");
      });

      await t.step("a new function adds its row and leaves the others be", async () => {
        await page.evaluate("window.added = 0");
        harness.api.registerFunction("bulk::late", () => null);
        await page.waitForSelector("tr[data-function='bulk::late']");
        const added = await page.evaluate("window.added") as number;
        assert.ok(added < 20, `${added} elements were added for one new function`);
        const [rows, unmarked] = await page.evaluate(`(() => {
          const rows = [...document.querySelectorAll("tr[data-function]")];
          return [rows.length, rows.filter((tr) => !tr.marked).map((tr) => tr.dataset.function)];
        })()`) as [number, string[]];
        assert.deepEqual(unmarked, ["bulk::late"]);
        assert.ok(rows > MANY, `${rows} rows`);
        // In the list's order: the new row sits among its neighbours.
        const listed = (await (await fetch(`${url}/api/functions`)).json()).functions.map((
          f: { function_id: string },
        ) => f.function_id);
        const shown = await page.evaluate(
          `[...document.querySelectorAll("tr[data-function]")].map((tr) => tr.dataset.function)`,
        );
        assert.deepEqual(shown, listed);
      });

      await t.step("the filter hides and shows rows without building them anew", async () => {
        await page.fill("input[type=search]", "probe::");
        await page.waitForFunction(
          `document.querySelectorAll("tr[data-function]").length < 10`,
        );
        await page.fill("input[type=search]", "");
        await page.waitForFunction(
          `document.querySelectorAll("tr[data-function]").length > ${MANY}`,
        );
        const unmarked = await page.evaluate(
          `[...document.querySelectorAll("tr[data-function]")].filter((tr) => !tr.marked)
            .map((tr) => tr.dataset.function)`,
        );
        assert.deepEqual(unmarked, ["bulk::late"]);
      });

      await t.step("a function gone above the focused row leaves that row be", async () => {
        await page.evaluate(`(() => {
          window.removed = 0;
          new MutationObserver((changes) => {
            for (const c of changes) for (const n of c.removedNodes) if (n.nodeType === 1) window.removed++;
          }).observe(document.querySelector("[data-testid=functions] tbody"), { childList: true });
          document.querySelector("tr[data-function='bulk::f0600']").focus();
        })()`);
        unregister[1]!();
        await page.waitForSelector("tr[data-function='bulk::f0001']", { state: "detached" });
        const state = await page.evaluate(`({
          focused: document.activeElement?.dataset.function,
          marked: document.activeElement?.marked === true,
          removed: window.removed,
        })`) as { focused: string | undefined; marked: boolean; removed: number };
        assert.equal(state.focused, "bulk::f0600", "the focus left the row");
        assert.ok(state.marked, "the focused row was built anew");
        assert.equal(state.removed, 1, "rows after the gone one were moved");
      });
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
