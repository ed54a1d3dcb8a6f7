/**
 * The console's Triggers page as an operator reads it, in headless Chromium
 * against a real engine in this process (console/_testing.ts): each trigger's
 * config in the engine's few words (`config_summary`), opening to the whole
 * config; a trigger refused as taken listed failed with the provider's
 * reason, then active once the route is free, without a reload; a trigger
 * type's JSON Schemas, collapsed, as indented JSON, one opened staying open
 * while triggers change.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { servedHarness } from "../../console/_testing.ts";

Deno.test({
  name: "console Triggers: config summaries, a failed trigger's error, a type's schemas",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const { harness, url, stop } = await servedHarness();
    const { api } = harness;
    api.registerFunction("ops::on-warn", () => null);
    api.registerFunction("ops::on-order", () => null);
    api.registerFunction("ops::v1", () => ({ status_code: 200 }));
    api.registerFunction("ops::v2", () => ({ status_code: 200 }));
    api.registerTrigger({ type: "log", function_id: "ops::on-warn", config: { level: "warn" } });
    api.registerTrigger({
      type: "state",
      function_id: "ops::on-order",
      config: { scope: "orders", key: "42" },
    });
    const v1 = api.registerTrigger({
      type: "http",
      function_id: "ops::v1",
      config: { api_path: "/orders/:id", http_method: "POST" },
    });
    api.registerTrigger({
      type: "http",
      function_id: "ops::v2",
      config: { api_path: "/orders/:id", http_method: "POST" },
    });
    const settled = () => harness.engine.engine.triggers.all().every((t) => t.status !== "pending");
    while (!settled()) await api.call("engine::health::check", {});
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);
      const row = (fn: string) => page.locator(`tr[data-trigger]:has-text("${fn}")`);

      await t.step("each trigger's config in a few words, opening to the whole", async () => {
        await page.goto(`${url}/triggers`);
        await row("ops::on-order").waitFor();
        const cases: [fn: string, summary: string][] = [
          ["ops::on-warn", "level warn"],
          ["ops::on-order", 'scope "orders", key "42"'],
        ];
        for (const [fn, summary] of cases) {
          const cell = row(fn).locator("td").nth(1);
          assert.equal(await cell.innerText(), summary);
          await cell.locator("summary").press("Enter");
          assert.match(await cell.locator("pre").innerText(), /^\{\n {2}"/);
        }
        assert.match(
          await row("ops::on-order").locator("td").nth(1).locator("pre").innerText(),
          /"scope": "orders",\n {2}"key": "42"/,
        );
        assert.equal(await row("ops::v1").locator("td").nth(1).innerText(), "POST /orders/:id");
      });

      await t.step("a trigger refused as taken: failed with why, then active", async () => {
        const status = row("ops::v2").locator("td").nth(4);
        assert.match(await status.innerText(), /^failed\n.*\/orders\/:id/s);
        v1();
        await page.waitForFunction(
          `[...document.querySelectorAll("tr[data-trigger]")].some((tr) =>
            tr.cells[2].textContent === "ops::v2" && tr.cells[4].innerText.trim() === "active")`,
        );
      });

      await t.step("a type's schemas, collapsed, readable, one opened stays open", async () => {
        await page.locator('button[data-type="http"]').click();
        const schemas = page.locator("details[data-schema]");
        await schemas.first().waitFor();
        const fields = await schemas.evaluateAll((ds) =>
          ds.map((d) => [d.getAttribute("data-schema"), d.hasAttribute("open")])
        );
        assert.deepEqual(fields, [
          ["trigger_request_format", false],
          ["call_request_format", false],
          ["call_response_format", false],
        ]);
        const config = page.locator('details[data-schema="trigger_request_format"]');
        await config.locator("summary").press("Enter");
        const text = await config.locator("pre").innerText();
        assert.match(text, /"api_path"/);
        assert.equal(typeof JSON.parse(text), "object", "the schema as JSON");
        assert.match(text, /\n {2}"/, "indented");
        // A trigger added redraws the list: the schema opened stays open (the same element).
        await page.evaluate(`document.querySelector('details[data-schema]').marked = true`);
        api.registerTrigger({
          type: "http",
          function_id: "ops::v1",
          config: { api_path: "/late", http_method: "GET" },
        });
        await row("GET /late").waitFor();
        assert.equal(
          await page.evaluate(`(() => {
            const d = document.querySelector('details[data-schema="trigger_request_format"]');
            return d.marked === true && d.open;
          })()`),
          true,
        );
      });

      await t.step("a type declaring no schema says so", async () => {
        api.registerTriggerType("ops::bare", "Declares nothing", {
          registerTrigger: () => {},
          unregisterTrigger: () => {},
        });
        await page.locator('button[data-type="ops::bare"]').click();
        await page.getByTestId("no-schemas").waitFor();
        assert.equal(await page.locator("details[data-schema]").count(), 0);
      });
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
