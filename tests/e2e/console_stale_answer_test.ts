/**
 * The console's pages read their lists again on every change; an answer that
 * arrives late (a slow engine, a busy machine) must not replace a newer one.
 * In headless Chromium against a real engine in this process
 * (console/_testing.ts), the first read after a change is held in the
 * browser (playwright's routing, the engine's real answer) until a later
 * read has been shown, then let through: the page must go on showing the
 * newer answer.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { servedHarness } from "../../console/_testing.ts";

/**
 * Holds the browser's next request whose URL `matches`: it reaches the
 * console at once, its answer is handed to the page on `release()`.
 * `sent` resolves once the console answered it.
 */
async function holdNext(page: Page, matches: (url: URL) => boolean) {
  const sent = Promise.withResolvers<void>();
  const go = Promise.withResolvers<void>();
  let armed = true;
  let url = "";
  await page.route((u) => armed && matches(u), async (route) => {
    if (!armed) return await route.continue();
    armed = false;
    url = route.request().url();
    const response = await route.fetch();
    sent.resolve();
    await go.promise;
    await route.fulfill({ response });
  });
  return {
    sent: sent.promise,
    /** Lets the held answer through; resolves once the page has had the time to show it. */
    async release() {
      const delivered = page.waitForResponse((r) => r.url() === url);
      go.resolve();
      await (await delivered).finished();
      // Its reading and drawing are done within the next frames.
      await page.evaluate(
        "new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))))",
      );
      await page.unrouteAll({ behavior: "ignoreErrors" });
    },
  };
}

Deno.test({
  name: "console pages do not let a late answer replace a newer one",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const { harness, url, stop } = await servedHarness();
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);

      const lists: { page: string; api: string; row: string }[] = [
        { page: "workers", api: "/api/workers", row: "tr[data-worker=probe]" },
        { page: "functions", api: "/api/functions", row: "[data-testid=functions] tbody" },
      ];
      for (const list of lists) {
        await t.step(`${list.page}: a function registered stays shown`, async () => {
          await page.goto(`${url}/${list.page}`);
          await page.waitForSelector(list.row);
          // The Workers page lists a worker's functions on request.
          if (list.page === "workers") await page.click("tr[data-worker=probe] details summary");
          const held = await holdNext(page, (u) => u.pathname === list.api);
          harness.api.registerFunction(`probe::first-${list.page}`, () => null);
          await held.sent;
          harness.api.registerFunction(`probe::second-${list.page}`, () => null);
          const shows = (id: string) =>
            `document.querySelector(${JSON.stringify(list.row)})?.textContent.includes(${
              JSON.stringify(id)
            })`;
          await page.waitForFunction(shows(`probe::second-${list.page}`));
          await held.release();
          assert.equal(
            await page.evaluate(shows(`probe::second-${list.page}`)),
            true,
            `the late answer took probe::second-${list.page} off the ${list.page} page`,
          );
        });
      }

      await t.step("logs: the entries shown match the filter typed last", async () => {
        harness.api.log.info("alpha entry");
        harness.api.log.info("beta entry");
        await page.goto(`${url}/logs`);
        await page.waitForSelector("[data-testid=logs] tbody tr");
        const held = await holdNext(
          page,
          (u) => u.pathname === "/api/logs" && u.searchParams.get("text") === "alpha",
        );
        await page.fill("input[name=text]", "alpha");
        await held.sent;
        await page.fill("input[name=text]", "beta");
        const body = "[data-testid=logs] tbody";
        await page.waitForFunction(
          `(() => { const t = document.querySelector(${JSON.stringify(body)}).textContent;
            return t.includes("beta entry") && !t.includes("alpha entry"); })()`,
        );
        await held.release();
        const shown = (await page.textContent(body)) ?? "";
        assert.equal(await page.inputValue("input[name=text]"), "beta");
        assert.ok(
          !shown.includes("alpha entry"),
          `the filter says beta, the table shows: ${shown}`,
        );
        assert.ok(shown.includes("beta entry"));
      });
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
