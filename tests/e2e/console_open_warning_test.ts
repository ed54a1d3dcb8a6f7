/**
 * The console on loopback without `console.token` lets anyone on the machine
 * call every function, whatever `auth.token` says (README, Security notes):
 * an engine that asks workers for a token warns about such a console at
 * start-up, once; one whose console has its own token, or that asks for no
 * token at all, does not. Engine processes on free ports.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";

const WARNING = /^Warning: the console on http:\/\/127\.0\.0\.1:\d+ has no "console\.token"/;

const cases: { name: string; config: string; env?: Record<string, string>; warns: boolean }[] = [
  {
    name: "auth.token and no console.token: warned",
    config: "auth:\n  token: engine-secret-1\n",
    warns: true,
  },
  {
    name: "ENGINE_TOKEN and no console token: warned",
    config: "",
    env: { ENGINE_TOKEN: "engine-secret-2" },
    warns: true,
  },
  {
    name: "both tokens: not warned",
    config:
      "auth:\n  token: engine-secret-3\nconsole:\n  host: 127.0.0.1\n  port: 0\n  token: console-secret-3\n",
    warns: false,
  },
  { name: "no token at all: not warned", config: "", warns: false },
];

for (const c of cases) {
  Deno.test(`engine --config with its console: ${c.name}`, async () => {
    const consoleBlock = c.config.includes("console:")
      ? ""
      : "console:\n  host: 127.0.0.1\n  port: 0\n";
    const { dir, file } = await tempConfig(`host: 127.0.0.1\nport: 0\n${consoleBlock}${c.config}`);
    const engine = await spawnEngine({ config: file, ...(c.env ? { env: c.env } : {}) });
    try {
      await engine.waitForLine(/^Console on http:/);
      if (c.warns) {
        const line = await engine.waitForLine(WARNING);
        assert.match(line, /anyone on this machine can call every function through it/);
        assert.match(line, /Set "console\.token" \(or ENGINE_CONSOLE_TOKEN\)/);
      }
    } finally {
      assert.equal(await engine.stop(), 0);
      await Deno.remove(dir, { recursive: true });
    }
    const warnings = engine.lines.filter((line) => WARNING.test(line));
    assert.equal(warnings.length, c.warns ? 1 : 0, engine.lines.join("\n"));
  });
}
