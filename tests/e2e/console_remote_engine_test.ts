/**
 * `engine console` (a process of its own, linked to the engine over
 * WebSocket) in headless Chromium while the engine stops and starts again:
 * the console's own connection to the browser stays up, so only the console
 * can tell the page that the engine is away. The page must say so (not go
 * on saying "live" over the lists of before), and once the engine is back,
 * say that too and read its pages again.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import {
  type EngineProcess,
  MAIN,
  ROOT,
  spawnEngine,
  tempConfig,
} from "../support/engine_process.ts";
import { spawnLineProcess } from "../support/line_process.ts";
import { freePort } from "../support/ports.ts";

Deno.test({
  name: "engine console says in the page when the engine it shows goes away and when it is back",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // The engine comes back on the same port, where the console reconnects.
    const { file } = await tempConfig(
      `host: 127.0.0.1\nport: ${freePort()}\nworkers: []\nconsole:\n  enabled: false\n`,
    );
    let engine: EngineProcess | undefined = await spawnEngine({ config: file });
    const cli = spawnLineProcess(["run", "--allow-all", MAIN, "console", "--port", "0"], {
      cwd: ROOT,
      env: { NO_COLOR: "1", ENGINE_URL: engine.url },
      name: "engine console",
      timeoutMs: 20_000,
    });
    let browser: Browser | undefined;
    try {
      const url = /(http:\/\/\S+)/.exec(await cli.waitForLine(/^Console on http:\/\//))![1]!;
      browser = await launchChromium();
      const page = await browser.newPage();
      page.setDefaultTimeout(20_000);
      await page.goto(`${url}/workers`);
      await page.waitForSelector("[data-testid=workers]");
      await page.waitForSelector("#live.on");

      const engineUrl = engine.url;
      await engine.stop();
      engine = undefined;
      await page.waitForSelector("[data-testid=offline]:not([hidden])");
      assert.match(
        (await page.textContent("[data-testid=offline]")) ?? "",
        new RegExp(
          `^The console lost its connection to the engine at ${
            engineUrl.replaceAll(".", "\\.")
          }.*what this page shows may be out of date`,
        ),
      );
      assert.notEqual(await page.textContent("#live"), "live");

      engine = await spawnEngine({ config: file });
      await page.waitForSelector("[data-testid=offline][hidden]", { state: "attached" });
      await page.waitForSelector("#live.on");
      assert.equal(await page.textContent("#live"), "live");
      // Read again: the console's own worker is listed by the new engine.
      await page.waitForSelector("tr[data-worker=engine-console]");
    } finally {
      await browser?.close();
      await cli.kill("SIGTERM");
      await engine?.stop();
    }
  },
});
