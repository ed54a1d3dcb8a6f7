/**
 * The console as an operator reads it in headless Chromium, against a real
 * engine in this process (console/_testing.ts) served on a free port: what
 * the Workers page says stays true while the page stays open, a very long
 * log line does not fill screens, and a narrow window still shows log
 * messages and a trace's waterfall, and filters survive a reload. Screenshots land in
 * tests/artifacts/console/operator-*.png.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { ROOT } from "../support/engine_process.ts";
import { eventually } from "../support/local_worker.ts";
import { servedHarness } from "../../console/_testing.ts";

const ARTIFACTS = `${ROOT}tests/artifacts/console/`;

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({
    path: `${ARTIFACTS}operator-${name}.png`,
    fullPage: true,
    timeout: 60_000,
  });
}

async function box(page: Page, selector: string) {
  const found = await page.locator(selector).first().boundingBox();
  assert.ok(found, `${selector} is not shown`);
  return found;
}

Deno.test({
  name: "console keeps an operator's view true and readable: live ages, open lists, long lines",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const { harness, url, stop } = await servedHarness();
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);

      await t.step(
        "Workers: 'connected … ago' goes on counting while the page is open",
        async () => {
          await page.goto(`${url}/workers`);
          const cell = page.locator("tr[data-worker=probe] td").nth(4);
          const first = await cell.textContent();
          assert.match(first ?? "", /s ago$/);
          // Nothing changes in the engine meanwhile: only the clock moves.
          const cellText = 'document.querySelectorAll("tr[data-worker=probe] td")[4]?.textContent';
          await page.waitForFunction(`${cellText} !== ${JSON.stringify(first)}`, undefined, {
            timeout: 5_000,
          });
          assert.match((await cell.textContent()) ?? "", /s ago$/);
        },
      );

      await t.step(
        "Workers: a function list the operator opened stays open on a change",
        async () => {
          await page.click("tr[data-worker=probe] details summary");
          harness.api.registerFunction("probe::late", () => null);
          // The table was drawn again with the new function.
          await page.waitForFunction(
            'document.querySelector("tr[data-worker=probe]")?.textContent?.includes("probe::late")',
          );
          assert.equal(
            await page.evaluate('document.querySelector("tr[data-worker=probe] details")?.open'),
            true,
          );
        },
      );

      const long = `${"x".repeat(20_000)} END-OF-LONG`;
      harness.api.log.warn(long);
      harness.api.log.info("narrow-check: the message an operator must read in a small window");

      await t.step(
        "Logs: a 20,000-character line shows its start and the rest on request",
        async () => {
          await page.goto(`${url}/logs?text=END-OF-LONG`);
          const msg = "[data-testid=logs] tbody tr td.msg";
          await page.waitForSelector(msg);
          const before = await box(page, msg);
          assert.ok(before.height < 300, `the entry is ${before.height} px tall`);
          await shot(page, "long-line");
          await page.click(`${msg} [data-testid=show-all]`);
          const text = await page.locator(msg).first().textContent();
          assert.ok(text?.includes(long), "the whole message is shown after 'show all'");
        },
      );

      await t.step("Functions: the filter and the selected function survive a reload", async () => {
        await page.goto(`${url}/functions`);
        await page.waitForSelector("tr[data-function='probe::echo']");
        await page.fill("input[type=search]", "probe::");
        await page.click("tr[data-function='probe::echo']");
        await page.waitForSelector("[data-testid=function-links]");
        await page.reload();
        await page.waitForSelector("tr[data-function='probe::echo'].selected");
        assert.equal(await page.inputValue("input[type=search]"), "probe::");
        assert.equal(await page.locator("tr[data-function='engine::health::check']").count(), 0);
        assert.equal(await page.textContent(".panel h2"), "probe::echo");
      });

      await t.step("Triggers: the type shown survives a reload", async () => {
        await page.goto(`${url}/triggers`);
        await page.click(".tabs button:has-text('http (')");
        await page.waitForSelector(".tabs button.on:has-text('http (')");
        await page.reload();
        await page.waitForSelector("[data-testid=triggers]");
        assert.match((await page.textContent(".tabs button.on")) ?? "", /^http \(/);
      });

      await page.setViewportSize({ width: 420, height: 800 });

      await t.step(
        "Logs in a narrow window: the message is on screen, across the width",
        async () => {
          await page.goto(`${url}/logs?text=narrow-check`);
          const msg = "[data-testid=logs] tbody tr td.msg";
          await page.waitForSelector(msg);
          const m = await box(page, msg);
          assert.ok(m.x >= 0 && m.x + m.width <= 420, `the message is at ${m.x}..${m.x + m.width}`);
          assert.ok(m.width >= 300, `the message is ${m.width} px wide`);
          await shot(page, "narrow-logs");
        },
      );

      await t.step(
        "a trace in a narrow window: the waterfall fits, the page does not scroll sideways",
        async () => {
          const response = await fetch(`${harness.httpBase}/hello`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{}",
          });
          assert.equal(response.status, 200);
          await response.body?.cancel();
          let traceId = "";
          await eventually(async () => {
            const { traces } = await (await fetch(`${url}/api/traces?limit=20`)).json();
            traceId = traces.find((t: { rootName: string }) => t.rootName === "POST /hello")
              ?.traceId ?? "";
            return traceId !== "";
          }, "the trace of POST /hello");
          await page.goto(`${url}/traces/${traceId}`);
          await page.waitForSelector("[data-testid=waterfall] .wf-row");
          const [scroll, width] = await page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]",
          ) as [number, number];
          assert.ok(scroll <= width, `the page is ${scroll} px wide in ${width} px`);
          const dur = await box(page, "[data-testid=waterfall] .wf-row .wf-dur");
          assert.ok(dur.x + dur.width <= 420, "the duration column is on screen");
          await shot(page, "narrow-trace");
        },
      );
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
