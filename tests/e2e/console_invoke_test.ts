/**
 * Invoking a function from the console's Functions page in headless Chromium,
 * against a real engine in this process (console/_testing.ts): the payload
 * typed is the payload sent (`null` included), a huge result does not turn
 * the page into a million pixels of text, a call under way does not leave the
 * previous answer on screen as its own, and the form of a function that is
 * no longer registered says so.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { servedHarness } from "../../console/_testing.ts";

const HUGE = 2_000_000;

Deno.test({
  name: "console Functions: invoking shows what was sent and answered, and nothing stale",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const { harness, url, stop } = await servedHarness();
    harness.api.registerFunction("probe::huge", () => ({ big: "y".repeat(HUGE), end: "END" }));
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);
      const invoke = async (fn: string, payload: string) => {
        await page.goto(`${url}/functions?fn=${encodeURIComponent(fn)}`);
        await page.waitForSelector("textarea[name=payload]");
        await page.fill("textarea[name=payload]", payload);
        await page.click("button:has-text('Invoke')");
        await page.waitForSelector("[data-testid=invoke-result]");
      };

      const payloads: [typed: string, echoed: unknown][] = [
        ["null", null],
        ["{}", {}],
        ["0", 0],
        ['"<b>x</b>"', "<b>x</b>"],
        ["", {}], // nothing typed: an empty object
      ];
      for (const [typed, echoed] of payloads) {
        await t.step(
          `the payload ${JSON.stringify(typed)} reaches the function as typed`,
          async () => {
            await invoke("probe::echo", typed);
            const shown = await page.textContent("[data-testid=invoke-result] pre");
            assert.deepEqual(JSON.parse(shown ?? ""), { echoed });
          },
        );
      }

      await t.step("a result of 2 MB shows its start and the rest on request", async () => {
        await invoke("probe::huge", "{}");
        const result = page.locator("[data-testid=invoke-result]");
        const { height } = (await result.boundingBox())!;
        assert.ok(height < 600, `the result is ${height} px tall`);
        assert.match((await result.textContent()) ?? "", /^Result · /);
        await page.click("[data-testid=invoke-result] [data-testid=show-all]");
        const whole = await page.textContent("[data-testid=invoke-result] pre");
        assert.deepEqual(JSON.parse(whole ?? ""), { big: "y".repeat(HUGE), end: "END" });
      });

      await t.step(
        "while a call is under way, the previous answer is not shown as its answer",
        async () => {
          const gate = Promise.withResolvers<void>();
          let calls = 0;
          harness.api.registerFunction(
            "probe::slow",
            async () => calls++ === 0 ? "first answer" : (await gate.promise, "second answer"),
          );
          await invoke("probe::slow", "{}");
          assert.equal(await page.textContent("[data-testid=invoke-result] pre"), '"first answer"');
          await page.click("button:has-text('Invoke')");
          // The second call waits for the gate: the panel says it is under way, not the first answer.
          await page.waitForSelector("[data-testid=invoke-pending]");
          assert.equal(await page.locator("[data-testid=invoke-result]").count(), 0);
          gate.resolve();
          await page.waitForSelector("[data-testid=invoke-result]");
          assert.equal(
            await page.textContent("[data-testid=invoke-result] pre"),
            '"second answer"',
          );
          assert.equal(await page.locator("[data-testid=invoke-pending]").count(), 0);
        },
      );

      await t.step(
        "the selected function going away is said on its panel, and coming back too",
        async () => {
          let off = harness.api.registerFunction("probe::brief", () => "here");
          await page.goto(`${url}/functions?fn=probe::brief`);
          await page.waitForSelector(".panel h2");
          assert.equal(await page.locator("[data-testid=function-gone]").count(), 0);
          off();
          await page.waitForSelector("[data-testid=function-gone]");
          assert.match(
            (await page.textContent("[data-testid=function-gone]")) ?? "",
            /^probe::brief is no longer registered/,
          );
          off = harness.api.registerFunction("probe::brief", () => "back");
          await page.waitForSelector("[data-testid=function-gone]", { state: "detached" });
          await page.click("button:has-text('Invoke')");
          await page.waitForSelector("[data-testid=invoke-result]");
          assert.equal(await page.textContent("[data-testid=invoke-result] pre"), '"back"');
          off();
        },
      );
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
