import assert from "node:assert/strict";
import { alive, writeLocalWorker } from "../../tests/support/local_worker.ts";
import { install, installIsCurrent, installPaths } from "./install.ts";
import { loadManifest } from "./manifest.ts";

async function setup(installScript: string) {
  const root = await Deno.makeTempDir({ prefix: "install-test-" });
  const folder = await writeLocalWorker(`${root}/w`, {
    name: "deps",
    install: installScript,
    start: "sleep 1",
    env: { FROM_MANIFEST: "yes" },
    files: { "requirements.txt": "requests==2.0\n" },
  });
  return { root, folder, cacheDir: `${root}/.engine/installs` };
}

Deno.test("install() runs scripts.install in the worker's folder, logs it, then uses the cache", async (t) => {
  const { root, folder, cacheDir } = await setup(
    'echo "in $(pwd) with $FROM_MANIFEST"; echo run >> installs.txt; echo warn >&2',
  );
  try {
    const runs = async () =>
      (await Deno.readTextFile(`${folder}/installs.txt`)).split("\n").length - 1;
    await t.step("the first install runs", async () => {
      const lines: string[] = [];
      const result = await install(await loadManifest(folder), {
        cacheDir,
        onLine: (l) => lines.push(l),
      });
      assert.equal(result.kind, "installed");
      assert.deepEqual(lines.toSorted(), [`in ${folder} with yes`, "warn"].toSorted());
      const log = await Deno.readTextFile(installPaths(cacheDir, "deps").log);
      assert.match(log, new RegExp(`^\\$ echo .* \\(in ${folder}, `));
      assert.match(log, /\[exit code 0 after \d+ ms\]\n$/);
      assert.equal(await runs(), 1);
    });
    await t.step("unchanged manifest and lock files: cached", async () => {
      const loaded = await loadManifest(folder);
      assert.ok(await installIsCurrent(loaded, cacheDir));
      assert.deepEqual(await install(loaded, { cacheDir }), { kind: "cached" });
      assert.equal(await runs(), 1);
    });
    await t.step("force reinstalls", async () => {
      const result = await install(await loadManifest(folder), { cacheDir, force: true });
      assert.equal(result.kind, "installed");
      assert.equal(await runs(), 2);
    });
    await t.step("a changed lock file reinstalls", async () => {
      await Deno.writeTextFile(`${folder}/requirements.txt`, "requests==2.1\n");
      assert.equal((await install(await loadManifest(folder), { cacheDir })).kind, "installed");
      assert.equal(await runs(), 3);
    });
    await t.step("a new lock file reinstalls", async () => {
      await Deno.writeTextFile(`${folder}/uv.lock`, "version = 1\n");
      assert.equal((await install(await loadManifest(folder), { cacheDir })).kind, "installed");
      assert.equal(await runs(), 4);
    });
    await t.step("a changed manifest reinstalls", async () => {
      const manifest = `${folder}/engine.worker.yaml`;
      await Deno.writeTextFile(manifest, `${await Deno.readTextFile(manifest)}# edited\n`);
      assert.equal((await install(await loadManifest(folder), { cacheDir })).kind, "installed");
      assert.equal(await runs(), 5);
    });
    await t.step("other files do not count", async () => {
      await Deno.writeTextFile(`${folder}/main.ts`, "// changed\n");
      assert.equal((await install(await loadManifest(folder), { cacheDir })).kind, "cached");
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("install() reports a failure with the log's tail and keeps no cache record", async () => {
  const { root, folder, cacheDir } = await setup(
    "for i in 1 2 3 4 5; do echo step $i; done; echo 'E404 no such package' >&2; exit 3",
  );
  try {
    const loaded = await loadManifest(folder);
    const result = await install(loaded, { cacheDir, tailLines: 3 });
    assert.equal(result.kind, "failed");
    if (result.kind !== "failed") return;
    assert.equal(result.code, 3);
    assert.equal(result.tail.length, 3);
    assert.equal(result.tail.at(-1), "E404 no such package");
    assert.equal(result.log, installPaths(cacheDir, "deps").log);
    assert.match(await Deno.readTextFile(result.log), /step 1\n[^]*\[exit code 3 after/);
    assert.equal(await installIsCurrent(loaded, cacheDir), false);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("install() without an install script does nothing", async () => {
  const { root, folder, cacheDir } = await setup("");
  try {
    assert.deepEqual(await install(await loadManifest(folder), { cacheDir }), { kind: "none" });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("install() with a signal aborted before the script starts does not run it to the end", async () => {
  const { root, folder, cacheDir } = await setup("sleep 300");
  try {
    const abort = new AbortController();
    abort.abort();
    const t0 = Date.now();
    const result = await install(await loadManifest(folder), { cacheDir, signal: abort.signal });
    assert.equal(result.kind, "failed");
    assert.ok(Date.now() - t0 < 60_000, `took ${Date.now() - t0} ms`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("install() aborted kills the install and whatever it started", async () => {
  const { root, folder, cacheDir } = await setup(
    "sleep 300 & echo $! > bg.pid; echo started; sleep 300",
  );
  try {
    const abort = new AbortController();
    const pending = install(await loadManifest(folder), {
      cacheDir,
      signal: abort.signal,
      onLine: (line) => line === "started" && abort.abort(),
    });
    const result = await pending;
    assert.equal(result.kind, "failed");
    const bg = Number(await Deno.readTextFile(`${folder}/bg.pid`));
    assert.equal(alive(bg), false, "the background sleep is gone");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("install() ends when its script does, while a process of another session holds its output", async () => {
  // A daemon the install started (setsid, a detached child) keeps stdout open; no group stop reaches it.
  const { root, folder, cacheDir } = await setup(
    // The daemon writes its pid once in its own session: the install exits after that.
    "setsid sh -c 'echo $$ > daemon.pid; exec sleep 60' & " +
      "until [ -s daemon.pid ]; do sleep 0.05; done; echo done",
  );
  const pending = install(await loadManifest(folder), { cacheDir });
  try {
    const ended = await Promise.race([
      pending,
      new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 10_000)),
    ]);
    assert.notEqual(ended, "still running");
    assert.equal((ended as { kind: string }).kind, "installed");
    const log = await Deno.readTextFile(installPaths(cacheDir, "deps").log);
    assert.match(log, /still holds its output open: no longer reading it/);
  } finally {
    const daemon = Number(await Deno.readTextFile(`${folder}/daemon.pid`).catch(() => "0"));
    if (daemon > 0) {
      try {
        Deno.kill(daemon, "SIGKILL");
      } catch { /* gone */ }
    }
    await pending;
    await Deno.remove(root, { recursive: true });
  }
});
