/**
 * A token that is not printable ASCII is refused when the engine starts,
 * naming the file, line and field (or the variable it came from). Such a
 * token was taken, and then matched for some clients and not others: a
 * header's bytes are Latin-1, which Deno sends for "ä" while other clients
 * send its UTF-8 bytes, and "€" no Deno client can send at all.
 */
import assert from "node:assert/strict";
import { spawnEngine, tempConfig } from "../support/engine_process.ts";

const cases: [string, string, Record<string, string>, RegExp][] = [
  [
    "auth.token in the file",
    "port: 0\nconsole:\n  enabled: false\nauth:\n  token: pässwort\nworkers: []\n",
    {},
    /engine-config\.yaml:5:10: auth\.token: Invalid token: character 2 \(U\+00E4\) is not printable ASCII/,
  ],
  [
    "ENGINE_TOKEN",
    "port: 0\nconsole:\n  enabled: false\nworkers: []\n",
    { ENGINE_TOKEN: "€uro" },
    /engine-config\.yaml:1:1: auth\.token: Environment variable ENGINE_TOKEN: Invalid token: character 1 \(U\+20AC\)/,
  ],
];

for (const [name, text, env, message] of cases) {
  Deno.test(`engine --config: a token that is not printable ASCII is refused at start-up (${name})`, async () => {
    const { dir, file } = await tempConfig(text);
    try {
      const started = await spawnEngine({ config: file, cwd: dir, env }).then(
        async (engine) => {
          await engine.stop("SIGKILL");
          return "it started";
        },
        (error: Error) => error.message,
      );
      assert.match(started, /exited with code 1;/, started);
      assert.match(started, message);
      assert.doesNotMatch(started, /pässwort|€uro/, "the token is not shown");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
