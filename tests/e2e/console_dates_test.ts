/**
 * Logs and Traces in headless Chromium (in a time zone 14 hours ahead of UTC)
 * against a real engine in this process, with a log entry and a span from
 * three days ago next to ones from now: the old ones show their date as well
 * as their time, in the browser's time zone; today's show the time alone;
 * the hover text stays the ISO time in UTC.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { servedHarness } from "../../console/_testing.ts";

const ZONE = "Pacific/Kiritimati"; // UTC+14: a date there is often not the date in UTC

/** `ms` as the page should show it in `ZONE`: "YYYY-MM-DD hh:mm:ss.mmm". */
function inZone(ms: number): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: ZONE,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    }).formatToParts(ms).map((p) => [p.type, p.value]),
  );
  const millis = String(ms % 1000).padStart(3, "0");
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}.${millis}`;
}

Deno.test({
  name: "console Logs and Traces show the date of an entry from an earlier day",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const { harness, url, stop } = await servedHarness();
    let browser: Browser | undefined;
    try {
      const old = Date.now() - 3 * 86_400_000;
      const recent = Date.now();
      const traceId = "0af7651916cd43dd8448eb211c80319c";
      harness.engine.logs.write({
        time: old,
        level: "info",
        message: "an entry from three days ago",
        source: "probe",
        traceId,
      });
      harness.engine.logs.write({
        time: recent,
        level: "info",
        message: "an entry from now",
        source: "probe",
      });
      harness.engine.traces.record({
        traceId,
        spanId: "b7ad6b7169203331",
        kind: "call",
        name: "probe::old",
        start: old,
        durationMs: 12,
        status: "ok",
      });
      browser = await launchChromium();
      const page = await browser.newPage({
        viewport: { width: 1280, height: 860 },
        timezoneId: ZONE,
      });
      page.setDefaultTimeout(20_000);
      const timeOf = (message: string) =>
        page.locator("tr", { hasText: message }).locator("td").first();

      await t.step("Logs: the old entry with its date, today's with its time", async () => {
        await page.goto(`${url}/logs`);
        const oldCell = timeOf("an entry from three days ago");
        await oldCell.waitFor();
        assert.equal(await oldCell.textContent(), inZone(old));
        assert.equal(await oldCell.getAttribute("title"), new Date(old).toISOString());
        const recentCell = timeOf("an entry from now");
        // With its date only if midnight passed in that zone since it was written (then the page
        // may have been drawn before or after).
        const shown = await recentCell.textContent();
        const [day, clock] = inZone(recent).split(" ");
        if (inZone(Date.now()).startsWith(day!)) assert.equal(shown, clock);
        else assert.ok(shown === clock || shown === inZone(recent), `today's shows ${shown}`);
        assert.equal(await recentCell.getAttribute("title"), new Date(recent).toISOString());
      });

      await t.step("Traces: the old trace with its date, on the list and its page", async () => {
        await page.goto(`${url}/traces`);
        const cell = page.locator(`tr[data-trace="${traceId}"] td`).first();
        await cell.waitFor();
        assert.equal(await cell.textContent(), inZone(old));
        assert.equal(await cell.getAttribute("title"), new Date(old).toISOString());
        await page.goto(`${url}/traces/${traceId}`);
        const logged = timeOf("an entry from three days ago");
        await logged.waitFor();
        assert.equal(await logged.textContent(), inZone(old));
        await page.getByText(`started ${inZone(old)}`).waitFor();
      });
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
