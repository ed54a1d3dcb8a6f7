/**
 * The open-file limit reached: `Deno.serve` stops accepting for good when an
 * accept fails (EMFILE), and the rejection used to end the engine. Each of
 * the engine's three servers (workers' port, engine-http, console) must log
 * it, keep the connections it has, and listen again once connections close.
 * The limit is lowered on the running engine with `prlimit --pid`.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";

const HEADROOM = 24;

function openFds(pid: number): number {
  return [...Deno.readDirSync(`/proc/${pid}/fd`)].length;
}

async function lowerFdLimit(pid: number, limit: number): Promise<void> {
  const out = await new Deno.Command("prlimit", {
    args: ["--pid", String(pid), `--nofile=${limit}:${limit}`],
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

/**
 * Idle TCP connections to `port`, as many of `count` as connect: once the
 * server has stopped listening, attempts are refused (or reset, when its
 * listener closes with them queued) until it listens again.
 */
async function flood(port: number, count: number): Promise<Deno.TcpConn[]> {
  const conns: Deno.TcpConn[] = [];
  for (let i = 0; i < count; i++) {
    try {
      conns.push(await Deno.connect({ hostname: "127.0.0.1", port }));
    } catch (e) {
      const dropped = e instanceof Deno.errors.ConnectionRefused ||
        e instanceof Deno.errors.ConnectionReset;
      if (!dropped) throw e;
    }
  }
  return conns;
}

async function status(url: string): Promise<number> {
  const response = await fetch(url);
  await response.body?.cancel();
  return response.status;
}

/** What the workers' port logs on each transport; `native` keeps its listener, so never listens again. */
const TRANSPORTS = [
  {
    name: "deno",
    refused: /Engine server cannot accept connections: listening again in \d+ ms .*open-file limit/,
    again: /Engine server listens again/,
  },
  {
    name: "native",
    refused: /Engine server cannot accept a connection: retrying in \d+ ms .*open-file limit/,
    again: undefined,
  },
];

for (const transport of TRANSPORTS) {
  Deno.test({
    name:
      `at the open-file limit the engine's servers log it, keep their sockets and listen again once connections close (${transport.name})`,
    ignore: Deno.build.os !== "linux",
    async fn() {
      const { file } = await tempConfig(
        "port: 0\nconsole:\n  port: 0\nworkers:\n  - name: engine-http\n    config:\n      port: 0\n",
      );
      const engine = await spawnEngine({ config: file, env: { ENGINE_TRANSPORT: transport.name } });
      try {
        const httpLine = await engine.waitForLine(/Started worker engine-http .*"port":(\d+)/);
        const httpPort = Number(/"port":(\d+)/.exec(httpLine)![1]);
        const consoleLine = await engine.waitForLine(/Console on http:\/\/\S+:(\d+)/);
        const consolePort = Number(/:(\d+)\s*$/.exec(consoleLine)![1]);
        const health = `http://127.0.0.1:${engine.port}/health`;
        assert.equal(await status(health), 200);

        // A worker connected before the limit is reached keeps its socket throughout.
        const worker = new WebSocket(engine.url);
        await new Promise((resolve, reject) => {
          worker.onopen = resolve;
          worker.onerror = reject;
        });

        const pid = engine.child.pid;
        await lowerFdLimit(pid, openFds(pid) + HEADROOM);
        const conns = await flood(engine.port, HEADROOM * 2);
        await engine.waitForLine(transport.refused);
        // Then a few to each of the other two servers (a socket closing elsewhere may free a file
        // for one of them): their accept fails too.
        conns.push(...await flood(httpPort, 8), ...await flood(consolePort, 8));
        await engine.waitForLine(/HTTP worker cannot accept connections/);
        await engine.waitForLine(/Console cannot accept connections/);

        // Still running, and the worker's socket still answers: a frame in, an answer out.
        const answer = new Promise<string>((resolve) => {
          worker.onmessage = (e) => resolve(String(e.data));
        });
        worker.send(JSON.stringify({
          type: "invokefunction",
          invocation_id: "fd-limit-1",
          function_id: "engine::health::check",
          data: {},
        }));
        assert.match(await answer, /"invocationresult"/);

        for (const conn of conns) conn.close();
        if (transport.again) await engine.waitForLine(transport.again);
        await engine.waitForLine(/HTTP worker listens again/);
        await engine.waitForLine(/Console listens again/);
        assert.equal(await status(health), 200);
        assert.equal(await status(`http://127.0.0.1:${httpPort}/nothing-here`), 404);
        assert.equal(await status(`http://127.0.0.1:${consolePort}/`), 200);
        worker.close();
        assert.equal(await engine.stop(), 0);
      } finally {
        await engine.kill("SIGKILL");
      }
    },
  });
}
