/**
 * Edits of a running engine's config file that only a restart can apply, and
 * invalid edits: each restart-only field changed is named in a warning saying
 * a restart applies it (never its value), an edit back to what the engine
 * runs says so, and an invalid edit is refused with its file, line and field
 * while the engine runs on its config, which a later valid edit changes. A
 * real engine process and CLI; each step waits for the engine's lines.
 */
import assert from "node:assert/strict";
import { runCli, spawnEngine, tempConfig } from "../support/engine_process.ts";
import { eventually } from "../support/local_worker.ts";

/** The config the engine starts with, by top-level key. */
const SECTIONS: Record<string, string> = {
  host: "host: 127.0.0.1",
  port: "port: 0",
  console: "console:\n  port: 0",
  workers: "workers: []",
};
const BASE = text({});

/** The config of {@linkcode SECTIONS} with some top-level keys' lines replaced or added. */
function text(changed: Record<string, string>): string {
  return `${Object.values({ ...SECTIONS, ...changed }).join("\n")}\n`;
}

/** Every restart-only field, and the lines of its top-level key that change it. */
const FIELDS: [field: string, key: string, lines: string][] = [
  ["host", "host", "host: localhost"],
  ["port", "port", "port: 1"],
  ["invocation_timeout_ms", "invocation_timeout_ms", "invocation_timeout_ms: 5000"],
  ["max_frame_bytes", "max_frame_bytes", "max_frame_bytes: 1000"],
  ["auth.token", "auth", "auth:\n  token: restart-fields-engine-token"],
  ["console.port", "console", "console:\n  port: 1"],
  ["console.enabled", "console", "console:\n  port: 0\n  enabled: false"],
  ["console.token", "console", "console:\n  port: 0\n  token: restart-fields-console-token"],
  ["logs.max_entries", "logs", "logs:\n  max_entries: 5"],
  ["logs.redact", "logs", "logs:\n  redact: [pin]"],
  ["traces.max_spans", "traces", "traces:\n  max_spans: 5"],
  ["channels.max_per_worker", "channels", "channels:\n  max_per_worker: 5"],
  ["channels.max_total", "channels", "channels:\n  max_total: 5"],
];

Deno.test("a live edit of each restart-only field is named in a warning, and its undoing too", async () => {
  const { dir, file } = await tempConfig(BASE);
  const engine = await spawnEngine({ config: file });
  const reloads = () => engine.lines.filter((l) => /\[engine\] Config reloaded$/.test(l)).length;
  /** Writes `text` and resolves with the lines the engine printed up to its reload line. */
  const edit = async (text: string) => {
    const from = engine.lines.length;
    const count = reloads();
    await Deno.writeTextFile(file, text);
    await eventually(() => reloads() > count, "the engine's Config reloaded line");
    return engine.lines.slice(from);
  };
  try {
    for (const [field, key, lines] of FIELDS) {
      const printed = await edit(text({ [key]: lines }));
      const warned = printed.filter((l) => l.includes(" WARN "));
      assert.equal(warned.length, 1, `${field}: ${printed.join("\n")}`);
      assert.match(
        warned[0]!,
        new RegExp(
          `Config change of "${field.replace(".", "\\.")}" takes effect when the engine restarts`,
        ),
      );
      const undone = await edit(BASE);
      assert.ok(
        undone.some((l) =>
          l.endsWith(
            `Config change of "${field}" undone: the file holds what the engine runs again`,
          )
        ),
        `${field}: ${undone.join("\n")}`,
      );
      assert.ok(!undone.some((l) => l.includes(" WARN ")), undone.join("\n"));
    }
    assert.deepEqual(engine.lines.filter((l) => /restart-fields-\w+-token/.test(l)), []);
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an invalid live edit is refused with file, line and field, the engine runs on, and a later valid edit applies", async () => {
  const STATE = "  - name: engine-state\n    config:\n      adapter: memory\n";
  const { dir, file } = await tempConfig(BASE);
  const engine = await spawnEngine({ config: file });
  const count = (pattern: RegExp) => engine.lines.filter((l) => pattern.test(l)).length;
  /** Writes `text` and resolves with the first new line matching `pattern`. */
  const edit = async (text: string, pattern: RegExp) => {
    const before = count(pattern);
    await Deno.writeTextFile(file, text);
    await eventually(() => count(pattern) > before, `a line matching ${pattern}`);
    return engine.lines.filter((l) => pattern.test(l))[before]!;
  };
  const stateListed = async () => {
    const listed = await runCli([
      "trigger",
      "--function-id=engine::functions::list",
      "--url",
      engine.url,
    ]);
    assert.equal(listed.code, 0, listed.stderr);
    return listed.stdout.includes('"state::get"');
  };
  const ignored = /ERROR \[engine\] Config change ignored, still running the previous config: /;
  try {
    const started = text({ workers: `workers:\n${STATE}` });
    await edit(started, /Config reloaded: started "engine-state"$/);
    assert.ok(await stateListed());

    const cases: [what: string, text: string, place: string][] = [
      [
        "bad YAML",
        started.replace("adapter: memory", 'adapter: "memory'),
        `${file}:8:16: workers[0].config.adapter: Invalid YAML: Missing closing "quote`,
      ],
      ["an unknown top-level field", `${started}prot: 1\n`, `${file}:10:1: prot: Unknown field`],
      [
        "a bad field of a worker",
        started.replace("adapter: memory", "adapter: floppy"),
        `${file}:8:16: workers[0].config.adapter:`,
      ],
      ["a bad type", started.replace("port: 0", "port: zero"), `${file}:2:7: port:`],
    ];
    for (const [what, bad, place] of cases) {
      const line = await edit(bad, ignored);
      assert.ok(line.includes(`previous config: ${place}`), `${what}: ${line}`);
      assert.ok(await stateListed(), `${what}: engine-state runs on`);
    }
    const fixed = await edit(BASE, /Config file .* is valid again$|Config reloaded/);
    assert.match(fixed, /Config file .* is valid again$/);
    await engine.waitForLine(/Config reloaded: stopped "engine-state"$/);
    assert.ok(!await stateListed());
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
