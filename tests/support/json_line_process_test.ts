import assert from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { JsonLineProcess } from "./json_line_process.ts";

/** Writes 30 lines to stderr, then `{"ready":true}` to stdout, then runs until stdin closes. */
const NOISY = `
for (let i = 0; i < 30; i++) console.error("warning " + i);
console.log(JSON.stringify({ ready: true }));
for await (const _ of Deno.stdin.readable) { /* until stdin closes */ }
`;

Deno.test("JsonLineProcess.waitFor() times out showing the last messages and the last lines of stderr", async () => {
  const script = await Deno.makeTempFile({ prefix: "noisy-", suffix: ".ts" });
  await Deno.writeTextFile(script, NOISY);
  const child = new JsonLineProcess(pathToFileURL(script), []);
  try {
    await child.waitFor((m) => m.ready === true);
    // The stderr lines were written before "ready"; the time-out leaves ample time to read them.
    const error = await child.waitFor((m) => m.never === true, {
      description: "a message that never comes",
      timeoutMs: 1000,
    }).then(() => assert.fail("the wait succeeded"), (e: Error) => e);
    assert.equal(
      error.message,
      "Timed out after 1000ms waiting for a message that never comes: the message seen:\n" +
        '  {"ready":true}\n' +
        "the last 20 of 30 lines of its stderr:\n" +
        Array.from({ length: 20 }, (_, i) => `  warning ${i + 10}`).join("\n"),
    );
  } finally {
    await child.close();
    await Deno.remove(script);
  }
});
