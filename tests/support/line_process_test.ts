import assert from "node:assert/strict";
import { ROOT } from "./engine_process.ts";
import { spawnLineProcess } from "./line_process.ts";

/** Prints 200 lines to stdout, 50 to stderr and a last one without `\n`, then exits with 3. */
const DYING = `
for (let i = 0; i < 200; i++) console.log("out " + i);
for (let i = 0; i < 50; i++) console.error("err " + i);
await Deno.stdout.write(new TextEncoder().encode("last words"));
Deno.exit(3);
`;

const EXPECTED = [
  ...Array.from({ length: 200 }, (_, i) => `out ${i}`),
  ...Array.from({ length: 50 }, (_, i) => `err ${i}`),
  "last words",
];

Deno.test({
  name: "spawnLineProcess() fails a wait at once when the process exits, showing all its output",
  // The op sanitizer fails the test if the wait's 60 s timer is left running.
  sanitizeOps: true,
  fn: async () => {
    const child = spawnLineProcess(["eval", DYING], {
      cwd: ROOT,
      env: {},
      name: "the dying script",
      timeoutMs: 60_000,
    });
    try {
      const error = await child.waitForLine(/never printed/).then(
        () => assert.fail("the wait succeeded"),
        (e: Error) => e,
      );
      const [head, ...shown] = error.message.split("\n");
      assert.equal(
        head,
        "Stopped waiting for a line of the dying script matching /never printed/: " +
          "the dying script exited with code 3; everything it printed (251 lines):",
      );
      // stdout and stderr interleave in any order; every line is there.
      assert.deepEqual(shown.map((l) => l.replace(/^ {2}/, "")).sort(), [...EXPECTED].sort());
      assert.equal((await child.exited).code, 3);

      await assert.rejects(child.waitForLine(/still not printed/), {
        message: new RegExp(
          "^Stopped waiting for a line of the dying script matching /still not printed/: " +
            "the dying script exited with code 3;",
        ),
      });
      assert.equal(await child.waitForLine(/^err 7$/), "err 7", "a printed line is still found");
    } finally {
      await child.kill("SIGKILL");
    }
  },
});
