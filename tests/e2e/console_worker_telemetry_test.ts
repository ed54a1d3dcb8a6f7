/**
 * The Workers page shows what a worker said of itself with
 * `engine::workers::register`: the project, framework and language of its
 * telemetry (as the npm iii-sdk sends them) and its isolation, each named,
 * and nothing for a worker that said none. Headless Chromium against a real
 * engine in this process, workers on raw WebSockets.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { RawWorker } from "../support/raw_worker.ts";
import { servedHarness } from "../../console/_testing.ts";

Deno.test({
  name: "console Workers: a worker's project, framework, language and isolation where given",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const { harness, url, stop } = await servedHarness();
    const workers: RawWorker[] = [];
    let browser: Browser | undefined;
    try {
      const told = await RawWorker.connect(harness.engine.url);
      workers.push(told);
      await told.call("engine::workers::register", {
        name: "orders-api",
        runtime: "node",
        isolation: "docker",
        telemetry: {
          language: "en-US",
          project_name: "shop",
          framework: "iii-node",
          amplitude_api_key: "not-shown",
        },
      });
      const quiet = await RawWorker.connect(harness.engine.url);
      workers.push(quiet);
      await quiet.call("engine::workers::register", { name: "quiet", runtime: "deno" });
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);
      await page.goto(`${url}/workers`);
      const row = (name: string) => page.locator(`tr[data-worker="${name}"]`);
      await row("quiet").waitFor();

      await t.step("what the worker said, each named", async () => {
        const cells = row("orders-api").locator("td");
        assert.match(await cells.nth(0).innerText(), /^orders-api\nproject shop$/);
        assert.equal(
          await cells.nth(1).innerText(),
          "node\nframework iii-node · language en-US · isolation docker",
        );
        assert.doesNotMatch(await row("orders-api").innerText(), /not-shown/);
      });

      await t.step("nothing for a worker that said none", async () => {
        assert.equal(await row("quiet").locator("td").nth(0).innerText(), "quiet");
        assert.equal(await row("quiet").locator("td").nth(1).innerText(), "deno");
        assert.equal(await row("quiet").getByTestId("runtime-about").count(), 0);
      });
      await t.step("a worker saying more later changes its row in place", async () => {
        await page.evaluate(`document.querySelector('tr[data-worker="quiet"]').marked = true`);
        await quiet.call("engine::workers::register", {
          name: "quiet",
          runtime: "deno",
          isolation: "firecracker",
        });
        await row("quiet").getByText("isolation firecracker").waitFor();
        assert.equal(
          await page.evaluate(`document.querySelector('tr[data-worker="quiet"]').marked`),
          true,
        );
      });
    } finally {
      for (const w of workers) await w.close();
      await browser?.close();
      await stop();
    }
  },
});
