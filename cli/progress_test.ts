import assert from "node:assert/strict";
import { formatDuration, progress } from "./progress.ts";

Deno.test("progress() without a terminal prints plain lines", () => {
  const out: string[] = [];
  const io = { out: (l: string) => out.push(l), err: (l: string) => out.push(`err: ${l}`) };
  const p = progress(io, "Installing dependencies", { tty: false });
  p.line("fetching left-pad");
  p.status("Installing dependencies");
  p.status("Linking");
  p.status("Linking");
  p.done("Installed in 1.0s");
  assert.deepEqual(out, [
    "Installing dependencies",
    "  │ fetching left-pad",
    "Linking",
    "Installed in 1.0s",
  ]);
  const quiet: string[] = [];
  const q = progress({ out: (l) => quiet.push(l), err: () => {} }, "Waiting", {
    tty: false,
    echoLines: false,
  });
  q.line("not shown");
  q.done();
  assert.deepEqual(quiet, ["Waiting"]);
});

Deno.test("formatDuration() shows seconds, then minutes", () => {
  const cases: [number, string][] = [[0, "0.0s"], [1234, "1.2s"], [59_949, "59.9s"], [
    123_000,
    "2m03s",
  ]];
  for (const [ms, text] of cases) assert.equal(formatDuration(ms), text);
});
