/**
 * The Triggers page in headless Chromium with 300 HTTP triggers on a real
 * engine in this process: a trigger added or removed adds or removes its row
 * and leaves the other rows (the same elements) and the focus be; the table
 * lists what the console's API lists; the type tabs are kept too (a focused
 * one keeps the focus when the counts change).
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { servedHarness } from "../../console/_testing.ts";

const MANY = 300;

/** Trigger ids in the table. */
const SHOWN = `[...document.querySelectorAll("tr[data-trigger]")].map((tr) => tr.dataset.trigger)`;

/** Waits until the table lists the triggers the console's API lists (internal ones left out). */
async function waitForTable(page: Page, url: string): Promise<void> {
  const { triggers } = await (await fetch(`${url}/api/triggers`)).json() as {
    triggers: { id: string; internal: boolean }[];
  };
  const want = triggers.filter((t) => !t.internal).map((t) => t.id);
  await page.waitForFunction(
    `JSON.stringify(${SHOWN}) === ${JSON.stringify(JSON.stringify(want))}`,
  );
}

Deno.test({
  name: "console Triggers page keeps the rows of unchanged triggers among 300",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const { harness, url, stop } = await servedHarness();
    let browser: Browser | undefined;
    try {
      const remove: (() => void)[] = [];
      const route = (path: string) =>
        harness.api.registerTrigger({
          type: "http",
          function_id: "probe::echo",
          config: { api_path: path, http_method: "GET" },
        });
      for (let i = 0; i < MANY; i++) remove.push(route(`/bulk/${i}`));
      // Each route is live once engine-http has accepted it.
      while (harness.engine.engine.triggers.all().some((t) => t.status === "pending")) {
        await harness.api.call("engine::health::check", {});
      }
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(20_000);
      await page.goto(`${url}/triggers`);
      await page.waitForFunction(`${SHOWN}.length > ${MANY}`);
      await waitForTable(page, url);

      await t.step("triggers added and removed leave the other rows be", async () => {
        const focused = await page.evaluate(`(() => {
          for (const tr of document.querySelectorAll("tr[data-trigger]")) tr.marked = true;
          const rows = document.querySelectorAll("tr[data-trigger]");
          const tr = rows[150];
          tr.querySelector("button").focus();
          return tr.dataset.trigger;
        })()`) as string;
        for (const undo of remove.splice(0, 20)) undo();
        const added = Array.from({ length: 20 }, (_, i) => route(`/late/${i}`));
        remove.push(...added);
        while (harness.engine.engine.triggers.all().some((t) => t.status === "pending")) {
          await harness.api.call("engine::health::check", {});
        }
        await waitForTable(page, url);
        const state = await page.evaluate(`({
          unmarked: [...document.querySelectorAll("tr[data-trigger]")].filter((tr) => !tr.marked)
            .map((tr) => tr.querySelector("td:nth-child(2)").textContent),
          focused: document.activeElement?.closest("tr")?.dataset.trigger,
        })`) as { unmarked: string[]; focused: string | undefined };
        assert.deepEqual(
          state.unmarked.sort(),
          Array.from({ length: 20 }, (_, i) => `GET /late/${i}`).sort(),
          "rows of triggers that did not change were built anew",
        );
        assert.equal(state.focused, focused, "the focus left the row's Try button");
      });

      await t.step("a tab and back shows the same rows", async () => {
        await page.click("button[data-type=http]");
        await page.click("button[data-type=all]");
        await waitForTable(page, url);
        const unmarked = await page.evaluate(
          `[...document.querySelectorAll("tr[data-trigger]")].filter((tr) => !tr.marked).length`,
        );
        assert.equal(unmarked, 20);
      });

      await t.step("a focused tab keeps the focus when the counts change", async () => {
        await page.evaluate(`(() => {
          for (const b of document.querySelectorAll("button[data-type]")) b.marked = true;
          document.querySelector("button[data-type=http]").focus();
        })()`);
        remove.push(route("/later"));
        while (harness.engine.engine.triggers.all().some((t) => t.status === "pending")) {
          await harness.api.call("engine::health::check", {});
        }
        await waitForTable(page, url);
        const http = (await (await fetch(`${url}/api/triggers`)).json() as {
          triggers: { trigger_type: string; internal: boolean }[];
        }).triggers.filter((t) => !t.internal && t.trigger_type === "http").length;
        await page.locator("button[data-type=http]").filter({ hasText: `http (${http})` })
          .waitFor();
        const state = await page.evaluate(`({
          focused: document.activeElement?.dataset.type,
          marked: document.activeElement?.marked === true,
          unmarked: [...document.querySelectorAll("button[data-type]")].filter((b) => !b.marked)
            .map((b) => b.dataset.type),
        })`) as { focused: string | undefined; marked: boolean; unmarked: string[] };
        assert.equal(state.focused, "http", "the focus left the tab");
        assert.ok(state.marked, "the focused tab was built anew");
        assert.deepEqual(state.unmarked, [], "tabs were built anew");
      });
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
