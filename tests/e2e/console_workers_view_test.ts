/**
 * The Workers page in headless Chromium against a real engine process with a
 * supervised worker that prints a long line every few hundred milliseconds:
 * its "Recent output" stays where the operator scrolled it (and follows new
 * lines only from the end), and in a 420 px window each worker is a block
 * with every column, Status included, on screen. Screenshots land in
 * tests/artifacts/console/workers-*.png.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { startConsoleEngine } from "../support/console_engine.ts";
import { launchChromium } from "../support/chromium.ts";
import { ROOT } from "../support/engine_process.ts";

const ARTIFACTS = `${ROOT}tests/artifacts/console/`;

/** A long line every 150 ms: eight of them overflow the output box at any window width. */
const DRIP = `let i = 0;
setInterval(() => {
  console.log(\`drip line \${i++} \${"of steady output that wraps in the box ".repeat(12)}\`);
}, 150);
`;

const OUTPUT = "tr[data-output=drip] pre.output";

/**
 * Runs `body` on the output box inside the page, in one go: the table is redrawn with every
 * line, so a box found by one call may be gone (detached, 0 px high) by the next.
 */
async function onOutput<T>(page: Page, body: string): Promise<T> {
  return await page.evaluate(
    `((el) => (${body}))(document.querySelector(${JSON.stringify(OUTPUT)}))`,
  ) as T;
}

/** The number of the last line in the output box. */
async function lastLine(page: Page): Promise<number> {
  const text = await onOutput<string>(page, "el?.textContent ?? ''");
  const numbers = [...text.matchAll(/drip line (\d+)/g)].map((m) => Number(m[1]));
  return numbers.at(-1) ?? -1;
}

/** Waits until the output box shows a line `more` lines past the last one shown now. */
async function waitForLines(page: Page, more: number): Promise<void> {
  const target = (await lastLine(page)) + more;
  await page.waitForFunction(
    `document.querySelector(${
      JSON.stringify(OUTPUT)
    })?.textContent.includes("drip line ${target} ")`,
  );
}

const AT_END = "el.scrollTop + el.clientHeight >= el.scrollHeight - 2";

async function scrollState(page: Page) {
  return await onOutput<{ top: number; atEnd: boolean; overflows: boolean }>(
    page,
    `{ top: el.scrollTop, atEnd: ${AT_END}, overflows: el.scrollHeight > el.clientHeight }`,
  );
}

Deno.test({
  name: "console Workers page keeps the operator's place in the output and fits a narrow window",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const { engine, url } = await startConsoleEngine({
      name: "drip",
      start: "deno run main.ts",
      files: { "main.ts": DRIP },
    });
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(20_000);
      await page.goto(`${url}/workers`);
      await page.waitForSelector(OUTPUT);
      await waitForLines(page, 10);

      await t.step("output scrolled up stays put while new lines arrive", async () => {
        const before = await scrollState(page);
        assert.ok(before.overflows, "eight wrapped lines overflow the box");
        assert.ok(before.atEnd, "the box opens at its newest line");
        await onOutput(page, "(el.scrollTop = 0, el.marked = true)");
        await waitForLines(page, 4); // several redraws of the table meanwhile
        const after = await scrollState(page);
        assert.equal(after.top, 0, "the box was scrolled back down");
        assert.equal(await onOutput(page, "el.marked"), true, "the box was built anew");
        await page.screenshot({ path: `${ARTIFACTS}workers-scrolled-up.png` });
      });

      await t.step("output at its end follows the new lines", async () => {
        await onOutput(page, "el.scrollTop = el.scrollHeight");
        await waitForLines(page, 4);
        assert.ok((await scrollState(page)).atEnd, "the box shows its newest line");
      });

      await t.step("in a 420 px window a worker is a block with its status on screen", async () => {
        await page.setViewportSize({ width: 420, height: 800 });
        await waitForLines(page, 2);
        const [scroll, width] = await page.evaluate(
          "[document.documentElement.scrollWidth, document.documentElement.clientWidth]",
        ) as [number, number];
        assert.ok(scroll <= width, `the page is ${scroll} px wide in ${width} px`);
        const table = await page.locator("[data-testid=workers]").evaluate((el) => ({
          scroll: el.scrollWidth,
          client: el.clientWidth,
        }));
        assert.ok(table.scroll <= table.client, `the table scrolls: ${JSON.stringify(table)}`);
        // Measured in one go: the table is redrawn with every line, so an element found by one
        // call may be gone by the next.
        const placed = await page.evaluate(`(() => {
          const rect = (selector) => {
            const el = document.querySelector(selector);
            if (!el) return null;
            const r = el.getBoundingClientRect();
            return { x: r.x, right: r.right, text: el.textContent };
          };
          return {
            status: rect("tr[data-worker=drip] td[data-label=Status] .badge"),
            output: rect(${JSON.stringify(OUTPUT)}),
          };
        })()`) as Record<"status" | "output", { x: number; right: number; text: string } | null>;
        assert.ok(placed.status, "the status badge is shown");
        assert.ok(
          placed.status.x >= 0 && placed.status.right <= 420,
          `the status is at ${placed.status.x}`,
        );
        assert.match(placed.status.text, /running/);
        assert.ok(placed.output && placed.output.right <= 420, "the output fits the width");
        await page.screenshot({ path: `${ARTIFACTS}workers-narrow.png`, fullPage: true });
      });
    } finally {
      await browser?.close();
      await engine.stop();
    }
  },
});
