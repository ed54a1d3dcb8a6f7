/**
 * The console (headless Chromium) on a host and port from the config while
 * the engine under it stops and starts again: the page says the connection
 * is lost, and once the engine is back it says so, reads its data again
 * (keeping the payload the operator typed), and shows
 * the engine's address as it is now (the engine listens on another port
 * after the restart), not the one from before.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { type EngineProcess, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { freePort } from "../support/ports.ts";

Deno.test({
  name:
    "console on a configured host and port: the engine restarting is said, and then shown as it is",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const consolePort = freePort();
    // A loopback address other than 127.0.0.1, a fixed port; the engine on a free port each start.
    const { file } = await tempConfig(
      `host: 127.0.0.1\nport: 0\nconsole:\n  host: 127.0.0.2\n  port: ${consolePort}\n`,
    );
    const start = async () => {
      const engine = await spawnEngine({ config: file });
      const line = await engine.waitForLine(/^Console on http:/);
      return { engine, url: /(http:\/\/\S+)/.exec(line)![1]! };
    };
    let { engine, url } = await start();
    let running: EngineProcess | undefined = engine;
    let browser: Browser | undefined;
    try {
      assert.equal(url, `http://127.0.0.2:${consolePort}`);
      browser = await launchChromium();
      const page = await browser.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`${url}/functions?fn=engine::health::check`);
      await page.waitForSelector("textarea[name=payload]");
      await page.waitForSelector("#live.on");
      // What the operator typed before the restart is still there after it.
      const typed = '{"typed": "by the operator"}';
      await page.fill("textarea[name=payload]", typed);
      await page.waitForFunction(
        `document.getElementById("engine-url").textContent.startsWith(${
          JSON.stringify(engine.url)
        })`,
      );

      await engine.stop();
      running = undefined;
      await page.waitForSelector("[data-testid=offline]:not([hidden])");
      assert.match(
        (await page.textContent("[data-testid=offline]")) ?? "",
        /^Lost the connection to the console at 127\.0\.0\.2:\d+ .*may be out of date/,
      );
      assert.equal(await page.textContent("#live"), "reconnecting…");

      ({ engine, url } = await start());
      running = engine;
      await page.waitForSelector("#live.on");
      await page.waitForSelector("[data-testid=offline][hidden]", { state: "attached" });
      await page.waitForSelector("[data-testid=functions]");
      // The footer names the engine as it is now, not the address it had before the restart.
      await page.waitForFunction(
        `document.getElementById("engine-url").textContent.startsWith(${
          JSON.stringify(engine.url)
        })`,
        undefined,
        { timeout: 10_000 },
      ).catch(async () => {
        assert.fail(
          `the footer says ${await page.textContent(
            "#engine-url",
          )}, the engine is at ${engine.url}`,
        );
      });
      assert.equal(await page.inputValue("textarea[name=payload]"), typed);
      await page.click("button:has-text('Invoke')");
      await page.waitForSelector("[data-testid=invoke-result]");
    } finally {
      await browser?.close();
      await running?.stop();
    }
  },
});
