/**
 * A token-protected console in headless Chromium: a link with a wrong token
 * opens a page saying the token is wrong (not a line of JSON), and a page left
 * open while the console restarts with another token says its token is no
 * longer accepted, not that the engine may be restarting. A real engine in
 * this process (console/_testing.ts); the console app served, stopped and
 * served again on the same port.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { startHarness } from "../../console/_testing.ts";
import { EventFeed } from "../../console/feed.ts";
import { createConsoleApp } from "../../console/server.ts";

/** The console app with its own feed and `token`, served on `port` (0: a free one). */
async function serveConsole(
  harness: Awaited<ReturnType<typeof startHarness>>,
  token: string,
  port = 0,
) {
  const feed = new EventFeed(harness.link, { snapshotIntervalMs: 200 });
  await feed.start();
  const app = createConsoleApp({ link: harness.link, feed, token, keepAliveMs: 60_000 });
  const server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, app.fetch);
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    port: server.addr.port,
    async stop() {
      await feed.stop(); // ends the browsers' event streams, so the server can stop
      await server.shutdown();
    },
  };
}

Deno.test({
  name: "console with a token: a wrong one and one no longer valid are said as such on the page",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const harness = await startHarness();
    let served = await serveConsole(harness, "first-token");
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);

      await t.step("a link with a wrong token opens a page that says so", async () => {
        const response = await page.goto(`${served.url}/workers?token=wrong`);
        assert.equal(response?.status(), 401);
        assert.match(response?.headers()["content-type"] ?? "", /text\/html/);
        const text = await page.locator("body").innerText();
        assert.match(text, /The token in the link is not this console's token/);
        assert.doesNotMatch(text, /^\{/, "not JSON");
      });

      await t.step("the right one opens the console", async () => {
        await page.goto(`${served.url}/workers?token=first-token`);
        await page.waitForSelector("tr[data-worker='probe']");
        await page.waitForSelector("#live.on");
      });

      await t.step("the console back with another token: the page says the token", async () => {
        await served.stop();
        served = await serveConsole(harness, "second-token", served.port);
        const banner = page.getByTestId("offline");
        await banner.filter({ hasText: "token" }).waitFor();
        assert.match(
          await banner.innerText(),
          /no longer accepts this browser's token.*\?token=/s,
        );
        assert.doesNotMatch(await banner.innerText(), /stopped or restarting/);
        // Opened again with the new token, the page is live and reads again.
        await page.goto(`${served.url}/workers?token=second-token`);
        await page.waitForSelector("tr[data-worker='probe']");
        await page.waitForSelector("#live.on");
      });
    } finally {
      await browser?.close();
      await served.stop();
      await harness.stop();
    }
  },
});
