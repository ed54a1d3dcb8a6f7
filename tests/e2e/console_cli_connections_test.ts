/**
 * The console's Workers page, as `engine worker list`, does not list the
 * CLI's own connections (sdk "engine-cli": `engine logs -f`, a command
 * running) as workers, and says below the table how many there are. Headless
 * Chromium against a real engine in this process (console/_testing.ts), real
 * CLI connections (`EngineClient`) over WebSocket.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { EngineClient } from "../../cli/engine_url.ts";
import { servedHarness } from "../../console/_testing.ts";
import { launchChromium } from "../support/chromium.ts";

Deno.test({
  name: "console: Workers leaves out the CLI's own connections and counts them below the table",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { harness, url, stop } = await servedHarness();
    let browser: Browser | undefined;
    let follow: EngineClient | undefined;
    try {
      follow = await EngineClient.connect(harness.engine.url, { name: "engine-logs" });
      await follow.call("engine::health::check", {});
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);
      await page.goto(`${url}/workers`);
      await page.waitForSelector("tr[data-worker='probe']");
      const count = page.getByTestId("cli-connections");
      await count.waitFor();
      assert.match(
        await count.innerText(),
        /^1 connection of the engine CLI itself \(engine logs -f, a command running\) is not listed$/,
      );
      assert.equal(await page.locator("tr[data-worker='engine-logs']").count(), 0);

      // It leaves: the line goes with the next change.
      await follow.close();
      follow = undefined;
      await count.waitFor({ state: "detached" });
      assert.equal(await page.locator("tr[data-worker='probe']").count(), 1);
    } finally {
      await follow?.close();
      await browser?.close();
      await stop();
    }
  },
});
