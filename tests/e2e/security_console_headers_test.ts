/**
 * The console of an engine process, as another site's page in the
 * operator's browser would use it: it cannot show the console in a frame
 * (clickjacking: on loopback without a token a framed console is the
 * console itself, whose own requests the cross-site guard admits), every
 * reply carries the headers that forbid framing, sniffing and loading it
 * elsewhere, and the `?token=` link cannot redirect to another site.
 */
import assert from "node:assert/strict";
import { SECURITY_HEADERS } from "../../console/security_headers.ts";
import { PAGES } from "../../console/server.ts";
import { launchChromium } from "../support/chromium.ts";
import { type EngineProcess, spawnEngine, tempConfig } from "../support/engine_process.ts";

const TOKEN = "console-token-for-tests";

async function consoleOf(consoleToken?: string): Promise<{ engine: EngineProcess; url: string }> {
  const { file } = await tempConfig(
    `port: 0\nconsole:\n  port: 0\n${consoleToken ? `  token: ${consoleToken}\n` : ""}`,
  );
  const engine = await spawnEngine({ config: file });
  const url = /(http:\/\/\S+)/.exec(await engine.waitForLine(/^Console on http:/))![1]!;
  return { engine, url };
}

function assertSecurityHeaders(what: string, response: Response): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    assert.equal(response.headers.get(name), value, `${what}: ${name}`);
  }
}

Deno.test({
  name: "the console cannot be framed by another site's page, and every reply says so",
  // playwright keeps internal timers and pipes past browser.close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const { engine, url } = await consoleOf();
    const site = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () =>
        new Response(
          `<!doctype html><title>prize</title><iframe id="f" src="${url}/queues"></iframe>`,
          { headers: { "content-type": "text/html" } },
        ),
    );
    const browser = await launchChromium(["--host-resolver-rules=MAP evil.test 127.0.0.1"]);
    try {
      const cases: [what: string, path: string, init: RequestInit, status: number][] = [
        ["a page", "/workers", {}, 200],
        ["an asset", "/assets/app.js", {}, 200],
        ["the API", "/api/health", {}, 200],
        ["a missing page", "/nowhere", {}, 404],
        ["a cross-site POST", "/api/call", {
          method: "POST",
          headers: { origin: "http://evil.test", "content-type": "text/plain" },
          body: "{}",
        }, 403],
        ["the event stream", "/api/events", {}, 200],
      ];
      for (const [what, path, init, status] of cases) {
        const response = await fetch(`${url}${path}`, init);
        assert.equal(response.status, status, what);
        assertSecurityHeaders(what, response);
        await response.body?.cancel();
      }

      const page = await browser.newPage();
      await page.goto(`http://evil.test:${site.addr.port}/`);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      assert.ok(frame, "the page has its frame");
      await frame.waitForLoadState("load");
      assert.ok(
        !frame.url().startsWith(url),
        `the framed console did not load: the frame is at ${frame.url()}`,
      );
      assert.equal(await frame.$("#nav"), null, "no console in the frame");

      // The console's own pages run under its policy: nothing they load or do is blocked.
      const own = await browser.newPage();
      const blocked: string[] = [];
      own.on("console", (m) => {
        if (/Content Security Policy/i.test(m.text())) blocked.push(m.text());
      });
      for (const name of PAGES) {
        await own.goto(`${url}/${name}`);
        await own.locator("#main h1").first().waitFor();
      }
      assert.deepEqual(blocked, []);
    } finally {
      await browser.close();
      await site.shutdown();
      await engine.stop();
    }
  },
});

Deno.test("a console with a token: refusals carry the headers; ?token= redirects within the console only", async () => {
  const { engine, url } = await consoleOf(TOKEN);
  try {
    const refused = await fetch(`${url}/api/health`);
    assert.equal(refused.status, 401);
    assertSecurityHeaders("a 401", refused);
    await refused.body?.cancel();

    const cases: [path: string, location: string][] = [
      [`/workers?token=${TOKEN}`, "/workers"],
      [`//evil.example/x?token=${TOKEN}`, "/evil.example/x"],
      [`/\\evil.example/?token=${TOKEN}&a=1`, "/evil.example/?a=1"],
      [`///evil.example?token=${TOKEN}`, "/evil.example"],
    ];
    for (const [path, location] of cases) {
      const response = await fetch(`${url}${path}`, { redirect: "manual" });
      assert.equal(response.status, 303, path);
      assert.equal(response.headers.get("location"), location, path);
      assertSecurityHeaders(path, response);
      await response.body?.cancel();
    }
  } finally {
    await engine.stop();
  }
});
