import assert from "node:assert/strict";
import { readLines, readOutput } from "./group.ts";

async function linesOf(chunks: string[], maxLength: number): Promise<string[]> {
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  const lines: string[] = [];
  await readLines(stream, (line) => lines.push(line), maxLength);
  return lines;
}

Deno.test("readLines() gives lines whole, and one line over the limit as one cut line saying how much was cut", async () => {
  const cases: [string, string[], string[]][] = [
    ["short lines, CRLF, last line without newline", ["a\r\nb\n", "c"], ["a", "b", "c"]],
    ["a line split across chunks", ["ab", "cd\n"], ["abcd"]],
    ["a long line in one chunk", ["0123456789ab\nx\n"], [
      "01234567 … [4 more characters cut]",
      "x",
    ]],
    [
      "a long line across many chunks, then another line",
      ["0123", "4567", "89", "abcdef", "gh\nnext\n"],
      ["01234567 … [10 more characters cut]", "next"],
    ],
    ["a long last line without newline", ["0123456789", "abc"], [
      "01234567 … [5 more characters cut]",
    ]],
    ["exactly the limit", ["01234567\n"], ["01234567"]],
    ["colours and a link dropped", ["\x1b[0m\x1b[1m\x1b[31merror\x1b[0m: x\n"], ["error: x"]],
    ["an OSC 8 link", ["\x1b]8;;http://a\x1b\\a\x1b]8;;\x07\n"], ["a"]],
  ];
  for (const [name, chunks, expected] of cases) {
    assert.deepEqual(await linesOf(chunks, 8), expected, name);
  }
});

Deno.test("readLines() turns the control characters left (binary output) into U+FFFD, keeping tabs", async () => {
  // ESC c resets a terminal, SO switches it to another character set, BEL rings, U+009B is CSI.
  const cases: [string, string[], string[]][] = [
    ["a terminal reset", ["a\x1bcb\n"], ["a\ufffdcb"]],
    ["C0 controls, DEL", ["\x0e\x00\x07\x08\x0b\x0c\x7f|\n"], ["\ufffd".repeat(7) + "|"]],
    ["a C1 CSI", ["\u009b2Jx\n"], ["\ufffd2Jx"]],
    ["a carriage return inside a line", ["10%\r20%\r\n"], ["10%\ufffd20%"]],
    ["tabs kept", ["a\tb\n"], ["a\tb"]],
  ];
  for (const [name, chunks, expected] of cases) {
    assert.deepEqual(await linesOf(chunks, 8), expected, name);
  }
});

Deno.test("readLines() turns a 2 MB line into one entry, not a run of 16 KB pieces", async () => {
  const big = "A".repeat(2_000_000);
  const chunks = [];
  for (let i = 0; i < big.length; i += 65_536) chunks.push(big.slice(i, i + 65_536));
  const lines = await linesOf([...chunks, "\nafter\n"], 16_384);
  assert.equal(lines.length, 2);
  assert.equal(lines[0], `${"A".repeat(16_384)} … [1,983,616 more characters cut]`);
  assert.equal(lines[1], "after");
});

/** A child's output as a test controls it: `chunks` lines, one every `everyMs`, then the end (or none). */
function drip(chunks: number, everyMs: number, end: boolean) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const next = () => {
        if (sent === chunks) return end ? controller.close() : undefined;
        controller.enqueue(new TextEncoder().encode(`line ${sent++}\n`));
        timer = setTimeout(next, everyMs);
      };
      next();
    },
    cancel: () => clearTimeout(timer),
  });
  return { stream, stop: () => clearTimeout(timer) };
}

Deno.test("readOutput().finish() reads output still arriving after an exit, and stops at an idle or endless one", async () => {
  const cases: [string, ReturnType<typeof drip>, boolean, (n: number) => boolean][] = [
    // Draining what the exited process left takes longer than the idle time, in small pieces.
    ["still arriving, then ending", drip(30, 50, true), true, (n) => n === 30],
    ["held open, idle", drip(2, 10, false), false, (n) => n === 2],
    ["held open, never idle", drip(1000, 50, false), false, (n) => n < 1000],
  ];
  for (const [name, out, ended, count] of cases) {
    const lines: string[] = [];
    const empty = new ReadableStream<Uint8Array>({ start: (c) => c.close() });
    const output = readOutput(
      { stdout: out.stream, stderr: empty },
      (l) => lines.push(l),
      () => {},
    );
    try {
      assert.equal(await output.finish({ idleMs: 300, maxMs: 2000 }), ended, name);
      assert.ok(count(lines.length), `${name}: ${lines.length} lines`);
    } finally {
      out.stop();
    }
  }
});
