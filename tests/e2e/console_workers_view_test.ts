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
import { launchChromium } from "../support/chromium.ts";
import { type EngineProcess, ROOT, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { writeLocalWorker } from "../support/local_worker.ts";

const ARTIFACTS = `${ROOT}tests/artifacts/console/`;

/** A long line (it wraps, so eight of them overflow the output box) every 150 ms. */
const DRIP = `let i = 0;
setInterval(() => {
  console.log(\`drip line \${i++} \${"of steady output that wraps in the box ".repeat(4)}\`);
}, 150);
`;

const OUTPUT = "tr[data-output=drip] pre.output";

/** The number of the last line in the output box. */
async function lastLine(page: Page): Promise<number> {
  const text = await page.locator(OUTPUT).textContent() ?? "";
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

async function scrollState(page: Page) {
  return await page.locator(OUTPUT).evaluate((el) => ({
    top: el.scrollTop,
    atEnd: el.scrollTop + el.clientHeight >= el.scrollHeight - 2,
    overflows: el.scrollHeight > el.clientHeight,
  }));
}

Deno.test({
  name: "console Workers page keeps the operator's place in the output and fits a narrow window",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const { dir, file } = await tempConfig("");
    const drip = await writeLocalWorker(`${dir}/drip`, {
      name: "drip",
      start: "deno run main.ts",
      files: { "main.ts": DRIP },
    });
    await Deno.writeTextFile(
      file,
      `host: 127.0.0.1
port: 0
console:
  port: 0
workers:
  - name: drip
    path: ${JSON.stringify(drip)}
`,
    );
    const engine: EngineProcess = await spawnEngine({ config: file });
    let browser: Browser | undefined;
    try {
      const url = /(http:\/\/\S+)/.exec(await engine.waitForLine(/^Console on http:/))![1]!;
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
        await page.locator(OUTPUT).evaluate((el) => (el.scrollTop = 0));
        await waitForLines(page, 4); // several redraws of the table meanwhile
        const after = await scrollState(page);
        assert.equal(after.top, 0, "the box was scrolled back down");
        await page.screenshot({ path: `${ARTIFACTS}workers-scrolled-up.png` });
      });

      await t.step("output at its end follows the new lines", async () => {
        await page.locator(OUTPUT).evaluate((el) => (el.scrollTop = el.scrollHeight));
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
        const status = page.locator("tr[data-worker=drip] td[data-label=Status] .badge");
        const box = await status.boundingBox();
        assert.ok(box, "the status badge is shown");
        assert.ok(box.x >= 0 && box.x + box.width <= 420, `the status is at ${box.x}`);
        assert.match(await status.innerText(), /running/);
        const output = await page.locator(OUTPUT).boundingBox();
        assert.ok(output && output.x + output.width <= 420, "the output fits the width");
        await page.screenshot({ path: `${ARTIFACTS}workers-narrow.png`, fullPage: true });
      });
    } finally {
      await browser?.close();
      await engine.stop();
    }
  },
});
