/**
 * A worker as a child process (`deno run <fixture>`), started with
 * `ENGINE_URL` and waited for through the "ready" line it prints.
 *
 * @module
 */
import { ROOT } from "./engine_process.ts";

export interface WorkerProcess {
  child: Deno.ChildProcess;
  pid: number;
  output: string[];
  stop(signal?: Deno.Signal): Promise<Deno.CommandStatus>;
}

export async function spawnWorker(
  file: string,
  env: Record<string, string>,
  options: { ready?: RegExp; timeoutMs?: number; cmd?: string; args?: string[] } = {},
): Promise<WorkerProcess> {
  const child = new Deno.Command(options.cmd ?? Deno.execPath(), {
    args: options.args ?? ["run", "--allow-all", `${ROOT}${file}`],
    cwd: ROOT,
    env: { NO_COLOR: "1", OTEL_ENABLED: "false", ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output: string[] = [];
  const ready = options.ready ?? /^ready$/m;
  let signalReady: () => void;
  const isReady = new Promise<void>((r) => (signalReady = r));
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const chunk of s.pipeThrough(new TextDecoderStream())) {
      output.push(chunk);
      if (ready.test(output.join(""))) signalReady();
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const status = child.status;
  const timeoutMs = options.timeoutMs ?? 30_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      isReady,
      status.then((s) => {
        throw new Error(
          `Worker ${file} exited (${s.code}) before it was ready:\n${output.join("")}`,
        );
      }),
      new Promise((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(
                `Timed out after ${timeoutMs}ms waiting for worker ${file} to print ${ready}: ` +
                  `its output:\n${output.join("")}`,
              ),
            ),
          timeoutMs,
        );
      }),
    ]);
  } catch (e) {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await status;
    await pumps;
    throw e;
  } finally {
    clearTimeout(timer);
  }
  return {
    child,
    pid: child.pid,
    output,
    async stop(signal: Deno.Signal = "SIGTERM") {
      try {
        child.kill(signal);
      } catch { /* already gone */ }
      const s = await status;
      await pumps;
      return s;
    },
  };
}
