/**
 * Test support for the state worker's end-to-end tests: the fixtures in
 * `tests/fixtures/state/` and the real engine, `main.ts`, as child processes
 * whose stdout is read line by line.
 *
 * @module
 */

import { join } from "node:path";
import { JsonLineProcess, type Message } from "../../tests/support/json_line_process.ts";

const FIXTURES = new URL("../../tests/fixtures/state/", import.meta.url);
const MAIN = new URL("../../main.ts", import.meta.url);

/** The `sdk_worker.ts` fixture: a TS SDK worker process driven by the test. */
export class SdkWorkerProcess {
  readonly process: JsonLineProcess;
  #nextId = 0;

  private constructor(process: JsonLineProcess) {
    this.process = process;
  }

  /** Starts the worker and resolves once it is connected to `engineUrl`. */
  static async start(engineUrl: string): Promise<SdkWorkerProcess> {
    const process = new JsonLineProcess(new URL("sdk_worker.ts", FIXTURES), [engineUrl]);
    await process.waitFor((m) => m.ready === true);
    return new SdkWorkerProcess(process);
  }

  /** Calls `functionId` from the worker: `{result}` or `{error: {code, message}}`. */
  async call(functionId: string, payload: unknown): Promise<Message> {
    const id = ++this.#nextId;
    await this.process.send({ id, op: "call", function_id: functionId, payload });
    return await this.process.waitFor((m) => m.id === id);
  }

  /** Registers a `state` trigger bound to `functionId`; resolves with its id. */
  async registerStateTrigger(functionId: string, config: unknown): Promise<string> {
    const id = ++this.#nextId;
    await this.process.send({ id, op: "register_trigger", function_id: functionId, config });
    return (await this.process.waitFor((m) => m.id === id)).result as string;
  }

  /** The next event `e2e::on_change` received. */
  async nextEvent(): Promise<unknown> {
    return (await this.process.waitFor((m) => "event" in m)).event;
  }

  stop(): Promise<Deno.CommandStatus> {
    return this.process.close();
  }
}

/** The `iii_sdk_state.ts` fixture: a worker on the published `iii-sdk`, connected to `engineUrl`. */
export function startIiiSdkWorker(engineUrl: string): JsonLineProcess {
  return new JsonLineProcess(new URL("iii_sdk_state.ts", FIXTURES), [], { ENGINE_URL: engineUrl });
}

/**
 * The real engine (`main.ts --config`) in its own process, on a free port,
 * with only the state worker, configured by `stateConfig`. Its config file is
 * written to `dir`. Resolves with its URL once it has started the worker.
 */
export async function startEngineProcess(
  stateConfig: unknown,
  dir: string,
): Promise<{ url: string; process: JsonLineProcess }> {
  const configFile = join(dir, "engine-config.yaml");
  const config = {
    host: "127.0.0.1",
    port: 0,
    workers: [{ name: "engine-state", config: stateConfig }],
    console: { enabled: false },
  };
  // JSON is YAML.
  await Deno.writeTextFile(configFile, JSON.stringify(config, null, 2));
  const process = new JsonLineProcess(MAIN, ["--config", configFile]);
  const listening = await process.waitFor((m) =>
    typeof m.line === "string" && m.line.startsWith("Engine listening on ")
  );
  const url = /ws:\/\/\S+/.exec(listening.line as string)?.[0];
  if (url === undefined) throw new Error(`No engine URL in "${listening.line}"`);
  await process.waitFor((m) =>
    typeof m.line === "string" && m.line.startsWith("Started worker engine-state")
  );
  return { url, process };
}
