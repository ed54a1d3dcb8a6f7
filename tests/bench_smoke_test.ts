/**
 * The benchmarks still run: each one in `--smoke` mode (a few seconds) into
 * one temporary BENCHMARKS.md, which must then hold every section with
 * figures in it. The figures themselves are not checked (shared, noisy
 * machines); full runs are made on demand.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

async function bench(script: string, args: string[]): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", script, "--smoke", ...args],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b).slice(-3000);
  assert.equal(out.code, 0, `${script} failed:\n${text(out.stderr)}\n${text(out.stdout)}`);
}

function section(doc: string, name: string): string {
  const m = new RegExp(`<!-- bench:${name} -->\\n([\\s\\S]*?)<!-- /bench:${name} -->`).exec(doc);
  assert.ok(m, `section "${name}" is missing`);
  return m[1]!;
}

/** Table cells with single spaces around the pipes (the files are `deno fmt`ed, which pads them). */
const squeeze = (line: string) => line.replace(/\s*\|\s*/g, " | ").replace(/\s+/g, " ").trim();

/** Table rows starting with `label` and holding a figure such as `123 µs` or `4,567/s`. */
function assertRow(text: string, label: string): void {
  const start = squeeze(`| ${label}`);
  const row = text.split("\n").map(squeeze).find((l) => l.startsWith(start));
  assert.ok(row, `no row "${label}"`);
  assert.match(row, /\d[\d,.]* ?(µs|ms|\/s|KB|×)/, `no figure in: ${row}`);
  assert.doesNotMatch(row, /NaN|undefined|Infinity/, row);
}

Deno.test("the benchmarks run in smoke mode and write their sections of BENCHMARKS.md", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "bench-smoke-" });
  const out = `${dir}/BENCHMARKS.md`;
  const read = () => Deno.readTextFile(out);
  try {
    await t.step("bench/compare.ts: NATS against the engine", async () => {
      await bench("bench/compare.ts", ["--out", out]);
      const s = section(await read(), "compare");
      for (const size of ["100 B", "10 KB"]) {
        for (const measure of ["sequential p50", "sequential p99", "64 in flight"]) {
          assertRow(s, `${size} | ${measure}`);
        }
        assert.match(
          s,
          new RegExp(
            `- ${size}:\\s+at\\s+1\\.5×\\s+NATS's\\s+rate,[\\s\\S]*?leaves\\s+the\\s+engine\\s+(at\\s+most\\s+\\d+\\s+µs|nothing)`,
          ),
        );
      }
    });

    await t.step("bench/scale.ts: curves and charts", async () => {
      await bench("bench/scale.ts", ["--out", out, "--charts", `${dir}/charts`]);
      const s = section(await read(), "scale");
      for (const label of ["call p50, 1 → ", "calls/s drop", "HTTP p50", "memory per idle"]) {
        assertRow(s, label);
      }
      for (const chart of ["routing_p50", "routing_throughput", "http_routes_p50", "memory"]) {
        const svg = await Deno.readTextFile(`${dir}/charts/${chart}.svg`);
        assert.match(svg, /^<svg [\s\S]*<polyline [\s\S]*<\/svg>\n$/, chart);
        assert.ok(s.includes(`](charts/${chart}.svg)`), `${chart} is linked`);
      }
    });

    await t.step("bench/startup.ts: start-up times", async () => {
      await bench("bench/startup.ts", ["--out", out]);
      const s = section(await read(), "startup");
      assertRow(s, "`deno run -A main.ts` (source)");
      assertRow(s, "`deno run -A engine.js` (bundle)");
    });

    await t.step("bench/profile.ts: where a call's time goes", async () => {
      await bench("bench/profile.ts", ["--out", out]);
      const s = section(await read(), "profile");
      for (const process of ["engine", "worker", "caller"]) assertRow(s, `${process} |`);
    });

    await t.step("bench/run.ts rewrites its own part and keeps the others", async () => {
      await bench("bench/run.ts", ["--out", out]);
      const doc = await read();
      assert.match(doc, /^# Benchmarks\n/);
      assertRow(doc, "sequential 100 B p50");
      for (const name of ["compare", "scale", "startup", "profile"]) section(doc, name);
      assertRow(section(doc, "core"), "sequential 100 B p50");
      assertRow(section(doc, "state"), "state::set");
      assertRow(section(doc, "http"), "64 connections, requests/s");
      assertRow(section(doc, "queue"), "routed call (baseline)");
      // The CPU per call of each process, and what the throughput target leaves the engine.
      for (
        const [name, rows] of [["core", ["engine", "echo server", "caller", "all"]], [
          "http",
          ["engine", "plain Deno.serve server", "wrk", "all"],
        ]] as const
      ) {
        for (const row of rows) assertRow(section(doc, name), `${row} |`);
        assert.match(
          section(doc, name),
          /leaves\s+the\s+engine\s+at\s+most\s+(\d[\d.]*\s+µs|nothing)\s+per/,
        );
      }
      assert.equal(doc.match(/<!-- bench:compare -->/g)?.length, 1, "each section once");
    });

    await t.step(
      "bench/run.ts --only state replaces that section and keeps the others",
      async () => {
        const before = await read();
        await bench("bench/run.ts", ["--out", out, "--only", "state"]);
        const doc = await read();
        for (const name of ["core", "http", "queue", "compare", "scale", "startup", "profile"]) {
          assert.equal(section(doc, name), section(before, name), `section "${name}" kept`);
        }
        assertRow(section(doc, "state"), "state::get");
        assert.equal(doc.match(/<!-- bench:state -->/g)?.length, 1, "each section once");
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("bench/soak.ts runs one round of churn and finds every count back at its baseline", async () => {
  // Exit code 1 when a call or request ends otherwise than expected, or a registration stays.
  await bench("bench/soak.ts", []);
});
