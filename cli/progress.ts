/**
 * Progress of a long step (an install, waiting for a worker): on a terminal
 * a spinner with the elapsed time and the latest output line, redrawn in
 * place on stderr; elsewhere (CI, tests, a pipe) plain lines, one per
 * output line or status change.
 *
 * @module
 */

import type { Io } from "./trigger.ts";

export interface Progress {
  /** The latest output line (shown after the spinner, or printed as `  │ line`). */
  line(text: string): void;
  /** A new status text (replaces the label on a terminal, printed once otherwise). */
  status(text: string): void;
  /** Clears the spinner; `final` (if any) is printed as a line. */
  done(final?: string): void;
}

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export interface ProgressOptions {
  /** Draw a spinner (default: when stderr is a terminal and `io` prints to the console). */
  tty?: boolean;
  /** Print output lines in plain mode (default true). */
  echoLines?: boolean;
}

/** Starts showing progress of a step called `label`. */
export function progress(io: Io, label: string, options: ProgressOptions = {}): Progress {
  const tty = options.tty ?? Deno.stderr.isTerminal();
  if (!tty) return plainProgress(io, label, options.echoLines ?? true);
  const started = Date.now();
  const encoder = new TextEncoder();
  let text = label;
  let last = "";
  let frame = 0;
  const draw = () => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const width = columns();
    let row = `${FRAMES[frame++ % FRAMES.length]} ${text} ${seconds}s`;
    if (last !== "") row += `  ${last.replace(/\s+/g, " ")}`;
    Deno.stderr.writeSync(encoder.encode(`\r\x1b[K${row.slice(0, Math.max(width - 1, 10))}`));
  };
  const timer = setInterval(draw, 100);
  draw();
  return {
    line: (l) => (last = l),
    status: (s) => (text = s),
    done(final) {
      clearInterval(timer);
      Deno.stderr.writeSync(encoder.encode("\r\x1b[K"));
      if (final !== undefined) io.out(final);
    },
  };
}

function plainProgress(io: Io, label: string, echoLines: boolean): Progress {
  io.out(label);
  let current = label;
  return {
    line(l) {
      if (echoLines) io.out(`  │ ${l}`);
    },
    status(s) {
      if (s !== current) io.out(s);
      current = s;
    },
    done(final) {
      if (final !== undefined) io.out(final);
    },
  };
}

function columns(): number {
  try {
    const { columns } = Deno.consoleSize();
    return columns >= 20 ? columns : 80; // a pty without a size says 0
  } catch {
    return 80;
  }
}

/** `1.2s`, `45.0s`, `2m03s`. */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}
