import assert from "node:assert/strict";
import { consoleBindingProblem } from "./auth.ts";

Deno.test("consoleBindingProblem() requires a token beyond loopback, saying how to set one", () => {
  const cases: [string, string | undefined, boolean][] = [
    ["127.0.0.1", undefined, false],
    ["localhost", undefined, false],
    ["::1", undefined, false],
    ["0.0.0.0", undefined, true],
    ["0.0.0.0", "", true],
    ["0.0.0.0", "t", false],
    ["192.168.1.4", undefined, true],
  ];
  for (const [host, token, refused] of cases) {
    const problem = consoleBindingProblem(host, token);
    assert.equal(problem !== undefined, refused, `${host} ${token}`);
    if (problem) {
      assert.equal(
        problem,
        `Console bound to "${host}" requires a token: set "console.token" or ENGINE_CONSOLE_TOKEN, or bind it to "127.0.0.1"`,
      );
    }
  }
});
