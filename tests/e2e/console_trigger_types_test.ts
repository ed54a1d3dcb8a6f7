/**
 * The console's Triggers page says what a trigger type is and who provides
 * it: the engine's own types (`engine::workers-available`,
 * `engine::functions-available`, `log`) included, with no trigger of the type
 * as with some. Headless Chromium against a real engine in this process
 * (console/_testing.ts).
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { servedHarness } from "../../console/_testing.ts";

Deno.test({
  name: "console Triggers: a type's tab says what the type is and which worker provides it",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const { harness, url, stop } = await servedHarness();
    harness.api.registerFunction("ops::on-error", () => null);
    harness.api.registerTrigger({
      type: "log",
      function_id: "ops::on-error",
      config: { level: "error" },
    });
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);
      const about = page.getByTestId("trigger-type");

      await t.step("log, with its trigger and its config", async () => {
        await page.goto(`${url}/triggers?type=log`);
        await page.waitForSelector("tr[data-trigger] >> text=ops::on-error");
        assert.match(
          await about.innerText(),
          /^Fires with every entry of the engine's log at or above the trigger's level · provided by engine$/,
        );
        assert.match(await page.locator("tr[data-trigger]").innerText(), /\blevel error\b/);
      });

      const cases: [type: string, says: RegExp][] = [
        ["engine::workers-available", /worker connects, disconnects/],
        ["engine::functions-available", /function list when functions register/],
      ];
      for (const [type, says] of cases) {
        await t.step(`${type}, with no trigger of it yet`, async () => {
          await page.goto(`${url}/triggers?type=${encodeURIComponent(type)}`);
          await about.waitFor();
          const text = await about.innerText();
          assert.match(text, says);
          assert.match(text, / · provided by engine$/);
          assert.match(
            await page.locator("#page-triggers").innerText(),
            /No triggers of this type/,
          );
          // The tab names the type and says what it is on hover.
          const tab = page.locator(`button[data-type="${type}"]`);
          assert.match((await tab.getAttribute("title")) ?? "", says);
        });
      }
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
