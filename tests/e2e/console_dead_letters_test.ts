/**
 * The Queues page's dead letters in headless Chromium, against a real engine
 * in this process with engine-queue (memory): which messages failed, with
 * their payload (as text, cut when long) and last error, newest first and
 * bounded; redrive and discard of one and of all, each confirmed, with the
 * outcome and the counts refreshed; "all" keeps the letters that failed after
 * the confirmation (its request is held while one more fails). Screenshots land in
 * tests/artifacts/console/dead-letters-*.png.
 */
import assert from "node:assert/strict";
import type { Browser, Page, Route } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { ROOT } from "../support/engine_process.ts";
import { eventually } from "../support/local_worker.ts";
import { servedHarness } from "../../console/_testing.ts";
import { queueWorker } from "../../workers/queue/mod.ts";

const ARTIFACTS = `${ROOT}tests/artifacts/console/`;
const HOSTILE = `<img src=x onerror="window.pwned=1"><b>bold</b>`;
const LONG = `${"lorem ipsum ".repeat(800)}END-OF-PAYLOAD`;

async function shot(page: Page, name: string, fullPage = false): Promise<void> {
  await page.screenshot({
    path: `${ARTIFACTS}dead-letters-${name}.png`,
    fullPage,
    timeout: 60_000,
  });
}

interface Letters {
  total: number;
  dead_letters: { id: string; data: { n?: number } }[];
}

