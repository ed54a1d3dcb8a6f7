/**
 * The console by keyboard and with a screen reader, in headless Chromium
 * against a real engine in this process (console/_testing.ts): every form
 * field of every page has a name a screen reader can say (a placeholder is
 * not one), and a function on Functions opens from the keyboard as with a
 * click.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { servedHarness } from "../../console/_testing.ts";

const PAGES = ["workers", "functions", "triggers", "queues", "logs", "traces", "state"];

Deno.test({
  name: "console: form fields are labelled and a function opens from the keyboard",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const { url, stop } = await servedHarness();
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);

      for (const name of PAGES) {
        await t.step(`${name}: every field has a label`, async () => {
          await page.goto(`${url}/${name}`);
          await page.waitForSelector(`#page-${name} h1`);
          await page.waitForFunction(
            `!document.querySelector("#page-${name}").innerText.includes("Loading…")`,
          );
          const unnamed = await page.evaluate(`[...document.querySelectorAll(
            "#main input, #main select, #main textarea")].filter((el) =>
              !(el.labels && el.labels.length) && !el.getAttribute("aria-label") &&
              !el.getAttribute("aria-labelledby")
            ).map((el) => el.outerHTML)`) as string[];
          assert.deepEqual(unnamed, [], `${name}: fields without a label`);
        });
      }

      await t.step("Functions: Tab reaches a function, Enter opens its form", async () => {
        await page.goto(`${url}/functions`);
        await page.waitForSelector("tr[data-function='probe::echo']");
        await page.focus("input[type=search]");
        let focused = "";
        for (let i = 0; i < 10 && focused !== "engine::channels::create"; i++) {
          await page.keyboard.press("Tab");
          focused = await page.evaluate(
            "document.activeElement.closest('tr')?.dataset.function ?? ''",
          ) as string;
        }
        assert.equal(focused, "engine::channels::create", "the first function takes the focus");
        await page.keyboard.press("ArrowDown");
        await page.keyboard.press("Enter");
        await page.waitForSelector(".panel h2");
        assert.notEqual(await page.textContent(".panel h2"), "");
        assert.equal(
          await page.textContent(".panel h2"),
          await page.evaluate("document.activeElement.closest('tr')?.dataset.function") ??
            "the focused row",
        );
      });
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
