/**
 * Test support for the state worker's end-to-end tests: the fixtures in
 * `tests/fixtures/state/` as child processes driven through JSON lines, and
 * the real engine, `main.ts`, as a child process with only the state worker.
 *
 * @module
 */

import { join } from "node:path";
import { type EngineProcess, spawnEngine } from "../../tests/support/engine_process.ts";
import { JsonLineProcess, type Message } from "../../tests/support/json_line_process.ts";
import { storeEngineConfig } from "../../tests/support/store_engine.ts";

const FIXTURES = new URL("../../tests/fixtures/state/", import.meta.url);

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
    await process.waitFor((m) => m.ready === true, {
      description: `the "ready" message of the sdk_worker.ts fixture connecting to ${engineUrl}`,
    });
    return new SdkWorkerProcess(process);
  }

  /** Calls `functionId` from the worker: `{result}` or `{error: {code, message}}`. */
  async call(functionId: string, payload: unknown): Promise<Message> {
    const id = ++this.#nextId;
    await this.process.send({ id, op: "call", function_id: functionId, payload });
    return await this.process.waitFor((m) => m.id === id, {
      description: `the answer to call ${id} of "${functionId}"`,
    });
  }

  /** Registers a `state` trigger bound to `functionId`; resolves with its id. */
  async registerStateTrigger(functionId: string, config: unknown): Promise<string> {
    const id = ++this.#nextId;
    await this.process.send({ id, op: "register_trigger", function_id: functionId, config });
    const answer = await this.process.waitFor((m) => m.id === id, {
      description: `the answer to command ${id}, a state trigger for "${functionId}"`,
    });
    return answer.result as string;
  }

  /** The next event `e2e::on_change` received. */
  async nextEvent(): Promise<unknown> {
    const message = await this.process.waitFor((m) => "event" in m, {
      description: "the next event e2e::on_change received",
    });
    return message.event;
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
 * written to `dir`. Resolves once it listens and has started the worker.
 */
export async function startEngineProcess(
  stateConfig: Record<string, unknown>,
  dir: string,
): Promise<EngineProcess> {
  const configFile = join(dir, "engine-config.yaml");
  await Deno.writeTextFile(configFile, storeEngineConfig({ state: stateConfig }));
  const engine = await spawnEngine({ config: configFile });
  try {
    await engine.waitForLine(/^Started worker engine-state/);
  } catch (error) {
    await engine.stop("SIGKILL");
    throw error;
  }
  return engine;
}
