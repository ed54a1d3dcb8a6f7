/**
 * The console during an incident, in headless Chromium: a supervised worker
 * that keeps crashing, an HTTP request that fails two calls deep, a burst of
 * log lines, a narrow window, and the engine going away under an open page.
 * Screenshots land in tests/artifacts/console/incident-*.png.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { startConsoleEngine } from "../support/console_engine.ts";
import { launchChromium } from "../support/chromium.ts";
import { ROOT } from "../support/engine_process.ts";
import { eventually } from "../support/local_worker.ts";
import { spawnWorker, type WorkerProcess } from "../support/worker_process.ts";

const ARTIFACTS = `${ROOT}tests/artifacts/console/`;
const CRASHY = `for (let i = 0; i < 40; i++) console.log(\`starting step \${i}\`);
console.error("Error: ECONNREFUSED 127.0.0.1:5432");
Deno.exit(3);
`;

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({
    path: `${ARTIFACTS}incident-${name}.png`,
    fullPage: true,
    timeout: 60_000,
  });
}

async function pageWidth(page: Page): Promise<[number, number]> {
  return await page.evaluate(
    "[document.documentElement.scrollWidth, document.documentElement.clientWidth]",
  ) as [number, number];
}

Deno.test({
  name: "console shows an operator a crash loop, a failed request's error and stack, and an outage",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await Deno.mkdir(ARTIFACTS, { recursive: true });
    const { dir, engine, url } = await startConsoleEngine({
      name: "crashy",
      start: "deno run main.ts",
      files: { "main.ts": CRASHY },
    }, "  - name: engine-http\n    config: { port: 0 }\n");
    let worker: WorkerProcess | undefined;
    let browser: Browser | undefined;
    let stopped = false;
    try {
      worker = await spawnWorker("tests/fixtures/console/incident_worker.ts", {
        ENGINE_URL: engine.url,
      });
      const api = async (path: string, body?: unknown) => {
        const init = body === undefined ? {} : {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        };
        return await (await fetch(`${url}/api${path}`, init)).json();
      };
      browser = await launchChromium();
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      page.setDefaultTimeout(15_000);

      await t.step(
        "Workers says how a crashing worker last exited, and shows its newest output",
        async () => {
          await page.goto(`${url}/workers`);
          const facts = page.locator('[data-output="crashy"] [data-testid="supervision"]');
          await facts.filter({ hasText: "exited with code 3" }).waitFor();
          assert.match(
            await facts.innerText(),
            /Last exit: exited with code 3 after .* of running/,
          );
          const output = page.locator('[data-output="crashy"] pre.output');
          await output.filter({ hasText: "ECONNREFUSED" }).waitFor();
          // The worker's stdout and stderr lines arrive on two pipes in either order: the box
          // fills as they come, and must then overflow and show its newest line.
          let seen = "";
          await eventually(async () => {
            const [top, height, client] = await output.evaluate((
              el,
            ) => [el.scrollTop, el.scrollHeight, el.clientHeight]);
            seen = `scrollTop ${top}, scrollHeight ${height}, clientHeight ${client}`;
            return height > client && top + client >= height - 2;
          }, "more output than fits, scrolled to the newest line").catch((e) => {
            throw new Error(`${(e as Error).message} (${seen})`);
          });
          await shot(page, "workers");
        },
      );

      let traceId = "";
      await t.step(
        "a failed request's trace opens on the failing function, with its stack",
        async () => {
          const r = await api("/http", { method: "POST", path: "/fail", body: "{}" });
          assert.equal(r.status, 500);
          await eventually(async () => {
            const { traces } = await api("/traces?limit=20");
            const failed = traces.find((t: { rootName: string }) => t.rootName === "POST /fail");
            traceId = failed?.spanCount >= 3 ? failed.traceId : "";
            return traceId !== "";
          }, "the POST /fail trace with its three spans");
          await page.goto(`${url}/traces/${traceId}`);
          const detail = page.getByTestId("span-detail");
          await detail.filter({ hasText: "incident::fail" }).waitFor();
          assert.equal(
            await page.locator(".wf-row.selected").getAttribute("data-name"),
            "incident::fail",
            "the failing function's span is the one shown",
          );
          const text = await detail.innerText();
          assert.match(text, /<script>alert\(1\)<\/script> No stock for 'tea' ✗/, "shown as text");
          assert.equal(
            await page.locator("main script").count(),
            0,
            "no element made of the message",
          );
          assert.match(await detail.getByTestId("stack").innerText(), /incident_worker\.ts:\d+/);
          await shot(page, "trace");
        },
      );

      await t.step("from the trace to its logs and back", async () => {
        await page.getByRole("link", { name: "open in Logs" }).click();
        await page.waitForURL(`**/logs?trace_id=${traceId}`);
        assert.equal(await page.locator('input[name="trace"]').inputValue(), traceId);
        const failure = page.locator("table.logs tbody tr", { hasText: "HTTP request failed" });
        await failure.waitFor();
        await failure.locator("summary").click();
        assert.match(await failure.getByTestId("stack").innerText(), /incident_worker\.ts:\d+/);
        await page.goBack();
        await page.waitForURL(`**/traces/${traceId}`);
        await page.getByTestId("span-detail").filter({ hasText: "incident::fail" }).waitFor();
      });

      await t.step(
        "Functions invokes a failing function: error, stack and links to its logs",
        async () => {
          await page.locator('nav a[data-page="functions"]').click();
          await page.locator('[data-function="incident::fail"]').click();
          await page.getByRole("button", { name: "Invoke" }).click();
          const result = page.getByTestId("invoke-result");
          await result.filter({ hasText: "No stock" }).waitFor();
          assert.match(await result.getByTestId("stack").innerText(), /incident_worker\.ts:\d+/);
          const links = page.getByTestId("function-links");
          assert.match(await links.innerText(), /Runs in incident/);
          await links.getByRole("link", { name: "errors" }).click();
          await page.waitForURL(/\/logs\?/);
          await page.waitForFunction(
            `document.querySelector('input[name="function"]')?.value === "incident::fail"`,
          );
          assert.equal(await page.locator('select[name="level"]').inputValue(), "error");
          assert.equal(await page.locator('input[name="function"]').inputValue(), "incident::fail");
        },
      );

      await t.step(
        "Logs takes a burst of lines in batches and keeps at most 1000 rows",
        async () => {
          await page.goto(`${url}/logs?worker=incident`);
          await page.getByText(/^\d+ entr(y|ies)/).waitFor();
          await page.evaluate(`globalThis.additions = 0;
            new MutationObserver((records) => {
              for (const r of records) if (r.addedNodes.length) globalThis.additions++;
            }).observe(document.querySelector("table.logs tbody"), { childList: true });`);
          const lines = 3000;
          await api("/call", { function_id: "incident::spam", payload: { n: lines } });
          // 3000 log frames from the worker, into the store, out to the page: on a loaded CI
          // machine (the whole suite on 2 cores) this took over 15 s once.
          await page.locator("table.logs tbody tr", { hasText: `spam line ${lines - 1}` })
            .waitFor({ timeout: 45_000 });
          assert.equal(await page.locator("table.logs tbody tr").count(), 1000);
          const additions = await page.evaluate("globalThis.additions") as number;
          assert.ok(additions < lines / 10, `${additions} changes of the table for ${lines} lines`);
          assert.ok(await page.locator("table.logs tr.new").count() <= 50, "no thousand flashes");
          await shot(page, "logs");
        },
      );

      await t.step(
        "a narrow window scrolls wide tables inside themselves, not the page",
        async () => {
          await page.setViewportSize({ width: 420, height: 800 });
          await page.goto(`${url}/workers`);
          await page.locator('[data-worker="incident"]').waitFor();
          const [scroll, width] = await pageWidth(page);
          assert.ok(scroll <= width, `the page is ${scroll} px wide in ${width} px`);
          await shot(page, "narrow-workers");
          await page.setViewportSize({ width: 1280, height: 860 });
        },
      );

      await t.step("with the engine gone, the page says its data may be stale", async () => {
        await page.goto(`${url}/workers`);
        await page.locator("#live.on").waitFor();
        assert.equal(await engine.stop(), 0);
        stopped = true;
        const banner = page.getByTestId("offline");
        await banner.filter({ hasText: "Lost the connection" }).waitFor();
        await page.locator('nav a[data-page="functions"]').click();
        await page.locator(".result.error", { hasText: "Cannot reach the console" }).waitFor();
        await shot(page, "offline");
      });
    } finally {
      await browser?.close();
      await worker?.stop();
      if (!stopped) assert.equal(await engine.stop(), 0);
      await Deno.remove(dir, { recursive: true });
    }
  },
});
