/**
 * The command line: `engine [--config <file>]`, `engine trigger …`, and the
 * other commands. Returns the exit code; only `main.ts` exits.
 *
 * @module
 */
import { VERSION } from "../engine/version.ts";
import { create } from "./create.ts";
import { consoleCommand } from "./console.ts";
import { logs } from "./logs.ts";
import { standardOutput } from "./output.ts";
import { start } from "./start.ts";
import { trigger } from "./trigger.ts";
import type { Io } from "./trigger.ts";
import { didYouMean } from "../engine/suggest.ts";
import { helpFor, UsageError } from "./usage.ts";
import { worker } from "./worker.ts";

type Command = (args: string[], io: Io) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  create,
  console: consoleCommand,
  logs,
  start,
  trigger,
  worker,
};

const stdoutClosed = Promise.withResolvers<void>();
const encoder = new TextEncoder();

/**
 * The terminal, a pipe or a file. `out` writes as `console.log` would, but
 * notices a reader that went away (`console.log` ignores a broken pipe), so
 * that `engine logs -f | head -1` ends.
 */
export const consoleIo: Io = {
  out: (line) => {
    const bytes = encoder.encode(`${line}\n`);
    try {
      for (let at = 0; at < bytes.length;) at += Deno.stdout.writeSync(bytes.subarray(at));
    } catch (e) {
      if (!(e instanceof Deno.errors.BrokenPipe)) throw e;
      stdoutClosed.resolve();
    }
  },
  err: (line) => console.error(line),
  outClosed: stdoutClosed.promise,
};

export async function main(args: string[], io: Io = consoleIo): Promise<number> {
  const first = args[0];
  if (first === "-v" || first === "--version") {
    io.out(VERSION);
    return 0;
  }
  if (first === "-h" || first === "--help" || first === "help") {
    io.out(helpFor(args[1] ?? "main"));
    return 0;
  }
  const named = first !== undefined && !first.startsWith("-");
  const name = named ? first : "start";
  const rest = named ? args.slice(1) : args;
  const command = COMMANDS[name];
  if (!command) {
    const hint = didYouMean(name, Object.keys(COMMANDS));
    io.err(`Error: Unknown command "${name}"${hint}\n\n${helpFor("main")}`);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.out(helpFor(name));
    return 0;
  }
  try {
    // The engine must not stall on a pipe nobody reads (cli/output.ts); one-shot commands print
    // everything, however slowly it is read.
    return await command(rest, name === "start" && io === consoleIo ? standardOutput() : io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`Error: ${e.message}\n\n${helpFor(e.command)}`);
      return 2;
    }
    throw e;
  }
}
