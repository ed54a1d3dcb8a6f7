/**
 * The quickstart as a new user runs it, with the bundled engine from an
 * empty folder (so the templates and SDKs must be embedded): create the
 * project, start the engine, add the Python and the TypeScript-SDK worker,
 * call both functions, add engine-state and engine-http, uncomment the
 * marked blocks, restart the workers, and POST to the endpoint twice.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { TEMPLATES } from "../../cli/templates/mod.ts";
import { bundleEngine, runCli, spawnEngine } from "../support/engine_process.ts";
import { freePort } from "../support/ports.ts";

/** Removes the comment markers of every block between `<c> --- Uncomment after` and `<c> --- end ---`. */
function uncommentBlocks(text: string, marker: "#" | "//"): { text: string; blocks: number } {
  let inside = false;
  let blocks = 0;
  const lines = text.split("\n").map((line) => {
    const trimmed = line.trim();
    if (trimmed.startsWith(`${marker} --- Uncomment after:`)) {
      inside = true;
      blocks++;
      return line;
    }
    if (trimmed === `${marker} --- end ---`) inside = false;
    if (!inside) return line;
    const at = line.indexOf(marker);
    return line.slice(0, at) + line.slice(at + marker.length).replace(/^ /, "");
  });
  return { text: lines.join("\n"), blocks };
}

async function editFile(path: string, edit: (text: string) => string): Promise<void> {
  await Deno.writeTextFile(path, edit(await Deno.readTextFile(path)));
}

function pidAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !/^\d+ \(.*\) Z/.test(stat); // a zombie has exited
  } catch {
    return false;
  }
}

/** POSTs until the route answers something other than 404 or a refused connection. */
async function firstAnswer(url: string, body: unknown, timeoutMs = 30_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  let last = "no attempt";
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (response.status !== 404) return response;
      last = `404 ${await response.text()}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`POST ${url} did not answer within ${timeoutMs}ms: ${last}`);
}

Deno.test("quickstart end to end: create, run both workers, add state and HTTP, the total grows", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "engine-quickstart-" }));
  const bundle = join(dir, "engine.js");
  await bundleEngine(bundle);

  const project = join(dir, "quickstart");
  const env: Record<string, string> = {
    ENGINE_PORT: "0",
    ENGINE_CONSOLE_PORT: "0",
    ENGINE_CALLER_DIR: project,
  };
  const created = await runCli(
    ["create", "--template", "quickstart", "--directory", "quickstart"],
    {
      cwd: dir,
      entry: bundle,
      env: { ...env, ENGINE_CALLER_DIR: dir },
    },
  );
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stdout, /Next steps:\n {2}cd quickstart\n/);
  for (const file of TEMPLATES.quickstart!.files) {
    assert.equal(await Deno.readTextFile(join(project, file.path)), file.content, file.path);
  }

  const engine = await spawnEngine({
    config: "engine-config.yaml",
    cwd: project,
    entry: bundle,
    env,
  });
  const cliEnv = { ...env, ENGINE_URL: engine.url };
  const cli = async (...args: string[]) => {
    const r = await runCli(args, { cwd: project, entry: bundle, env: cliEnv });
    assert.equal(r.code, 0, `engine ${args.join(" ")} failed:\n${r.stdout}\n${r.stderr}`);
    return r.stdout;
  };
  const call = async (functionId: string, payload: unknown) =>
    JSON.parse(
      await cli("trigger", `--function-id=${functionId}`, `--payload=${JSON.stringify(payload)}`),
    );
  let pids: number[] = [];
  try {
    await cli("worker", "add", "./workers/math-worker");
    assert.deepEqual(await call("math::add", { a: 2, b: 3 }), { c: 5 });

    await cli("worker", "add", "./workers/caller-worker");
    const relayed = await call("math::add_two_numbers", { a: 10, b: 20 });
    assert.equal(relayed.c, 30);
    assert.equal(typeof relayed.message, "string");
    await engine.waitForLine(
      /\[math-worker math::add\] math::add called in Python \{"a":10,"b":20\}/,
    );

    await cli("worker", "add", "engine-state");
    await cli("worker", "add", "engine-http", "--no-wait");
    // The reference configuration listens on 3111, which another program may hold: move it.
    const httpPort = freePort();
    await editFile(join(project, "engine-config.yaml"), (text) => {
      assert.match(text, /^ {6}port: 3111$/m);
      return text.replace(/^ {6}port: 3111$/m, `      port: ${httpPort}`);
    });

    for (
      const [file, marker] of [
        ["workers/math-worker/math_worker.py", "#"],
        ["workers/caller-worker/worker.mjs", "//"],
      ] as const
    ) {
      await editFile(join(project, file), (text) => {
        const edited = uncommentBlocks(text, marker);
        assert.equal(edited.blocks, 1, file);
        return edited.text;
      });
    }
    // No source watcher: `worker add --force` restarts a worker with its new code.
    await cli("worker", "add", "./workers/math-worker", "--force");
    await cli("worker", "add", "./workers/caller-worker", "--force");
    assert.deepEqual(await call("math::add", { a: 2, b: 3 }), { c: 5, running_total: 5 });

    const url = `http://127.0.0.1:${httpPort}/math/add-two-numbers`;
    const first = await firstAnswer(url, { a: 100, b: 200 });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("content-type"), "application/json");
    assert.deepEqual(await first.json(), { c: 300, running_total: 305 });
    const second = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ a: 100, b: 200 }),
    });
    assert.deepEqual(await second.json(), { c: 300, running_total: 605 });

    const list = JSON.parse(await cli("worker", "list", "--json"));
    pids = list.workers.flatMap((w: { pid: number | null }) => w.pid ?? []);
    assert.equal(pids.length, 2, JSON.stringify(list));
  } finally {
    assert.equal(await engine.stop(), 0, engine.lines.join("\n"));
    await Deno.remove(dir, { recursive: true });
  }
  for (const pid of pids) assert.ok(!pidAlive(pid), `worker process ${pid} is still running`);
});
