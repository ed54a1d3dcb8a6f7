/**
 * The Logs page links an entry to its trace at `/traces/<id>`: a trace id is
 * whatever a worker's log call said (`engine::log::*` takes any string), so
 * it is encoded into the link and cannot point at another console page.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { servedHarness } from "../../console/_testing.ts";

Deno.test({
  name: "console Logs: a trace id with a slash links to that trace, not to another page",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { harness, url, stop } = await servedHarness();
    let browser: Browser | undefined;
    try {
      harness.api.log.child({ traceId: "../state" }).info("odd trace id");
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);
      await page.goto(`${url}/logs`);
      const link = page.locator("[data-testid=logs] tbody tr", { hasText: "odd trace id" }).locator(
        "a",
      );
      assert.equal(await link.getAttribute("href"), "/traces/..%2Fstate");
      await link.click();
      await page.waitForURL("**/traces/..%2Fstate");
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
