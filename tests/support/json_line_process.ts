/**
 * Test support: a child `deno run` process that is driven through JSON lines:
 * messages written to its stdin, messages read from its stdout (the fixtures
 * of the state and queue workers' end-to-end tests).
 *
 * @module
 */

import { readLines } from "./lines.ts";
import { Waiters, type WaitOptions } from "./waiters.ts";

/** One line of the child's output, or one line written to its input. */
export type Message = Record<string, unknown>;

/** How many of the last stderr lines a time-out message shows. */
const STDERR_SHOWN = 20;

/**
 * A child `deno run` whose stdout lines are messages: a line holding a JSON
 * object is that object, any other line is `{line}`.
 */
export class JsonLineProcess {
  readonly #child: Deno.ChildProcess;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  /** Every message received, for the time-out messages of {@link waitFor}. */
  readonly #seen: Message[] = [];
  readonly #unclaimed: Message[] = [];
  /** Every line the child wrote to stderr so far, read as it comes. */
  readonly #stderrLines: string[] = [];
  readonly #waiters = new Waiters<Message>({
    item: "message",
    seen: () => this.#seen,
    also: () => this.#stderrTail(),
    timeoutMs: 30_000,
  });
  readonly #stdout: Promise<void>;
  readonly #stderr: Promise<void>;
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
    this.#stderr = this.#readStderr();
    this.#stdout = this.#read();
  }

  /**
   * The first message (already received or still to come) that `match`
   * accepts and no earlier wait took. After `timeoutMs` (30 s by default) it
   * rejects with an error naming `description` (by default the predicate's
   * source), the last messages received and the last lines of stderr.
   */
  waitFor(match: (message: Message) => boolean, options: WaitOptions = {}): Promise<Message> {
    const index = this.#unclaimed.findIndex(match);
    if (index >= 0) return Promise.resolve(this.#unclaimed.splice(index, 1)[0] as Message);
    if (this.#ended) return Promise.reject(this.#ended);
    return this.#waiters.wait(match, options);
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
    for await (const line of readLines(this.#child.stdout)) {
      if (line.trim() === "") continue;
      const message = parseLine(line);
      this.#seen.push(message);
      if (!this.#waiters.deliver(message)) this.#unclaimed.push(message);
    }
    await this.#stderr;
    this.#ended = new Error(
      `The child process ended before the awaited message; its stderr:\n${
        this.#stderrLines.join("\n")
      }`,
    );
    this.#waiters.rejectAll(this.#ended);
  }

  async #readStderr(): Promise<void> {
    for await (const line of readLines(this.#child.stderr, { unterminated: true })) {
      this.#stderrLines.push(line);
    }
  }

  /** The last lines of stderr, for a time-out message. */
  #stderrTail(): string {
    const lines = this.#stderrLines;
    if (lines.length === 0) return "its stderr: nothing so far";
    const which = lines.length > STDERR_SHOWN
      ? `the last ${STDERR_SHOWN} of ${lines.length} lines of its stderr`
      : "its stderr";
    return `${which}:\n${lines.slice(-STDERR_SHOWN).map((line) => `  ${line}`).join("\n")}`;
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
