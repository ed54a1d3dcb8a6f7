/**
 * A function's panel on the console's Functions page shows what
 * `engine::functions::info` says of it: its description, its request and
 * response schemas, and the triggers that call it; HTML in any of them is
 * text. Headless Chromium against a real engine in this process
 * (console/_testing.ts).
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { servedHarness } from "../../console/_testing.ts";

const HOSTILE = `<img src=x onerror="window.__pwned=1">`;

Deno.test({
  name: "console Functions: a function's panel shows its schemas and the triggers that call it",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const { harness, url, stop } = await servedHarness();
    harness.api.registerFunction("shop::order", (p) => p, {
      description: `Places an order ${HOSTILE}`,
      request_format: {
        type: "object",
        properties: { customer_id: { type: "string", description: HOSTILE } },
        required: ["customer_id"],
      },
      response_format: { type: "object", properties: { order_id: { type: "string" } } },
    });
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);
      const info = page.getByTestId("function-info");

      await t.step("its request and response schemas, as JSON", async () => {
        await page.goto(`${url}/functions?fn=shop::order`);
        await info.getByTestId("request-format").waitFor();
        const request = JSON.parse(await info.getByTestId("request-format").innerText());
        assert.deepEqual(request.required, ["customer_id"]);
        assert.equal(request.properties.customer_id.description, HOSTILE);
        const response = JSON.parse(await info.getByTestId("response-format").innerText());
        assert.deepEqual(Object.keys(response.properties), ["order_id"]);
        assert.match(await page.locator(".panel").innerText(), /Places an order <img src=x/);
        assert.match(await info.innerText(), /No triggers call it/);
        assert.equal(await page.evaluate("window.__pwned"), undefined, "HTML ran");
      });

      await t.step("the triggers that call it, an HTTP route as method and path", async () => {
        await page.goto(`${url}/functions?fn=probe::hello`);
        const trigger = info.locator("[data-testid=function-trigger]");
        await trigger.first().waitFor();
        assert.equal(await trigger.count(), 1);
        assert.match(await trigger.innerText(), /http\s+POST \/hello\s+active/);
        // A function without schemas says so rather than showing an empty box.
        assert.match(await info.innerText(), /No request schema declared/);
      });

      await t.step("a trigger bound later shows without a reload", async () => {
        await page.goto(`${url}/functions?fn=shop::order`);
        await info.getByTestId("request-format").waitFor();
        harness.api.registerTrigger({
          type: "http",
          function_id: "shop::order",
          config: { api_path: "/orders", http_method: "POST" },
        });
        await info.locator("[data-testid=function-trigger]", { hasText: "/orders" }).waitFor();
      });
    } finally {
      await browser?.close();
      await stop();
    }
  },
});
