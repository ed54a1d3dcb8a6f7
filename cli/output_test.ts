import assert from "node:assert/strict";
import { LineOutput } from "./output.ts";

const decoder = new TextDecoder();

/** A LineOutput whose writes complete at once, recording what they wrote. */
function recorded(): { output: LineOutput; written: () => string } {
  let text = "";
  const output = new LineOutput({
    name: "stdout",
    write: (bytes) => {
      text += decoder.decode(bytes);
      return Promise.resolve(bytes.length);
    },
  });
  return { output, written: () => text };
}

Deno.test("LineOutput writes a line queued at any moment of a write finishing, without waiting for another line", async () => {
  // A line queued d microtasks after the first one lands somewhere in the first write's
  // finishing steps; whichever step that is, it must be written without a later line.
  for (let depth = 0; depth < 12; depth++) {
    const { output, written } = recorded();
    output.line("first");
    (async () => {
      for (let i = 0; i < depth; i++) await null;
      output.line("second");
    })();
    await output.flush(1000);
    await new Promise((resolve) => setTimeout(resolve, 0));
    await output.flush(1000);
    assert.equal(written(), "first\nsecond\n", `queued ${depth} microtasks later`);
  }
});

Deno.test("LineOutput drops lines beyond what it may hold while the reader is behind, and says how many", async () => {
  let release = () => {};
  let text = "";
  const output = new LineOutput({
    name: "stdout",
    maxHeldBytes: 24, // the line being written counts too: room for two
    write: async (bytes) => {
      await new Promise<void>((resolve) => release = resolve);
      text += decoder.decode(bytes);
      return bytes.length;
    },
  });
  output.line("0123456789"); // being written: the reader is behind
  output.line("abcdefghij"); // held
  output.line("dropped 1");
  output.line("dropped 2");
  release();
  await new Promise((resolve) => setTimeout(resolve, 0));
  output.line("after");
  for (let i = 0; i < 5; i++) {
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  assert.equal(
    text,
    "0123456789\nabcdefghij\n… 2 lines of output dropped: stdout was not read\nafter\n",
  );
});
