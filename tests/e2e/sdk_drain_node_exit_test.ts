/**
 * Under Node, a worker on the quickstart template's bundled SDK whose SIGTERM
 * handler calls `shutdown()` (and nothing else) sees it resolve and then
 * exits by itself, code 0: no timer, socket or reconnect is left holding the
 * process open. Connected (idle, or with a handler running and a call
 * waiting), with the engine down (never reached, gone after connecting, gone
 * during the drain), and halfway through a handshake the engine never
 * answers. Skipped with a message when `node` is not on PATH.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import type { EngineProcess } from "../support/engine_process.ts";
import { type HeldTcp, holdTcp } from "../support/held_tcp.ts";
import { freePort } from "../support/ports.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { nodeVersion } from "../../sdk/typescript/_testing/node.ts";
import { registerWorker, type Worker } from "../../sdk/typescript/mod.ts";
import {
  type NodeWorker,
  prepareWorkerDir,
  spawnNodeWorker,
  stopNodeWorker,
} from "./sdk_drain_node_worker.ts";

const NODE = nodeVersion();
if (!NODE) console.warn("SKIPPING the Node shutdown exit test: `node` is not on PATH");

/** What a case has running while the Node worker lives. */
interface Setup {
  /** The engine, when the case starts one. */
  engine?: EngineProcess;
  /** A Deno SDK worker offering `peer::hang`, which never answers. */
  peer?: Worker;
  /** A worker calling the Node worker's functions. */
  caller?: RawWorker;
  /** A TCP server that accepts connections and never answers. */
  held?: HeldTcp;
}

interface Case {
  name: string;
  /** Where the worker connects; sets up what it needs there. */
  setup(s: Setup): Promise<string>;
  env: Record<string, string>;
  /** Brings the worker where the case is, then sends SIGTERM (and what follows). */
  run(s: Setup, node: NodeWorker): Promise<void>;
  /** Lines the worker must have printed once it exited. */
  printed: RegExp[];
}

async function startEngine(s: Setup): Promise<string> {
  const { file } = await tempConfig("port: 0\nconsole:\n  enabled: false\n");
  s.engine = await spawnEngine({ config: file });
  return s.engine.url;
}

const CASES: Case[] = [
  {
    name: "connected and idle",
    setup: startEngine,
    env: {},
    async run(_s, node) {
      await node.waitForLine(/^ready$/);
      node.signal("SIGTERM");
    },
    printed: [],
  },
  {
    name: "connected, a handler running and a call of its own waiting",
    async setup(s) {
      const url = await startEngine(s);
      s.peer = registerWorker(url, { worker_name: "drain-peer" });
      s.peer.registerFunction("peer::hang", () => new Promise(() => {}));
      await s.peer.ready();
      s.caller = await RawWorker.connect(url);
      return url;
    },
    env: { HOLD: "1", CALL: "peer::hang" },
    async run(s, node) {
      await waitForFunctions(s.caller!, ["drain::hold"], 20_000);
      const held = s.caller!.call("drain::hold", {});
      held.catch(() => {}); // awaited below
      await node.waitForLine(/^holding$/);
      node.signal("SIGTERM");
      await node.waitForLine(/^draining$/);
      node.signal("SIGUSR2");
      const answer = await held;
      assert.equal(answer.error, undefined, JSON.stringify(answer.error));
      assert.equal(answer.result.pid, node.pid, "the held call finished on the worker");
    },
    printed: [/^call ended: shutdown$/],
  },
  {
    name: "the engine never reached (reconnecting), a call queued",
    setup: () => Promise.resolve(`ws://127.0.0.1:${freePort()}`),
    env: { CALL: "peer::hang", RECONNECT_MS: "600000" },
    async run(_s, node) {
      await node.waitForLine(/Reconnecting in \d+ms \(attempt 1\)/);
      node.signal("SIGTERM");
    },
    printed: [/^ready failed: shutdown$/, /^call ended: shutdown$/],
  },
  {
    name: "the engine gone after connecting (reconnecting)",
    setup: startEngine,
    env: { RECONNECT_MS: "600000" },
    async run(s, node) {
      await node.waitForLine(/^ready$/);
      await s.engine!.stop("SIGKILL");
      await node.waitForLine(/Reconnecting in \d+ms/);
      node.signal("SIGTERM");
    },
    printed: [],
  },
  {
    name: "the engine gone during the drain, a handler running",
    async setup(s) {
      const url = await startEngine(s);
      s.caller = await RawWorker.connect(url);
      return url;
    },
    env: { HOLD: "1", RECONNECT_MS: "600000" },
    async run(s, node) {
      await waitForFunctions(s.caller!, ["drain::hold"], 20_000);
      s.caller!.call("drain::hold", {}).catch(() => {}); // its answer is lost with the engine
      await node.waitForLine(/^holding$/);
      node.signal("SIGTERM");
      await node.waitForLine(/^draining$/);
      await s.caller!.close();
      delete s.caller;
      await s.engine!.stop("SIGKILL");
      await node.waitForLine(/Reconnecting in \d+ms/);
      node.signal("SIGUSR2");
    },
    printed: [],
  },
  {
    name: "an engine that accepts the connection and never answers the handshake",
    setup(s) {
      s.held = holdTcp();
      return Promise.resolve(`ws://127.0.0.1:${s.held.port}`);
    },
    env: {},
    async run(s, node) {
      await s.held!.accepted; // the worker's handshake waits (10 s by default)
      node.signal("SIGTERM");
    },
    printed: [],
  },
];

for (const c of CASES) {
  Deno.test({
    name: `[Node ${NODE ?? "not on PATH"}] after shutdown() the worker exits by itself: ${c.name}`,
    ignore: !NODE,
    async fn() {
      const s: Setup = {};
      const dir = await prepareWorkerDir();
      let node: NodeWorker | undefined;
      try {
        const url = await c.setup(s);
        node = spawnNodeWorker(dir, { ENGINE_URL: url, ...c.env });
        await c.run(s, node);
        await node.waitForLine(/^shut down$/, 30_000);
        const status = await Promise.race([
          node.exited,
          node.waitForLine(/^still running after shutdown\(\)/).then((line) => {
            throw new Error(`The Node worker did not exit after shutdown(): ${line}`);
          }),
        ]);
        assert.equal(status.code, 0, node.lines.join("\n"));
        for (const line of c.printed) {
          assert.ok(
            node.lines.some((l) => line.test(l)),
            `no line ${line}:\n${node.lines.join("\n")}`,
          );
        }
      } finally {
        await stopNodeWorker(node);
        await s.caller?.close();
        await s.peer?.shutdown({ drainTimeoutMs: 0 });
        await s.held?.close();
        await s.engine?.stop("SIGKILL");
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
