/**
 * Standard output and error that never stall the engine. `console.log`
 * writes synchronously: once a pipe's reader stops reading (a log shipper
 * that hangs, `engine | less` left on one page) the pipe fills and the next
 * line blocks the whole process, every worker and request with it. A
 * {@linkcode LineOutput} writes in the background instead, holds up to
 * `maxHeldBytes` while the reader is behind, drops the lines beyond and,
 * once it can write again, says how many
 * (`… 120 lines of output dropped: stdout was not read`). When the reader
 * goes away (`engine | head -1`: a broken pipe) it drops everything after,
 * says so once through `onGone` (the other stream), and the engine runs on.
 * A terminal is written to synchronously, as before: its lines stay in
 * order with what else writes there.
 *
 * @module
 */

/** Where a {@linkcode LineOutput} writes, and what it does when that stops. */
export interface LineOutputOptions {
  /** The stream's name in messages: `stdout`, `stderr`. */
  name: string;
  /** Writes some of `bytes`, resolving with how many (as `Deno.stdout.write`). */
  write: (bytes: Uint8Array) => Promise<number>;
  /** Bytes held while the reader is behind; lines beyond are dropped. Default 1 MiB. */
  maxHeldBytes?: number;
  /** Told once when writing failed for good (the reader went away). */
  onGone?: (message: string) => void;
}

const encoder = new TextEncoder();

/** Lines written in the background, in order, never blocking the caller. */
export class LineOutput {
  #o: LineOutputOptions;
  #max: number;
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  #dropped = 0;
  #gone = false;
  /** Settles when the background writing that runs now has written everything held. */
  #writing: Promise<void> | undefined;

  constructor(options: LineOutputOptions) {
    this.#o = options;
    this.#max = options.maxHeldBytes ?? 1024 * 1024;
  }

  /** Queues `text` and a newline; drops it when too much is held already, or the reader is gone. */
  line(text: string): void {
    if (this.#gone) return;
    const bytes = encoder.encode(`${text}\n`);
    if (this.#heldBytes > 0 && this.#heldBytes + bytes.length > this.#max) {
      this.#dropped++;
      return;
    }
    if (this.#dropped > 0) {
      const lines = this.#dropped === 1 ? "1 line" : `${this.#dropped} lines`;
      this.#hold(encoder.encode(`… ${lines} of output dropped: ${this.#o.name} was not read\n`));
      this.#dropped = 0;
    }
    this.#hold(bytes);
    this.#writing ??= this.#drain();
  }

  /**
   * Resolves once everything held is written, or after `timeoutMs` (a reader
   * that never reads again must not keep the process from exiting).
   */
  async flush(timeoutMs: number): Promise<void> {
    if (!this.#writing) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      this.#writing,
      new Promise((resolve) => timer = setTimeout(resolve, timeoutMs)),
    ]);
    clearTimeout(timer);
  }

  #hold(bytes: Uint8Array): void {
    this.#held.push(bytes);
    this.#heldBytes += bytes.length;
  }

  async #drain(): Promise<void> {
    try {
      await this.#writeHeld();
    } finally {
      // At once when the last write is done: a line queued from now on starts writing again.
      this.#writing = undefined;
      // A line queued after the last write but before this point found #writing still set
      // and started nothing: it would wait for the next line, maybe for ever.
      if (this.#held.length > 0 && !this.#gone) this.#writing = this.#drain();
    }
  }

  async #writeHeld(): Promise<void> {
    while (this.#held.length > 0) {
      const chunk = concat(this.#held);
      this.#held = [];
      try {
        for (let at = 0; at < chunk.length;) at += await this.#o.write(chunk.subarray(at));
      } catch (error) {
        this.#gone = true;
        this.#held = [];
        this.#heldBytes = 0;
        this.#o.onGone?.(
          `Output to ${this.#o.name} stopped: its reader went away (${
            (error as Error).message
          }): ` +
            `the engine runs on without it (its log is still kept: engine logs, the console)`,
        );
        return;
      }
      this.#heldBytes -= chunk.length;
    }
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return all;
}

/**
 * The process's stdout and stderr: a {@linkcode LineOutput} each when it is
 * not a terminal (a pipe, a file), else `console.log` / `console.error`.
 * When one stream's reader goes away, the other says so.
 */
export function standardOutput(): { out: (line: string) => void; err: (line: string) => void } {
  const streams: { out?: LineOutput; err?: LineOutput } = {};
  const out = Deno.stdout.isTerminal() ? (line: string) => console.log(line) : (() => {
    const output = new LineOutput({
      name: "stdout",
      write: (bytes) => Deno.stdout.write(bytes),
      onGone: (message) => err(message),
    });
    streams.out = output;
    return (line: string) => output.line(line);
  })();
  const err = Deno.stderr.isTerminal() ? (line: string) => console.error(line) : (() => {
    const output = new LineOutput({
      name: "stderr",
      write: (bytes) => Deno.stderr.write(bytes),
      onGone: (message) => out(message),
    });
    streams.err = output;
    return (line: string) => output.line(line);
  })();
  outputs.push(...[streams.out, streams.err].filter((o) => o !== undefined));
  return { out, err };
}

const outputs: LineOutput[] = [];

/** Waits (up to `timeoutMs`) for every line of {@linkcode standardOutput} to be written. */
export async function flushStandardOutput(timeoutMs = 2000): Promise<void> {
  await Promise.all(outputs.map((o) => o.flush(timeoutMs)));
}