Deno.test({
  name: "console Queues page shows dead letters and redrives or discards them",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const { harness, url, stop } = await servedHarness();
    let browser: Browser | undefined;
    try {
      await harness.engine.startBuiltin(
        queueWorker,
        queueWorker.parseConfig({
          adapter: "memory",
          queues: { emails: { max_attempts: 1 }, jobs: { max_attempts: 1 } },
        }),
      );
      const failing = { on: true, sent: 0 };
      harness.api.registerFunction("emails::send", () => {
        if (failing.on) throw new Error("SMTP refused: <script>alert(1)</script>");
        failing.sent++;
        return null;
      });
      const enqueue = (queue: string, data: unknown) =>
        harness.api.call("engine::queue::enqueue", { queue, function_id: "emails::send", data });
      const letters = (queue: string) =>
        harness.api.call("engine::queue::dead_letters", { queue }) as Promise<Letters>;
      for (let n = 0; n < 28; n++) await enqueue("emails", { n, to: `user${n}@example.com` });
      await enqueue("emails", { n: 28, html: HOSTILE });
      await enqueue("emails", { n: 29, body: LONG });
      await enqueue("jobs", { n: 0 });
      await enqueue("jobs", { n: 1 });
      await eventually(
        async () => (await letters("emails")).total === 30 && (await letters("jobs")).total === 2,
        "30 dead letters in emails, 2 in jobs",
      );

      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.setDefaultTimeout(15_000);
      const panel = page.locator("[data-dead-letters=emails]");
      const deadCell = page.locator("tr[data-queue=emails] td").nth(3);

      await t.step("a queue's dead letters open under it, newest first, 20 at a time", async () => {
        await page.goto(`${url}/queues`);
        await deadCell.filter({ hasText: "30" }).waitFor();
        await page.click("tr[data-queue=emails] [data-testid=dl-toggle]");
        await panel.locator(".dead-letter").first().waitFor();
        assert.equal(await panel.locator(".dead-letter").count(), 20);
        assert.match(
          await panel.getByTestId("dl-summary").innerText(),
          /30 dead letters; the newest 20 shown, newest first/,
        );
        const newest = (await letters("emails")).dead_letters.map((d) => d.id).reverse();
        const shown = await panel.locator(".dead-letter").evaluateAll((els) =>
          els.map((e) => e.getAttribute("data-id"))
        );
        assert.deepEqual(shown, newest.slice(0, 20));
        const first = panel.locator(".dead-letter").first();
        assert.match(await first.innerText(), /emails::send/);
        assert.match(await first.innerText(), /after 1 attempt\b/);
      });

      await t.step("payload and error are text, never HTML; a long payload is cut", async () => {
        const all = await panel.innerText();
        assert.ok(all.includes("SMTP refused: <script>alert(1)</script>"), "the error as text");
        assert.ok(all.includes('<img src=x onerror=\\"window.pwned=1\\">'), "the payload as text");
        assert.equal(await panel.locator("img, b, script").count(), 0);
        assert.equal(await page.evaluate("window.pwned"), undefined);
        const long = panel.locator(".dead-letter", { hasText: "lorem ipsum" }).getByTestId(
          "dl-data",
        );
        const height = (await long.boundingBox())?.height ?? Infinity;
        assert.ok(height < 300, `the long payload is ${height} px tall`);
        assert.ok(!(await long.innerText()).includes("END-OF-PAYLOAD"));
        await shot(page, "list");
        await long.getByTestId("show-all").click();
        assert.ok((await long.innerText()).includes("END-OF-PAYLOAD"), "all of it on request");
      });

      await t.step("'Show more' lists the rest", async () => {
        await panel.getByTestId("dl-more").click();
        await page.waitForFunction(
          `document.querySelectorAll("[data-dead-letters=emails] .dead-letter").length === 30`,
        );
        assert.equal(await panel.getByTestId("dl-more").count(), 0);
      });

      const outcome = panel.getByTestId("dl-outcome");
      await t.step("discarding one asks first; cancel keeps it", async () => {
        const victim = (await letters("emails")).dead_letters[0]!.id;
        const item = panel.locator(`.dead-letter[data-id="${victim}"]`);
        await item.getByRole("button", { name: "Discard" }).click();
        const confirm = panel.getByTestId("dl-confirm");
        assert.match(await confirm.innerText(), new RegExp(`Discard dead letter ${victim}`));
        await shot(page, "confirm");
        await confirm.getByRole("button", { name: "Cancel" }).click();
        assert.equal(await confirm.isVisible(), false);
        assert.equal((await letters("emails")).total, 30);

        await item.getByRole("button", { name: "Discard" }).click();
        await panel.getByTestId("dl-yes").click();
        await outcome.filter({ hasText: `Discarded dead letter ${victim}` }).waitFor();
        await deadCell.filter({ hasText: /^29/ }).waitFor();
        await item.waitFor({ state: "detached" });
        assert.ok(!(await letters("emails")).dead_letters.some((d) => d.id === victim));
      });

      await t.step("redriving one delivers it again", async () => {
        failing.on = false;
        const id = (await letters("emails")).dead_letters[0]!.id;
        await panel.locator(`.dead-letter[data-id="${id}"]`).getByRole("button", {
          name: "Redrive",
        }).click();
        await panel.getByTestId("dl-yes").click();
        await outcome.filter({ hasText: `Redrove dead letter ${id}` }).waitFor();
        await deadCell.filter({ hasText: /^28/ }).waitFor();
        await eventually(() => failing.sent === 1, "the redriven message delivered");
      });

      /**
       * Holds the page's next POST to `action` of `queue` until one more message of `queue`
       * failed for good (after the confirmation's cut-off, which it answers), then sends it.
       */
      const failMeanwhile = async (queue: string, action: string) => {
        const { promise, resolve, reject } = Promise.withResolvers<[number, string]>();
        const pattern = `**/api/queues/${queue}/${action}`;
        await page.route(pattern, async (route: Route) => {
          try {
            const before = route.request().postDataJSON().failed_before_ms as number;
            while (Date.now() <= before) await new Promise((r) => setTimeout(r, 1));
            const was = failing.on;
            failing.on = true;
            const total = (await letters(queue)).total;
            const { messageReceiptId } = await enqueue(queue, { late: true }) as {
              messageReceiptId: string;
            };
            await eventually(
              async () => (await letters(queue)).total === total + 1,
              "the late failure",
            );
            failing.on = was;
            await route.continue();
            await page.unroute(pattern);
            resolve([before, messageReceiptId]);
          } catch (e) {
            reject(e);
          }
        });
        return promise;
      };

      await t.step("'Discard all' discards what failed before the confirmation", async () => {
        await panel.getByRole("button", { name: "Discard all" }).click();
        assert.match(
          await panel.getByTestId("dl-confirm").innerText(),
          /Discard every dead letter of emails\?.*letters failing after you confirm are kept/,
        );
        const late = failMeanwhile("emails", "discard");
        const clicked = Date.now();
        await panel.getByTestId("dl-yes").click();
        const [before, lateId] = await late;
        assert.ok(before >= clicked - 1000 && before <= Date.now(), "the cut-off is the click");
        await outcome.filter({ hasText: "Discarded 28 dead letters of emails" }).waitFor();
        await deadCell.filter({ hasText: /^1/ }).waitFor();
        await panel.getByTestId("dl-summary").filter({ hasText: /^1 dead letter, newest/ })
          .waitFor();
        assert.deepEqual((await letters("emails")).dead_letters.map((d) => d.id), [lateId]);
        await shot(page, "discarded");
        await panel.locator(`.dead-letter[data-id="${lateId}"]`).getByRole("button", {
          name: "Discard",
        }).click();
        await panel.getByTestId("dl-yes").click();
        await panel.getByTestId("dl-summary").filter({ hasText: "No dead letters" }).waitFor();
        assert.equal((await letters("emails")).total, 0);
      });

      await t.step("'Redrive all' sends back what failed before the confirmation", async () => {
        await page.click("tr[data-queue=jobs] [data-testid=dl-toggle]");
        const jobs = page.locator("[data-dead-letters=jobs]");
        await jobs.locator(".dead-letter").nth(1).waitFor();
        await jobs.getByRole("button", { name: "Redrive all" }).click();
        const late = failMeanwhile("jobs", "redrive");
        await jobs.getByTestId("dl-yes").click();
        const [, lateId] = await late;
        await jobs.getByTestId("dl-outcome").filter({ hasText: "Redrove 2 dead letters of jobs" })
          .waitFor();
        await page.locator("tr[data-queue=jobs] td").nth(3).filter({ hasText: /^1/ }).waitFor();
        await eventually(() => failing.sent === 3, "both jobs delivered");
        assert.deepEqual((await letters("jobs")).dead_letters.map((d) => d.id), [lateId]);
      });

      await t.step("in a narrow window the list fits the width", async () => {
        failing.on = true;
        await enqueue("emails", { n: 30, html: HOSTILE });
        await page.setViewportSize({ width: 420, height: 800 });
        await panel.locator(".dead-letter").first().waitFor();
        const [scroll, width] = await page.evaluate(
          "[document.documentElement.scrollWidth, document.documentElement.clientWidth]",
        ) as [number, number];
        assert.ok(scroll <= width, `the page is ${scroll} px wide in ${width} px`);
        await shot(page, "narrow", true);
      });
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
