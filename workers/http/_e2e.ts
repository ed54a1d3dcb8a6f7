/**
 * End-to-end test helpers: a real engine on a free port with engine-http on
 * another, and worker processes from `tests/fixtures/http/` that say `ready`
 * on stdout once their registrations have been handled.
 *
 * @module
 */
import { type RunningEngine, startEngine } from "../../engine/engine.ts";
import { httpWorker } from "./mod.ts";

const ROOT = new URL("../../", import.meta.url);
const FIXTURES = new URL("tests/fixtures/http/", ROOT);

export interface Stack {
  engine: RunningEngine;
  /** `http://127.0.0.1:<port>` of engine-http. */
  base: string;
  stop(): Promise<void>;
}

/** An engine with engine-http configured by `config` (port 0 unless given). */
export async function startStack(config: Record<string, unknown> = {}): Promise<Stack> {
  const engine = await startEngine({
    port: 0,
    shutdownGraceMs: 100,
    builtins: [{ worker: httpWorker, config: httpWorker.parseConfig({ port: 0, ...config }) }],
  });
  const status = engine.describeBuiltin("engine-http") as { port: number };
  return { engine, base: `http://127.0.0.1:${status.port}`, stop: () => engine.stop() };
}

/** A running fixture process. */
export class Fixture {
  readonly #child: Deno.ChildProcess;
  readonly #output: Promise<void>[];
  readonly #sawReady = Promise.withResolvers<void>();
  #stdout = "";
  #stderr = "";

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#output = [
      collect(child.stdout, (text) => {
        this.#stdout += text;
        if (this.#stdout.split("\n").includes("ready")) this.#sawReady.resolve();
      }),
      collect(child.stderr, (text) => this.#stderr += text),
    ];
  }

  /** Starts `tests/fixtures/http/<name>.ts` against `engine` and waits for its `ready` line. */
  static async start(
    name: string,
    engine: RunningEngine,
    env: Record<string, string> = {},
  ): Promise<Fixture> {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", new URL(`${name}.ts`, FIXTURES).pathname],
      cwd: ROOT.pathname, // where deno.json maps the npm packages
      env: { ENGINE_URL: engine.url, OTEL_ENABLED: "false", NO_COLOR: "1", ...env },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const fixture = new Fixture(child);
    try {
      await fixture.#ready(name);
    } catch (e) {
      await fixture.kill();
      throw e;
    }
    return fixture;
  }

  async #ready(name: string): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const failed = Promise.race([
      this.#child.status.then((s) => `exited with code ${s.code}`),
      new Promise<string>((resolve) =>
        timer = setTimeout(resolve, 60_000, "was not ready within 60 s")
      ),
    ]).then((why) => {
      throw new Error(`Fixture "${name}" ${why}: ${this.#stderr}`);
    });
    try {
      await Promise.race([this.#sawReady.promise, failed]);
    } finally {
      clearTimeout(timer);
      failed.catch(() => {});
    }
  }

  /** Kills the process and waits until it is gone and its output closed. */
  async kill(): Promise<void> {
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already exited
    }
    await this.#child.status;
    await Promise.all(this.#output);
  }
}

async function collect(
  stream: ReadableStream<Uint8Array>,
  sink: (text: string) => void,
): Promise<void> {
  for await (const text of stream.pipeThrough(new TextDecoderStream())) sink(text);
}

/** Fetches `base + path` and returns the status and the parsed (or raw) body. */
export async function fetchJson(
  base: string,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const response = await fetch(base + path, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body };
}
