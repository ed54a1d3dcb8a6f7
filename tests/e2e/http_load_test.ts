/**
 * The HTTP worker under load and against slow clients (reliability issue):
 * 10,000 requests at once against a limit of 1,024, a body sent a byte at a
 * time, and connections that send nothing.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { spawnWorker } from "../support/worker_process.ts";
import { ROOT } from "../support/engine_process.ts";

async function engineWithHttp(httpConfig: string) {
  const { file } = await tempConfig(
    `port: 0\nconsole:\n  enabled: false\nworkers:\n  - name: engine-http\n    config:\n      port: 0\n${httpConfig}`,
  );
  const engine = await spawnEngine({ config: file });
  const line = await engine.waitForLine(/Started worker engine-http .*"port":(\d+)/);
  const port = Number(/"port":(\d+)/.exec(line)![1]);
  return { engine, base: `http://127.0.0.1:${port}` };
}

function rssKb(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
}

async function waitForRoute(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await fetch(url, {
      method: "POST",
      body: '{"i":-1}',
      headers: { "content-type": "application/json" },
    });
    await r.body?.cancel();
    if (r.status === 200) return;
    await new Promise((res) => setTimeout(res, 50));
  }
  throw new Error(`${url} never answered 200`);
}

Deno.test("10,000 requests at once against a limit of 1,024: each gets its reply, a 503 or a 504, and the engine recovers", async () => {
  const { engine, base } = await engineWithHttp(
    "      concurrency_request_limit: 1024\n      default_timeout: 20000\n",
  );
  const worker = await spawnWorker("tests/fixtures/load/slow_handler_worker.ts", {
    ENGINE_URL: engine.url,
    SLOW_MS: "50",
  });
  try {
    await waitForRoute(`${base}/load`);
    const before = rssKb(engine.child.pid);
    const flood = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-net",
        `${ROOT}tests/fixtures/load/http_flood.ts`,
        `${base}/load`,
        "10000",
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const out = new TextDecoder().decode(flood.stdout);
    assert.equal(flood.code, 0, new TextDecoder().decode(flood.stderr));
    const { statuses, wrong } = JSON.parse(out.trim().split("\n").pop()!);
    assert.deepEqual(wrong, [], "no request got anything but its own reply, a 503 or a 504");
    const total = Object.values(statuses as Record<string, number>).reduce((a, b) => a + b, 0);
    assert.equal(total, 10_000, `every request answered: ${JSON.stringify(statuses)}`);
    for (const s of Object.keys(statuses)) {
      assert.ok(
        ["200", "503", "504"].includes(s),
        `unexpected status ${s}: ${JSON.stringify(statuses)}`,
      );
    }
    assert.ok(
      statuses["200"] >= 1024,
      `at least a full window served: ${JSON.stringify(statuses)}`,
    );
    const after = rssKb(engine.child.pid);
    console.log(
      `statuses ${JSON.stringify(statuses)}; engine RSS ${before} kB before, ${after} kB after`,
    );
    assert.ok(after < before + 512 * 1024, `memory stays bounded: ${before} kB → ${after} kB`);
    const r = await fetch(`${base}/load`, {
      method: "POST",
      body: '{"i":7}',
      headers: { "content-type": "application/json" },
    });
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { i: 7 });
  } finally {
    await worker.stop();
    await engine.stop();
  }
});

Deno.test("a body sent a byte at a time and connections that send nothing time out without holding the server", async () => {
  const { engine, base } = await engineWithHttp("      default_timeout: 1500\n");
  const worker = await spawnWorker("tests/fixtures/load/slow_handler_worker.ts", {
    ENGINE_URL: engine.url,
    SLOW_MS: "1",
  });
  const port = Number(new URL(base).port);
  const idle: Deno.TcpConn[] = [];
  try {
    await waitForRoute(`${base}/load`);
    for (let i = 0; i < 200; i++) idle.push(await Deno.connect({ hostname: "127.0.0.1", port }));

    const slow = await Deno.connect({ hostname: "127.0.0.1", port });
    const body = '{"i":1,"pad":"' + "p".repeat(200) + '"}';
    await slow.write(new TextEncoder().encode(
      `POST /load HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    ));
    const started = Date.now();
    const reply = (async () => {
      const buf = new Uint8Array(4096);
      const n = await slow.read(buf);
      return n === null ? "" : new TextDecoder().decode(buf.subarray(0, n));
    })();
    const drip = (async () => {
      for (const ch of body) {
        try {
          await slow.write(new TextEncoder().encode(ch));
        } catch {
          return;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    // Meanwhile everyone else is served at once.
    const r = await fetch(`${base}/load`, {
      method: "POST",
      body: '{"i":2}',
      headers: { "content-type": "application/json" },
    });
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { i: 2 });

    const text = await reply;
    assert.match(text, /^HTTP\/1\.1 (408|504)/, `the slow body is cut off: ${text.slice(0, 80)}`);
    assert.ok(Date.now() - started < 5000, "within the request time-out, not when the body ends");
    slow.close();
    await drip;
  } finally {
    for (const c of idle) c.close();
    await worker.stop();
    await engine.stop();
  }
});
