/**
 * A browser that falls behind the live feed loses events and is told how
 * many (`dropped`). In headless Chromium against a real engine in this
 * process (console/_testing.ts), with the console's per-browser buffer made
 * small so a burst of log lines overflows it: a function registered within
 * the burst (its change event lost with the lines) must still appear on the
 * Functions page, which reads its list again when told of lost events.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { servedHarness } from "../../console/_testing.ts";
import { createConsoleApp } from "../../console/server.ts";

Deno.test({
  name: "console Functions reads its list again when the browser lost live events",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { harness, stop } = await servedHarness();
    // The same engine and feed, served with a buffer of 5 events per browser.
    const app = createConsoleApp({ link: harness.link, feed: harness.feed, clientBuffer: 5 });
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, app.fetch);
    const url = `http://127.0.0.1:${server.addr.port}`;
    let browser: Browser | undefined;
    let droppedSeen = 0;
    try {
      browser = await launchChromium();
      const page = await browser.newPage();
      page.setDefaultTimeout(15_000);
      await page.goto(`${url}/functions`);
      await page.waitForSelector("tr[data-function='probe::echo']");
      await page.waitForSelector("#live.on");
      // Counts the dropped notices the page receives (the test's proof that events were lost).
      await page.exposeFunction("__dropped", () => droppedSeen++);
      await page.evaluate(`(() => {
        const es = new EventSource("/api/events");
        es.addEventListener("dropped", () => window.__dropped());
        window.__probe = es;
      })()`);
      for (let round = 0; round < 50 && droppedSeen === 0; round++) {
        for (let i = 0; i < 200; i++) harness.api.log.info(`burst ${round}.${i}`);
        if (round === 0) harness.api.registerFunction("probe::amid-burst", () => 1);
        // A later event carries the count of the lost ones.
        await harness.api.call("engine::health::check", {});
        await new Promise((resolve) => setTimeout(resolve, 20));
        harness.api.log.info(`after burst ${round}`);
      }
      assert.ok(droppedSeen > 0, "no events were lost: the test proves nothing");
      await page.waitForSelector("tr[data-function='probe::amid-burst']", { timeout: 5_000 })
        .catch(() => assert.fail("probe::amid-burst is registered but not listed"));
    } finally {
      await browser?.close();
      await server.shutdown();
      await stop();
    }
  },
});
