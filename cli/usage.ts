/**
 * Usage errors (exit code 2) and the help texts of every command.
 *
 * @module
 */
import { VERSION } from "../engine/version.ts";

export class UsageError extends Error {
  constructor(message: string, readonly command: string) {
    super(message);
    this.name = "UsageError";
  }
}

export const HELP: Record<string, string> = {
  main: `engine ${VERSION}: a function-routing engine for workers in any language

Usage:
  engine [--config <file>]            start the engine (default config: engine-config.yaml)
  engine <command> [options]

Commands:
  start      start the engine (same as no command)
  trigger    call a function and print its JSON result
  worker     add, remove or list workers (engine worker --help)
  create     scaffold a project from a template
  console    serve the web console for a running engine
  logs       print the log of a running engine

Options:
  -c, --config <file>   config file to start with
  -h, --help            show help (also: engine <command> --help)
  -v, --version         print the version

Environment:
  ENGINE_URL     the engine's WebSocket URL for trigger, logs, worker and console
                 (default: where the engine of ./engine-config.yaml listens, else
                 that file's host and port, else ws://localhost:49134)
  ENGINE_TOKEN   token workers and the CLI present when the engine requires one`,
  start: `Usage: engine [start] [--config <file>]

Starts the engine with the workers of the config file, and reloads it when
the file changes.

Options:
  -c, --config <file>   config file (default engine-config.yaml, relative to
                        the current folder)

Environment:
  ENGINE_TOKEN          token workers must present, when the file sets no
                        auth.token
  ENGINE_CONSOLE_TOKEN  the console's token, when the file sets no
                        console.token
  ENGINE_TRANSPORT      the WebSocket server: deno (default) or native
  \${VAR}                any variable the config file names: \${VAR},
                        \${VAR:default} or \${VAR:} (empty when unset)`,
  console: `Usage: engine console [--host <host>] [--port <port>] [--url <ws-url>]

Serves the web console for a running engine and prints its address; runs
until Ctrl-C. (The engine also serves it itself, on console.host:console.port,
while console.enabled is true.)

Options:
  --host <host>      where to listen (default 127.0.0.1); any other address
                     requires ENGINE_CONSOLE_TOKEN
  -p, --port <port>  port (default 3113; 0 picks a free one)
  --url <ws-url>     the engine (default: ENGINE_URL, else the running
                     engine of ./engine-config.yaml, else its host and port,
                     else ws://localhost:49134)

Environment:
  ENGINE_CONSOLE_TOKEN  token the browser must present (open the console once
                        with ?token=<token>, or send Authorization: Bearer)
  ENGINE_TOKEN          token for the engine, when it requires one`,
  logs:
    `Usage: engine logs [--follow] [--worker <name>] [--level <level>] [--trace <id>] [--trace-ids]
                   [--json] [--limit <n>]

Prints the log of a running engine: its own events, workers' Logger calls,
supervised workers' output, HTTP warnings.

Options:
  -f, --follow          keep printing new entries until Ctrl-C, or until the
                        engine goes away (then exit 1)
  -w, --worker <name>   only entries of this worker
  -l, --level <level>   only entries at this level or above: debug, info,
                        warn, error
  -t, --trace <id>      only entries of this trace (the console's Traces page,
                        engine::traces::list)
  --trace-ids           end the line of an entry in a trace with trace=<id>
  --json                one JSON object per entry (time, level, source, worker,
                        function, trace_id, span_id, message, data), as the
                        engine prints with logs.format: json
  -n, --limit <n>       how many past entries to print first (default 100; 0
                        with --follow: only new ones)
  --url <ws-url>        the engine (default: ENGINE_URL, else the running
                        engine of ./engine-config.yaml, else its host and port,
                        else ws://localhost:49134)

Exit codes: 0 success, 1 the engine is unreachable or went away, 2 bad arguments.`,
  trigger: `Usage: engine trigger --function-id=<id> [--payload=<json>] [--timeout-ms=<ms>]

Calls a function through the running engine and prints its JSON result.

Options:
  --function-id <id>   the function to call, e.g. math::add (required)
  --payload <json>     the payload as JSON text (default {}); @<file> reads it
                       from a file, - from standard input
  --timeout-ms <ms>    how long to wait for the result (default 30000)
  --url <ws-url>       the engine (default: ENGINE_URL, else the running
                       engine of ./engine-config.yaml, else its host and port,
                       else ws://localhost:49134)

Exit codes: 0 success, 1 the function failed or the engine is unreachable,
2 bad arguments.`,
  create: `Usage: engine create --template <name> [--directory <dir>] [--force]

Writes a new project from a template built into engine, and prints the
commands to run next. Nothing is downloaded: the workers' SDKs ship inside.

Templates:
  quickstart   a Python worker (math::add) and a TypeScript-SDK worker
               (math::add_two_numbers) that calls it; its README goes on with
               state and an HTTP endpoint

Options:
  -t, --template <name>    the template (required)
  -d, --directory <dir>    the project folder, created when missing (default:
                           the template's name, relative to the current folder)
  -f, --force              write into a folder that is not empty, overwriting
                           files of the same name

Exit codes: 0 created, 1 the folder cannot be used, 2 bad arguments or an
unknown template.`,
  worker: `Usage:
  engine worker add <folder|engine-http|engine-state|engine-queue> [--force] [--config <file>]
  engine worker remove <name> [--config <file>]
  engine worker list [--json] [--config <file>]

add     A folder: reads its engine.worker.yaml, runs its scripts.install in
        that folder (skipped while the manifest and lock files are unchanged
        since the last install), then adds {name, path} to the config file.
        A built-in name adds that worker with its reference configuration.
        If an engine runs that config file, it starts the worker and this
        waits until the worker's functions are registered.
remove  Removes the worker from the config file; a running engine stops it.
list    The config's workers: kind, status (installing, running, crashed,
        failed: a built-in worker that could not start, stopped), pid,
        number of functions, and why a worker cannot run.

Options:
  -c, --config <file>   config file (default engine-config.yaml)
  -f, --force           add: reinstall dependencies and restart the worker
  --no-wait             add, remove: do not wait for the engine
  --timeout-ms <ms>     how long to wait (default add 120000, remove 30000)
  --url <ws-url>        the engine (default: ENGINE_URL, else the running
                        engine of the config, else the config's host and port)
  --json                list: print JSON

Exit codes: 0 success, 1 failure (invalid manifest, failed install, worker
crashed or not ready in time), 2 bad arguments.`,
};

export function helpFor(command: string): string {
  return HELP[command] ?? HELP.main!;
}
