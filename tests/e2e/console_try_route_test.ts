/**
 * The Triggers page's request form in headless Chromium, against a real
 * engine in this process with engine-http (console/_testing.ts): while a
 * request is under way the previous response is not left on screen as its
 * answer, and a huge response body shows its start and the rest on request.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { servedHarness } from "../../console/_testing.ts";

const HUGE = 1_000_000;

Deno.test({
  name: "console Triggers: sending a request shows it under way, then its response, a huge one cut",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { harness, url, stop } = await servedHarness();
    const gate = Promise.withResolvers<void>();
    let calls = 0;
    harness.api.registerFunction("probe::route", async () => {
      if (calls++ === 0) return { status_code: 200, body: { first: true } };
      await gate.promise;
      return { status_code: 200, body: { big: "b".repeat(HUGE) } };
    });
    harness.api.registerTrigger({
      type: "http",
      function_id: "probe::route",
      config: { api_path: "/route", http_method: "GET" },
    });
    while (harness.engine.engine.triggers.all().some((t) => t.status === "pending")) {
      await harness.api.call("engine::health::check", {});
    }
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);
      await page.goto(`${url}/triggers`);
      await page.click(".tabs button:has-text('http (')");
      await page.locator("tr", { hasText: "/route" }).getByRole("button", { name: "Try" }).click();
      const send = page.getByRole("button", { name: "Send request" });
      await send.click();
      const result = page.getByTestId("http-result");
      await result.filter({ hasText: '"first": true' }).waitFor();

      await send.click();
      // The second request waits for the gate: the form says so, not the first response.
      await page.getByTestId("http-pending").waitFor();
      assert.equal(await result.count(), 0, "the first response is still on screen");
      gate.resolve();
      await result.filter({ hasText: "HTTP 200" }).waitFor();
      assert.equal(await page.getByTestId("http-pending").count(), 0);
      const { height } = (await result.boundingBox())!;
      assert.ok(height < 600, `the response is ${height} px tall`);
      await result.getByTestId("show-all").click();
      const body = await result.locator("pre").last().textContent();
      assert.deepEqual(JSON.parse(body ?? ""), { big: "b".repeat(HUGE) });
    } finally {
      gate.resolve();
      await browser?.close();
      await stop();
    }
  },
});
