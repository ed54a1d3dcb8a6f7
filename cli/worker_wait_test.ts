import assert from "node:assert/strict";
import { builtinRunningLine, crashReason, nextStep } from "./worker_wait.ts";

Deno.test("builtinRunningLine() ends with a colon only when function ids follow", () => {
  const cases: [number, string][] = [
    [0, '✓ "engine-http" is running in the engine (no functions of its own)'],
    [1, '✓ "engine-http" is running in the engine with 1 function:'],
    [7, '✓ "engine-http" is running in the engine with 7 functions:'],
  ];
  for (const [functions, line] of cases) {
    assert.equal(builtinRunningLine("engine-http", functions), line);
  }
});

Deno.test("crashReason() says how the worker ended, that one ending with code 0 must keep running, and where a command not found comes from", () => {
  const exit = (code: number, signal: string | null = null) => ({
    error: null,
    last_exit: { code, signal, at_ms: 0, uptime_ms: 200 },
    path: "/p/workers/math",
  });
  const cases: [Parameters<typeof crashReason>[0], string][] = [
    [exit(7), "exit code 7 after 0.2s; the engine restarts it with backoff"],
    [exit(143, "SIGTERM"), "killed by SIGTERM after 0.2s; the engine restarts it with backoff"],
    [
      exit(0),
      "exit code 0 after 0.2s: it ended, and a worker must keep running (a Python worker ends " +
      "with worker.run_forever()); the engine restarts it with backoff",
    ],
    // A typo in scripts.start: the shell's code, and where to look (as the engine's log says).
    [
      exit(127),
      `exit code 127 after 0.2s: code 127 is the shell's "command not found": check ` +
      "scripts.start in /p/workers/math/engine.worker.yaml; the engine restarts it with backoff",
    ],
    [
      exit(126),
      `exit code 126 after 0.2s: code 126 is the shell's "cannot execute": is the file ` +
      "executable?: check scripts.start in /p/workers/math/engine.worker.yaml; the engine " +
      "restarts it with backoff",
    ],
    [{ error: "Cannot read x", last_exit: null, path: "/p" }, "Cannot read x"],
    [{ error: null, last_exit: null, path: "/p" }, "it stopped"],
  ];
  for (const [worker, reason] of cases) assert.equal(crashReason(worker), reason);
});

Deno.test("nextStep() names the worker's folder as typed from the current folder", () => {
  const here = Deno.cwd();
  const cases: [string, string][] = [
    [`${here}/workers/math`, "./workers/math"],
    ["/elsewhere/math", "/elsewhere/math"],
  ];
  for (const [path, shown] of cases) {
    assert.equal(
      nextStep({ name: "math", path }),
      `Once it is fixed, "engine worker add ${shown} --force" restarts it at once; ` +
        `"engine worker remove math" takes it out of the config`,
    );
  }
});
