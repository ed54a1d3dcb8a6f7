/**
 * The Traces page marks a call its caller did not wait for (the engine's
 * `engine.call.async` attribute: a void call, a state trigger's call, a queue
 * delivery), which may start after its parent's span ended: in the span's
 * row, on its bar and in its details; a synchronous child is not marked.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { servedHarness } from "../../console/_testing.ts";

Deno.test({
  name: "console Traces: a call its caller did not wait for is marked async",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { harness, url, stop } = await servedHarness();
    let browser: Browser | undefined;
    try {
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
      const base = { traceId, kind: "call", status: "ok" as const };
      const t0 = Date.now() - 1000;
      harness.engine.traces.record({
        ...base,
        spanId: "00f067aa0ba902b7",
        name: "shop::order",
        start: t0,
        durationMs: 100,
      });
      harness.engine.traces.record({
        ...base,
        spanId: "00f067aa0ba902b8",
        parentSpanId: "00f067aa0ba902b7",
        name: "shop::price",
        start: t0 + 10,
        durationMs: 20,
      });
      harness.engine.traces.record({
        ...base,
        spanId: "00f067aa0ba902b9",
        parentSpanId: "00f067aa0ba902b7",
        name: "shop::mail",
        start: t0 + 300,
        durationMs: 50,
        attributes: { "engine.call.async": true },
      });
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);
      await page.goto(`${url}/traces/${traceId}`);
      const waterfall = page.getByTestId("waterfall");
      const row = (name: string) => waterfall.locator(`[data-name="${name}"]`);
      await row("shop::mail").waitFor();
      const cases: [string, boolean][] = [
        ["shop::order", false],
        ["shop::price", false],
        ["shop::mail", true],
      ];
      for (const [name, marked] of cases) {
        const kind = await row(name).locator(".kind").innerText();
        assert.equal(/\basync\b/.test(kind), marked, `${name}: "${kind}"`);
        const bar = await row(name).locator(".wf-bar").getAttribute("class");
        assert.equal(/\basync\b/.test(bar ?? ""), marked, `${name}: bar "${bar}"`);
      }
      await row("shop::mail").click();
      assert.match(
        await page.getByTestId("span-detail").innerText(),
        /call \(async: the caller did not wait for it\)/,
      );
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
