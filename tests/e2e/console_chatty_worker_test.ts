/**
 * The Workers page in headless Chromium while a supervised worker prints
 * thousands of lines at once: its recent output keeps up, and the page draws
 * the table a few times, not once per line (which froze the tab).
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { startConsoleEngine } from "../support/console_engine.ts";
import { launchChromium } from "../support/chromium.ts";

const LINES = 3000;

/** Prints LINES lines as fast as it can once the file `go` appears next to it, then idles. */
const CHATTY = `while (true) {
  try {
    Deno.statSync(new URL("./go", import.meta.url));
    break;
  } catch {
    await new Promise((r) => setTimeout(r, 50));
  }
}
for (let i = 0; i < ${LINES}; i++) console.log(\`chatty line \${i}\`);
setInterval(() => {}, 60_000);
`;

Deno.test({
  name: "console Workers page keeps up with a supervised worker printing thousands of lines",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { engine, url, folder: chatty } = await startConsoleEngine({
      name: "chatty",
      start: "deno run --allow-read main.ts",
      files: { "main.ts": CHATTY },
    });
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(20_000);
      await page.goto(`${url}/workers`);
      await page.waitForSelector("tr[data-output=chatty]");
      // Count the times the workers table is built anew.
      await page.evaluate(`window.draws = 0;
        new MutationObserver((changes) => {
          for (const c of changes) {
            for (const n of c.addedNodes) if (n.tagName === "TABLE") window.draws++;
          }
        }).observe(document.getElementById("main"), { childList: true, subtree: true });`);
      await Deno.writeTextFile(`${chatty}/go`, "");
      await page.waitForFunction(
        `document.querySelector("tr[data-output=chatty] pre")?.textContent
          .includes("chatty line ${LINES - 1}")`,
      );
      const draws = await page.evaluate("window.draws") as number;
      assert.ok(draws < LINES / 10, `the table was drawn ${draws} times for ${LINES} lines`);
    } finally {
      await browser?.close();
      await engine.stop();
    }
  },
});
