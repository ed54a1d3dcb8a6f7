/**
 * A supervised worker's very long output line reaches the engine's log as
 * one entry, cut, saying how much was cut: not as a run of pieces that
 * look like separate lines with the rest silently dropped.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";
import { writeLocalWorker } from "../support/local_worker.ts";
import { freePort } from "../support/ports.ts";

Deno.test("a 2 MB line printed by a supervised worker is one log entry ending '… [1,983,616 more characters cut]'", async () => {
  const { dir, file } = await tempConfig(
    `port: ${freePort()}
console:
  enabled: false
workers:
  - name: shouter
    path: ./shouter
`,
  );
  await writeLocalWorker(`${dir}/shouter`, {
    name: "shouter",
    // 2,000,000 × "A", a newline, then a short line; then stay up until stopped.
    start: `head -c 2000000 /dev/zero | tr '\\000' A; echo; echo done; exec sleep 1000`,
  });
  const engine = await spawnEngine({ config: file, cwd: dir });
  try {
    await engine.waitForLine(/\[shouter\] done$/);
    const long = engine.lines.filter((line) => /\[shouter\] A/.test(line));
    assert.equal(long.length, 1, "one log entry for the one line");
    assert.match(long[0]!, /\[shouter\] A{16384} … \[1,983,616 more characters cut\]$/);
  } finally {
    assert.equal(await engine.stop(), 0);
    await Deno.remove(dir, { recursive: true });
  }
});
