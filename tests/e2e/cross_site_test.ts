/**
 * A malicious web page in the operator's browser (headless Chromium, with
 * `evil.test` resolving to 127.0.0.1) against an engine and its console on
 * loopback without tokens: it cannot open the engine's WebSocket, cannot
 * make the console call a function (CSRF), and cannot read the console
 * under its own name (DNS rebinding). The console's own page still calls
 * functions, and a loopback page may still open the socket.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { consoleWorker } from "../../console/mod.ts";
import { startEngine } from "../../engine/engine.ts";
import { launchChromium } from "../support/chromium.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";

const PAGE = "<!doctype html><title>innocent page</title><p>Nothing to see.</p>";

/** In `page`: opens `engineUrl` and calls `victim::hit`; "called", or "refused" when the socket fails. */
function callOverSocket(page: Page, engineUrl: string): Promise<string> {
  return page.evaluate((url) =>
    new Promise<string>((resolve) => {
      const ws = new WebSocket(url);
      ws.onopen = () =>
        ws.send(JSON.stringify({
          type: "invokefunction",
          invocation_id: "9b2f7c1e-0000-4000-8000-000000000001",
          function_id: "victim::hit",
          data: { from: "socket" },
        }));
      ws.onmessage = (e) => {
        if (JSON.parse(e.data).type === "invocationresult") resolve("called");
      };
      ws.onerror = () => resolve("refused");
    }), engineUrl);
}

/** In `page`: a simple cross-site POST (no preflight) to the console's `/api/call`. */
function postCall(page: Page, url: string, mode: RequestMode): Promise<string> {
  return page.evaluate(async ({ url, mode }) => {
    const sent = fetch(url, {
      method: "POST",
      mode,
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ function_id: "victim::hit", payload: { from: "post" } }),
    });
    // The answer is opaque, or refused by its Cross-Origin-Resource-Policy, once it came.
    if (mode === "no-cors") return await sent.then(() => "sent", () => "sent");
    return await (await sent).text();
  }, { url, mode });
}

Deno.test({
  name: "a web page of another site reaches neither the engine's socket nor the console",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0 });
    await engine.startBuiltin(
      consoleWorker,
      consoleWorker.parseConfig({ port: 0, engine_url: engine.url }),
    );
    const consolePort = new URL(String(engine.describeBuiltin("engine-console")!.url)).port;
    const victim = await RawWorker.connect(engine.url);
    const hits: unknown[] = [];
    victim.serve("victim::hit", (data) => {
      hits.push(data);
      return { hit: true };
    });
    const site = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response(PAGE, { headers: { "content-type": "text/html" } }),
    );
    const browser = await launchChromium(["--host-resolver-rules=MAP evil.test 127.0.0.1"]);
    try {
      await waitForFunctions(victim, ["victim::hit"]);
      const page = await browser.newPage();
      const enginePort = new URL(engine.url).port;

      await page.goto(`http://evil.test:${site.addr.port}/`);
      assert.equal(await callOverSocket(page, `ws://127.0.0.1:${enginePort}/`), "refused");
      // The console answers only after the function did: once the POST is answered, a hit is in.
      await postCall(page, `http://127.0.0.1:${consolePort}/api/call`, "no-cors");
      assert.deepEqual(hits, [], "the page called nothing");
      assert.ok(
        engine.logs.query({ text: "opened by a web page at" }).length > 0,
        "the refused socket is logged",
      );

      // DNS rebinding: the console under the attacker's name answers nothing.
      const rebound = await page.goto(`http://evil.test:${consolePort}/api/functions`);
      assert.equal(rebound?.status(), 403);
      assert.match(await rebound!.text(), /must be addressed to localhost or 127\.0\.0\.1/);

      // The operator's own pages keep working.
      await page.goto(`http://127.0.0.1:${consolePort}/functions`);
      const answer = JSON.parse(
        await postCall(page, `http://127.0.0.1:${consolePort}/api/call`, "same-origin"),
      );
      assert.deepEqual(answer.result, { hit: true });
      await page.goto(`http://127.0.0.1:${site.addr.port}/`);
      assert.equal(await callOverSocket(page, `ws://127.0.0.1:${enginePort}/`), "called");
      assert.deepEqual(hits, [{ from: "post" }, { from: "socket" }]);
    } finally {
      await browser.close();
      await site.shutdown();
      await victim.close();
      await engine.stop();
    }
  },
});
