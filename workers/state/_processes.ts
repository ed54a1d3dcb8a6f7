/**
 * Test support for the state worker's end-to-end tests: child processes that
 * speak JSON lines on stdio (the fixtures in `tests/fixtures/state/`).
 *
 * @module
 */

const FIXTURES = new URL("../../tests/fixtures/state/", import.meta.url);

type Message = Record<string, unknown>;

interface Waiter {
  match(message: Message): boolean;
  resolve(message: Message): void;
  reject(error: Error): void;
}

/** A child `deno run` whose stdout lines are JSON messages. */
export class JsonLineProcess {
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #unclaimed: Message[] = [];
  readonly #waiters: Waiter[] = [];
  readonly #stdout: Promise<void>;
  readonly #stderr: Promise<string>;
  #ended: Error | undefined;

  constructor(fixture: string, args: string[]) {
    this.#child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", new URL(fixture, FIXTURES).pathname, ...args],
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
        if (line.trim() !== "") this.#deliver(JSON.parse(line));
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

/** The `sdk_worker.ts` fixture: a TS SDK worker process driven by the test. */
export class SdkWorkerProcess {
  readonly process: JsonLineProcess;
  #nextId = 0;

  private constructor(process: JsonLineProcess) {
    this.process = process;
  }

  /** Starts the worker and resolves once it is connected to `engineUrl`. */
  static async start(engineUrl: string): Promise<SdkWorkerProcess> {
    const process = new JsonLineProcess("sdk_worker.ts", [engineUrl]);
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

/** The `engine_child.ts` fixture: an engine with the state worker in its own process. */
export async function startEngineProcess(
  config: unknown,
): Promise<{ url: string; process: JsonLineProcess }> {
  const process = new JsonLineProcess("engine_child.ts", [JSON.stringify(config)]);
  const { url } = await process.waitFor((m) => typeof m.url === "string");
  return { url: url as string, process };
}
