/**
 * The Queues page's dead letters in headless Chromium, against a real engine
 * in this process with engine-queue (memory): when a queue's count changes
 * (one more message failed for good), the list adds the new letter and keeps
 * the others (the same elements), so a stack or a whole payload the operator
 * opened stays open.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { eventually } from "../support/local_worker.ts";
import { servedHarness } from "../../console/_testing.ts";
import { queueWorker } from "../../workers/queue/mod.ts";

const LONG = `${"lorem ipsum ".repeat(800)}END-OF-PAYLOAD`;

interface Letters {
  total: number;
  dead_letters: { id: string; data: { n?: number } }[];
}

/** The ids of the letters listed in the panel of `emails`, top to bottom. */
const SHOWN = `[...document.querySelectorAll("[data-dead-letters=emails] .dead-letter")]
  .map((e) => e.dataset.id)`;

Deno.test({
  name: "console dead letters keep their items, opened ones open, when the count changes",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { harness, url, stop } = await servedHarness();
    let browser: Browser | undefined;
    try {
      await harness.engine.startBuiltin(
        queueWorker,
        queueWorker.parseConfig({ adapter: "memory", queues: { emails: { max_attempts: 1 } } }),
      );
      harness.api.registerFunction("emails::send", () => {
        throw new Error("SMTP refused");
      });
      const enqueue = (data: unknown) =>
        harness.api.call("engine::queue::enqueue", {
          queue: "emails",
          function_id: "emails::send",
          data,
        });
      const letters = () =>
        harness.api.call("engine::queue::dead_letters", { queue: "emails" }) as Promise<Letters>;
      for (let n = 0; n < 3; n++) await enqueue({ n });
      await enqueue({ n: 3, body: LONG });
      await eventually(async () => (await letters()).total === 4, "4 dead letters in emails");
      const long = (await letters()).dead_letters.find((d) => d.data.n === 3)!.id;

      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.setDefaultTimeout(20_000);
      await page.goto(`${url}/queues`);
      await page.locator("tr[data-queue=emails] td").nth(3).filter({ hasText: /^4/ }).waitFor();
      await page.click("tr[data-queue=emails] [data-testid=dl-toggle]");
      const panel = page.locator("[data-dead-letters=emails]");
      await page.waitForFunction(`${SHOWN}.length === 4`);
      const item = panel.locator(`.dead-letter[data-id="${long}"]`);
      await item.locator("details summary").click();
      await item.getByTestId("show-all").click();
      await page.evaluate(`
        for (const e of document.querySelectorAll("[data-dead-letters=emails] .dead-letter")) {
          e.marked = true;
        }`);

      await enqueue({ n: 4 });
      await eventually(async () => (await letters()).total === 5, "5 dead letters in emails");
      await panel.getByTestId("dl-summary").filter({ hasText: /^5 dead letters/ }).waitFor();
      const newest = (await letters()).dead_letters.map((d) => d.id).reverse();
      await page.waitForFunction(
        `JSON.stringify(${SHOWN}) === ${JSON.stringify(JSON.stringify(newest))}`,
      );
      const state = await page.evaluate(`(() => {
        const items = [...document.querySelectorAll("[data-dead-letters=emails] .dead-letter")];
        const opened = items.find((e) => e.dataset.id === ${JSON.stringify(long)});
        return {
          unmarked: items.filter((e) => !e.marked).map((e) => e.dataset.id),
          same: opened.marked === true,
          open: opened.querySelector("details").open,
          whole: opened.querySelector("[data-testid=dl-data]").textContent.includes("END-OF-PAYLOAD"),
        };
      })()`) as { unmarked: string[]; same: boolean; open: boolean; whole: boolean };
      assert.deepEqual(state.unmarked, [newest[0]], "only the new letter is a new element");
      assert.ok(state.same, "the opened letter was built anew");
      assert.ok(state.open, "the opened stack closed");
      assert.ok(state.whole, "the whole payload shown on request was cut again");
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
