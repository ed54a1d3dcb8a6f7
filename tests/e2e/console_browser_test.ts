/**
 * The console in a real browser: headless Chromium from Debian driven by
 * playwright-core, against the engine as a process (`main.ts --config`)
 * with engine-http, engine-state, engine-queue, its console, a supervised
 * local worker, and two worker processes written with our SDK. Each page
 * loads real data; screenshots land in tests/artifacts/console/.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../support/chromium.ts";
import { type EngineLink, remoteLink } from "../../console/link.ts";
import { type EngineProcess, ROOT, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { eventually } from "../support/local_worker.ts";
import { spawnWorker, type WorkerProcess } from "../support/worker_process.ts";

const ARTIFACTS = `${ROOT}tests/artifacts/console/`;
const GREETER = fileURLToPath(new URL("../fixtures/workers/greeter", import.meta.url));
const CONFIG = `host: 127.0.0.1
port: 0
console:
  port: 0
workers:
  - name: engine-http
    config: { port: 0 }
  - name: engine-state
    config: { adapter: memory }
  - name: engine-queue
    config: { adapter: memory, queues: { mail: {} } }
  - name: greeter
    path: ${JSON.stringify(GREETER)}
`;

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true, timeout: 60_000 });
}

/** Waits until the functions are registered and every trigger is accepted (routes are live). */
async function settled(link: EngineLink, functions: string[]): Promise<void> {
  await eventually(
    async () => {
      const [{ functions: fns }, { registered_triggers: triggers }] = await Promise.all([
        link.call("engine::functions::list", {}) as Promise<
          { functions: { function_id: string }[] }
        >,
        link.call("engine::registered-triggers::list", {}) as Promise<{
          registered_triggers: { status: string }[];
        }>,
      ]);
      const ids = new Set(fns.map((f) => f.function_id));
      return functions.every((f) => ids.has(f)) && triggers.every((t) => t.status === "active");
    },
    `functions ${functions.join(", ")} and their triggers to be live`,
    30_000,
  );
}

