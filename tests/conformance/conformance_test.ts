/**
 * Runs every case of `cases.ts` against each SDK's driver: a real engine
 * (child process), the driver as a real process, and a raw-frame peer.
 * Add an SDK by adding a driver and a row to `DRIVERS`.
 */
import { ROOT, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { type Frame, RawWorker, waitForFunctions } from "../support/raw_worker.ts";
import { spawnWorker } from "../support/worker_process.ts";
import { freePort } from "../support/ports.ts";
import { CASES, type ConformanceContext } from "./cases.ts";

interface Driver {
  sdk: string;
  cmd: string;
  args: string[];
  env?: Record<string, string>;
}

const DRIVERS: Driver[] = [
  {
    sdk: "TypeScript",
    cmd: Deno.execPath(),
    args: ["run", "--allow-all", `${ROOT}tests/conformance/drivers/driver.ts`],
  },
  {
    sdk: "Python",
    cmd: "python3",
    args: ["-u", `${ROOT}tests/conformance/drivers/driver.py`],
    env: { PYTHONPATH: `${ROOT}sdk/python`, PYTHONDONTWRITEBYTECODE: "1" },
  },
];

/** The peer worker of the contract: peer::double, peer::fail, peer::never. */
async function connectPeer(url: string): Promise<RawWorker> {
  const peer = await RawWorker.connect(url);
  peer.serve("peer::double", (data) => ({ n: (data as { n: number }).n * 2 }));
  peer.serve("peer::fail", () => {
    throw Object.assign(new Error("refused"), { code: "nope" });
  });
  peer.serve("peer::never", () => new Promise(() => {}));
  return peer;
}

for (const driver of DRIVERS) {
  Deno.test(`SDK conformance: ${driver.sdk}`, async (t) => {
    const port = freePort();
    const { file, dir } = await tempConfig(
      `port: ${port}\nworkers: []\nconsole:\n  enabled: false\n`,
    );
    let engine = await spawnEngine({ config: file, cwd: dir });
    let peer = await connectPeer(engine.url);
    let caller = await RawWorker.connect(engine.url);
    const worker = await spawnWorker("", { ENGINE_URL: engine.url, ...driver.env }, {
      cmd: driver.cmd,
      args: driver.args,
      ready: /driver started/,
    });
    const ctx: ConformanceContext = {
      call: (functionId: string, data: unknown): Promise<Frame> => caller.call(functionId, data),
      waitForFunctions: (ids, timeoutMs) => waitForFunctions(caller, ids, timeoutMs),
      async restartEngine() {
        await Promise.all([caller.close(), peer.close()]);
        await engine.stop("SIGKILL"); // no goodbye: the SDKs notice the dropped connection
        engine = await spawnEngine({ config: file, cwd: dir });
        peer = await connectPeer(engine.url);
        caller = await RawWorker.connect(engine.url);
      },
    };
    try {
      for (const c of CASES) await t.step(c.name, () => c.run(ctx));
    } finally {
      await worker.stop();
      await Promise.all([caller.close(), peer.close()]);
      await engine.stop();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
