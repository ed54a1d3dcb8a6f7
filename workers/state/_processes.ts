/**
 * Test support for the state worker's end-to-end tests: child processes whose
 * stdout is read line by line (the fixtures in `tests/fixtures/state/`, and
 * the real engine, `main.ts`).
 *
 * @module
 */

import { join } from "node:path";

const FIXTURES = new URL("../../tests/fixtures/state/", import.meta.url);
const MAIN = new URL("../../main.ts", import.meta.url);

type Message = Record<string, unknown>;

interface Waiter {
  match(message: Message): boolean;
  resolve(message: Message): void;
  reject(error: Error): void;
}

/**
 * A child `deno run` whose stdout lines are messages: a line holding a JSON
 * object is that object, any other line is `{line}`.
 */
export class JsonLineProcess {
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #unclaimed: Message[] = [];
  readonly #waiters: Waiter[] = [];
  readonly #stdout: Promise<void>;
  readonly #stderr: Promise<string>;
  #ended: Error | undefined;

  constructor(script: URL, args: string[], env: Record<string, string> = {}) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", script.pathname, ...args],
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#stdin = this.#child.stdin.getWriter();
    this.#stderr = new Response(this.#child.stderr).text();
    this.#stdout = this.#read();
  }

  /** The first message (already received or still to come) that `match` accepts. */
  waitFor(match: (message: Message) => boolean): Promise<Message> {
    const index = this.#unclaimed.findIndex(match);
    if (index >= 0) return Promise.resolve(this.#unclaimed.splice(index, 1)[0] as Message);
    if (this.#ended) return Promise.reject(this.#ended);
    return new Promise((resolve, reject) => this.#waiters.push({ match, resolve, reject }));
  }

  /** Writes one JSON line to the child's stdin. */
  async send(message: Message): Promise<void> {
    await this.#stdin.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  }

  /** Sends `signal` and waits for the child to exit. */
  async kill(signal: Deno.Signal): Promise<Deno.CommandStatus> {
    try {
      this.#child.kill(signal);
    } catch {
      // Already exited.
    }
    return await this.close();
  }

  /** Closes stdin and waits for the child to exit and its output to end. */
  async close(): Promise<Deno.CommandStatus> {
    await this.#stdin.close().catch(() => {});
    const status = await this.#child.status;
    await Promise.all([this.#stdout, this.#stderr]);
    return status;
  }

  async #read(): Promise<void> {
    let buffer = "";
    for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.trim() !== "") this.#deliver(parseLine(line));
      }
    }
    const stderr = await this.#stderr;
    this.#ended = new Error(
      `The child process ended before the awaited message; its stderr:\n${stderr}`,
    );
    for (const waiter of this.#waiters.splice(0)) waiter.reject(this.#ended);
  }

  #deliver(message: Message): void {
    const index = this.#waiters.findIndex((waiter) => waiter.match(message));
    if (index < 0) this.#unclaimed.push(message);
    else this.#waiters.splice(index, 1)[0]?.resolve(message);
  }
}

function parseLine(line: string): Message {
  try {
    const value = JSON.parse(line);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value;
  } catch {
    // Not JSON: a log line.
  }
  return { line };
}

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