Deno.test({
  name: "console pages in headless Chromium show real data and update live",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const { dir, file } = await tempConfig(CONFIG);
    const engine: EngineProcess = await spawnEngine({ config: file });
    const workers: WorkerProcess[] = [];
    let link: EngineLink | undefined;
    let browser: Browser | undefined;
    try {
      const url = /(http:\/\/\S+)/.exec(await engine.waitForLine(/^Console on http:/))![1]!;
      const env = { ENGINE_URL: engine.url };
      workers.push(await spawnWorker("tests/fixtures/console/shop_worker.ts", env));
      workers.push(await spawnWorker("tests/fixtures/console/pricing_worker.ts", env));
      link = await remoteLink(engine.url, { name: "console-test", namespace: "console-test" });
      await settled(link, ["shop::order", "pricing::quote", "greeter::hello"]);
      const call = link.call.bind(link);
      await call("state::set", { scope: "carts", key: "ada", value: { items: 1 } });

      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
      page.setDefaultTimeout(15_000);
      const nav = (name: string) => page.locator(`nav a[data-page="${name}"]`).click();

      await t.step("Workers opens at / and lists the worker processes", async () => {
        await page.goto(url);
        await page.locator('[data-worker="shop"]').waitFor();
        await page.locator('[data-worker="pricing"]').waitFor();
        const shop = await page.locator('[data-worker="shop"]').innerText();
        assert.match(shop, /deno/, "runtime");
        assert.match(shop, new RegExp(String(workers[0]!.pid)), "pid");
        const greeter = await page.locator('[data-worker="greeter"]').innerText();
        assert.match(greeter, /running/);
        assert.match(greeter, /restarts: 0/);
        await page.locator('[data-output="greeter"]', { hasText: "greeter ready" }).waitFor();
        await page.locator("#live.on").waitFor();
        // Marks this document: a reload anywhere below would lose it.
        await page.evaluate(() => Object.assign(globalThis, { consoleTestMark: 1 }));
        await shot(page, "workers");
      });

      await t.step("Functions invokes shop::hello and shows its result", async () => {
        await nav("functions");
        await page.locator('[data-function="shop::hello"]').click();
        await page.locator('textarea[name="payload"]').fill('{"name": "Ada"}');
        await page.getByRole("button", { name: "Invoke" }).click();
        const result = page.getByTestId("invoke-result");
        await result.filter({ hasText: "Hello, Ada" }).waitFor();
        assert.match(await result.innerText(), /Result · [\d.]+ (µs|ms|s)/);
        await shot(page, "functions");
      });

      await t.step("Triggers lists POST /orders and sends a request to it", async () => {
        await nav("triggers");
        const row = page.locator("tr", { hasText: "/orders" });
        await row.getByRole("button", { name: "Try" }).click();
        await page.locator('textarea[name="headers"]').fill(
          '{"content-type": "application/json", "authorization": "Bearer s3cret"}',
        );
        await page.locator('textarea[name="body"]').fill('{"sku": "tea"}');
        await page.getByRole("button", { name: "Send request" }).click();
        const result = page.getByTestId("http-result");
        await result.filter({ hasText: "HTTP 201" }).waitFor();
        assert.match(await result.innerText(), /"price": 42/);
        await shot(page, "triggers");
        // A header value that is not a string is refused, saying which (not dropped with the rest).
        await page.locator('textarea[name="headers"]').fill('{"x-count": 5}');
        await page.getByRole("button", { name: "Send request" }).click();
        await page.locator(".result.error", { hasText: '"x-count" is a number' }).waitFor();
        await page.locator('textarea[name="headers"]').fill("{bad");
        await page.getByRole("button", { name: "Send request" }).click();
        await page.locator(".result.error", { hasText: "The headers field is not valid JSON" })
          .waitFor();
      });

      await t.step("Logs shows a worker's Logger line as it is written", async () => {
        await nav("logs");
        await page.locator("tr", { hasText: "Order placed" }).waitFor();
        const note = `Restock tea ${crypto.randomUUID().slice(0, 8)}`;
        await call("shop::note", { message: note });
        const row = page.locator("tr", { hasText: note });
        await row.waitFor();
        assert.match(await row.innerText(), /warn\s+shop\s+shop::note/);
        const table = await page.getByTestId("logs").innerText();
        assert.ok(!table.includes("s3cret"), "the authorization header is redacted");
        assert.equal(await page.evaluate(() => "consoleTestMark" in globalThis), true, "no reload");
        await shot(page, "logs");
      });

      await t.step(
        "Traces opens the request as a waterfall of middleware and handler spans",
        async () => {
          await nav("traces");
          const link = page.locator("a", { hasText: "POST /orders" }).first();
          await link.waitFor();
          await shot(page, "traces-list");
          await link.click();
          const waterfall = page.getByTestId("waterfall");
          await waterfall.locator('[data-name="pricing::quote"]').waitFor();
          const names = await Promise.all(
            (await waterfall.locator(".wf-row").all()).map((row) => row.getAttribute("data-name")),
          );
          assert.deepEqual(names, ["POST /orders", "shop::auth", "shop::order", "pricing::quote"]);
          const indent = async (name: string) => {
            const style = await waterfall.locator(`[data-name="${name}"] .wf-name`)
              .getAttribute("style");
            return Number(/padding-left: (\d+)px/.exec(style ?? "")?.[1] ?? 0);
          };
          assert.equal(await indent("shop::auth"), await indent("shop::order"));
          assert.ok(await indent("pricing::quote") > await indent("shop::order"), "a child span");
          await waterfall.locator('[data-name="shop::order"]').click();
          assert.match(await page.getByTestId("span-detail").innerText(), /shop::order[\s\S]*shop/);
          await shot(page, "traces");
        },
      );

      await t.step("State edits a value that state::get then reads back", async () => {
        await nav("state");
        await page.locator('[data-scope="carts"]').click();
        const row = page.locator('tr[data-key="ada"]');
        await row.getByRole("button", { name: "Edit" }).click();
        await page.locator('textarea[name="value"]').fill('{"items": 3, "note": "edited"}');
        await page.getByRole("button", { name: "Save" }).click();
        await page.getByTestId("state-saved").waitFor();
        assert.deepEqual(await call("state::get", { scope: "carts", key: "ada" }), {
          items: 3,
          note: "edited",
        });
        await page.locator('tr[data-key="ada"]', { hasText: '"edited"' }).waitFor();
        // A long value without spaces wraps in its cell instead of widening the page.
        await call("state::set", { scope: "carts", key: "token", value: "t".repeat(400) });
        await page.locator('tr[data-key="token"]').waitFor();
        const [scrollWidth, width] = await page.evaluate(
          "[document.documentElement.scrollWidth, document.documentElement.clientWidth]",
        ) as [number, number];
        assert.ok(scrollWidth <= width, `the page is ${scrollWidth} px wide in ${width} px`);
        await shot(page, "state");
      });

      await t.step("Queues shows HTTP waiting and calls in flight", async () => {
        await nav("queues");
        await page.getByTestId("http-waiting").waitFor();
        assert.match(await page.getByTestId("http-waiting").innerText(), /^0\s/);
        await page.getByTestId("durable-queues").locator("tr", { hasText: "mail" }).waitFor();
        assert.equal(await page.evaluate(() => "consoleTestMark" in globalThis), true, "no reload");
        await shot(page, "queues");
      });
    } finally {
      await browser?.close();
      await link?.close();
      for (const w of workers) await w.stop();
      assert.equal(await engine.stop(), 0);
      await Deno.remove(dir, { recursive: true });
    }
  },
});
