/**
 * The Logs page in headless Chromium while a worker logs steadily, against a
 * real engine in this process (console/_testing.ts): after the filter is
 * changed (the page reads the log again while entries keep arriving live),
 * each entry shows once, none is lost, newest first, and the table stays
 * bounded to its 1,000 rows.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { servedHarness } from "../../console/_testing.ts";

Deno.test({
  name: "console Logs: reading again under steady logging shows each entry once, none lost",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { harness, url, stop } = await servedHarness();
    let browser: Browser | undefined;
    let n = 0;
    let logging = true;
    // About 1,000 entries a second: the engine's log and the page's live feed overlap on each read.
    const writer = (async () => {
      while (logging) {
        for (let i = 0; i < 5; i++) harness.api.log.info(`seq ${n++} end`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);
      await page.goto(`${url}/logs`);
      await page.waitForSelector("[data-testid=logs] tbody tr");
      // Each filter matches every entry: the table is read again, the entries stay the same.
      for (const text of ["end", "seq", "end", "seq", "end", "seq"]) {
        const read = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/logs");
        await page.fill("input[name=text]", text);
        await read;
        const shown = n + 50;
        await page.waitForFunction(
          `document.querySelector("[data-testid=logs] tbody td.msg")?.textContent` +
            `.match(/seq (\\d+)/)?.[1] >= ${shown}`,
        );
      }
      logging = false;
      await writer;
      const last = n - 1;
      await page.waitForFunction(
        `document.querySelector("[data-testid=logs] tbody td.msg")?.textContent === "seq ${last} end"`,
      );
      const texts = await page.evaluate(
        `[...document.querySelectorAll("[data-testid=logs] tbody td.msg")].map((t) => t.textContent)`,
      ) as string[];
      assert.equal(texts.length, 1000, "the table holds the newest 1,000 entries");
      const numbers = texts.map((t) => Number(/^seq (\d+) end$/.exec(t)?.[1]));
      const expected = Array.from({ length: 1000 }, (_, i) => last - i);
      const twice = numbers.filter((x, i) => numbers.indexOf(x) !== i);
      assert.deepEqual(twice, [], "entries shown twice");
      assert.deepEqual(numbers, expected, "the newest 1,000 entries, newest first, none lost");
    } finally {
      logging = false;
      await writer;
      await browser?.close();
      await stop();
    }
  },
});
