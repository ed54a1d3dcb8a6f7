/**
 * Names without spaces that are longer than a column (a worker named by a
 * generator, a hash, a path) in headless Chromium, against a real engine in
 * this process (console/_testing.ts) with a real SDK worker over WebSocket:
 * they wrap inside their cell, so the tables stay within the window and the
 * other columns (Status, In flight, the function ids) stay readable; HTML
 * in the name is shown as text.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { ROOT } from "../support/engine_process.ts";
import { servedHarness } from "../../console/_testing.ts";
import { registerWorker } from "../../sdk/typescript/mod.ts";

const ARTIFACTS = `${ROOT}tests/artifacts/console/`;
const NAME = `<img src=x onerror="window.__pwned=1">${"w".repeat(300)}`;

async function fitsWindow(page: Page, what: string): Promise<void> {
  const [scroll, width] = await page.evaluate(
    "[document.documentElement.scrollWidth, document.documentElement.clientWidth]",
  ) as [number, number];
  assert.ok(scroll <= width, `${what}: the page is ${scroll} px wide in a ${width} px window`);
  assert.equal(await page.evaluate("window.__pwned"), undefined, `${what}: the name ran as HTML`);
}

Deno.test({
  name: "console: a very long worker name wraps in its cell on Workers, Functions and Logs",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const { harness, url, stop } = await servedHarness();
    const worker = registerWorker(harness.engine.url, { worker_name: NAME });
    let browser: Browser | undefined;
    try {
      worker.registerFunction("long::named", () => 1);
      await worker.trigger({ function_id: "engine::health::check", payload: {} });
      harness.api.log.child({ source: NAME, worker: NAME }).info("from the long-named worker");
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);

      await t.step("Workers", async () => {
        await page.goto(`${url}/workers`);
        await page.waitForSelector("[data-testid=workers] tbody tr td strong");
        await page.waitForFunction(
          `[...document.querySelectorAll("tr[data-worker]")].some((r) => r.dataset.worker === ${
            JSON.stringify(NAME)
          })`,
        );
        await page.screenshot({ path: `${ARTIFACTS}long-name-workers.png`, fullPage: true });
        await fitsWindow(page, "Workers");
      });

      await t.step("Functions", async () => {
        await page.goto(`${url}/functions`);
        await page.waitForSelector("tr[data-function='long::named']");
        await page.screenshot({ path: `${ARTIFACTS}long-name-functions.png` });
        await fitsWindow(page, "Functions");
        // The function ids are not squeezed to a few letters a line by the worker's name.
        const id = await page.locator("tr[data-function='engine::health::check'] td").first()
          .boundingBox();
        assert.ok(id && id.height < 40, `engine::health::check's cell is ${id?.height} px tall`);
      });

      await t.step("Logs", async () => {
        await page.goto(`${url}/logs?text=long-named`);
        await page.waitForSelector("[data-testid=logs] tbody td.msg");
        await page.screenshot({ path: `${ARTIFACTS}long-name-logs.png` });
        await fitsWindow(page, "Logs");
      });
    } finally {
      await worker.shutdown();
      await browser?.close();
      await stop();
    }
  },
});
