import assert from "node:assert/strict";
import { join } from "node:path";
import { parseConfig } from "../engine/config/mod.ts";
import { parseManifest } from "../engine/supervisor/manifest.ts";
import { builtinConfigParsers } from "../workers/catalog.ts";
import { runCli } from "../tests/support/engine_process.ts";
import { unsafePathReason, writeFiles } from "./create_files.ts";
import { main } from "./main.ts";
import { TEMPLATES } from "./templates/mod.ts";

const quickstart = TEMPLATES.quickstart!;

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

async function tempDir(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "engine-create-" }));
}

async function listFiles(dir: string, prefix = ""): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(join(dir, prefix))) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory) found.push(...await listFiles(dir, path));
    else found.push(path);
  }
  return found.sort();
}

function sh(command: string, cwd: string): Deno.CommandOutput {
  return new Deno.Command("sh", { args: ["-c", command], cwd, stdout: "piped", stderr: "piped" })
    .outputSync();
}

Deno.test("engine create --template quickstart writes every template file and prints the next steps", async () => {
  const base = await tempDir();
  try {
    const dir = join(base, "new", "qs");
    const r = await run(["create", "--template", "quickstart", "--directory", dir]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(await listFiles(dir), quickstart.files.map((f) => f.path).sort());
    for (const file of quickstart.files) {
      assert.equal(await Deno.readTextFile(join(dir, file.path)), file.content, file.path);
    }
    assert.match(r.out, new RegExp(`Created the "quickstart" project in ${dir} \\(\\d+ files\\)`));
    assert.match(r.out, new RegExp(`^  cd ${dir}$`, "m"));
    assert.match(r.out, /^ {2}engine worker add \.\/workers\/math-worker$/m);
    assert.match(r.out, /engine trigger --function-id=math::add --payload='\{"a":2,"b":3\}'/);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("the quickstart's config, manifests, sources and SDKs are valid as generated", async () => {
  const dir = await tempDir();
  try {
    assert.equal((await run(["create", "-t", "quickstart", "-d", dir, "--force"])).code, 0);
    const text = await Deno.readTextFile(join(dir, "engine-config.yaml"));
    const config = parseConfig(text, {
      file: "engine-config.yaml",
      env: () => undefined,
      workerConfigs: builtinConfigParsers(),
    });
    assert.ok(config.ok, config.ok ? "" : config.error.message);
    assert.equal(config.config.port, 49134);
    assert.deepEqual(config.config.workers, []);

    const names = new Map<string, string>();
    for (const worker of ["math-worker", "caller-worker"]) {
      const folder = join(dir, "workers", worker);
      const manifest = parseManifest(
        await Deno.readTextFile(join(folder, "engine.worker.yaml")),
        { file: `${worker}/engine.worker.yaml` },
      );
      assert.ok(manifest.ok, manifest.ok ? "" : manifest.error.message);
      names.set(worker, manifest.manifest.name);
      await Deno.stat(join(folder, manifest.manifest.runtime.entry));
      // The install script is a check that needs no registry: it must pass here.
      const install = sh(manifest.manifest.scripts.install!, folder);
      assert.equal(install.code, 0, new TextDecoder().decode(install.stderr));
    }
    assert.deepEqual(Object.fromEntries(names), {
      "math-worker": "math-worker",
      "caller-worker": "caller-worker",
    });
    const py = sh("python3 -m py_compile math_worker.py", join(dir, "workers/math-worker"));
    assert.equal(py.code, 0, new TextDecoder().decode(py.stderr));
    const js = sh("node --check worker.mjs", join(dir, "workers/caller-worker"));
    assert.equal(js.code, 0, new TextDecoder().decode(js.stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engine create refuses bad arguments with exit 2 and the list of templates", async () => {
  const cases: { args: string[]; error: RegExp }[] = [
    {
      args: ["--template", "nope"],
      error: /Unknown template "nope": the templates are "quickstart"/,
    },
    { args: [], error: /Missing --template: one of "quickstart"/ },
    { args: ["--template", "toString"], error: /Unknown template "toString"/ },
    { args: ["-t", "quickstart", "somewhere"], error: /Unexpected argument "somewhere"/ },
    { args: ["-t", "quickstart", "--bogus"], error: /bogus/ },
  ];
  for (const { args, error } of cases) {
    const r = await run(["create", ...args]);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.err, error);
    assert.match(r.err, /Usage: engine create --template <name>/);
  }
});

Deno.test("engine create refuses a folder that is not empty unless --force, and a file", async () => {
  const dir = await tempDir();
  try {
    await Deno.writeTextFile(join(dir, "notes.txt"), "mine");
    await Deno.writeTextFile(join(dir, "README.md"), "old readme");
    const refused = await run(["create", "-t", "quickstart", "-d", dir]);
    assert.equal(refused.code, 1);
    assert.match(refused.err, /Folder ".*" is not empty: .* rerun with --force/);
    assert.deepEqual(await listFiles(dir), ["README.md", "notes.txt"]);

    const forced = await run(["create", "-t", "quickstart", "-d", dir, "--force"]);
    assert.equal(forced.code, 0, forced.err);
    assert.equal(await Deno.readTextFile(join(dir, "notes.txt")), "mine");
    assert.equal(await Deno.readTextFile(join(dir, "README.md")), quickstart.files[0]!.content);

    const file = join(dir, "notes.txt");
    const notFolder = await run(["create", "-t", "quickstart", "-d", file, "--force"]);
    assert.equal(notFolder.code, 1);
    assert.match(notFolder.err, /exists and is not a folder/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engine create writes into a folder holding only dotfiles it does not write (a new git repository)", async () => {
  const dir = await tempDir();
  try {
    await Deno.mkdir(join(dir, ".git"));
    await Deno.writeTextFile(join(dir, ".git", "HEAD"), "ref: refs/heads/main\n");
    await Deno.writeTextFile(join(dir, ".editorconfig"), "root = true\n");
    const created = await run(["create", "-t", "quickstart", "-d", dir]);
    assert.equal(created.code, 0, created.err);
    assert.equal(await Deno.readTextFile(join(dir, ".git", "HEAD")), "ref: refs/heads/main\n");
    assert.ok((await Deno.stat(join(dir, "engine-config.yaml"))).isFile);

    // A dotfile the template writes is the user's: it is not overwritten without --force.
    const again = await tempDir();
    try {
      await Deno.writeTextFile(join(again, ".gitignore"), "mine\n");
      const refused = await run(["create", "-t", "quickstart", "-d", again]);
      assert.equal(refused.code, 1);
      assert.match(refused.err, /Folder ".*" is not empty: .* rerun with --force/);
      assert.equal(await Deno.readTextFile(join(again, ".gitignore")), "mine\n");
    } finally {
      await Deno.remove(again, { recursive: true });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("engine create --force never writes through a symbolic link inside the folder", async () => {
  const base = await tempDir();
  try {
    const project = join(base, "project");
    const outside = join(base, "outside");
    await Deno.mkdir(project);
    await Deno.mkdir(outside);
    await Deno.writeTextFile(join(outside, "README.md"), "keep me");
    const cases = [
      { link: "workers", to: outside, shown: "workers" },
      { link: "README.md", to: join(outside, "README.md"), shown: "README.md" },
    ];
    for (const { link, to, shown } of cases) {
      await Deno.symlink(to, join(project, link));
      const r = await run(["create", "-t", "quickstart", "-d", project, "--force"]);
      assert.equal(r.code, 1, link);
      assert.match(r.err, new RegExp(`"${shown}" is a symbolic link`));
      assert.deepEqual(await listFiles(outside), ["README.md"]);
      assert.equal(await Deno.readTextFile(join(outside, "README.md")), "keep me");
      assert.deepEqual(await listFiles(project), [link], "nothing written before the refusal");
      await Deno.remove(join(project, link));
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("unsafePathReason() accepts plain relative paths only", () => {
  const table: [string, string | undefined][] = [
    ["README.md", undefined],
    ["workers/math-worker/engine_sdk/__init__.py", undefined],
    [".gitignore", undefined],
    ["", "it is empty"],
    ["/etc/passwd", "it is absolute"],
    ["C:/x", "it is absolute"],
    ["../x", "it leaves the folder through .."],
    ["a/../../x", "it leaves the folder through .."],
    ["a/..", "it leaves the folder through .."],
    ["a//b", "it has an empty or . segment"],
    ["./a", "it has an empty or . segment"],
    ["a/", "it has an empty or . segment"],
    ["a\\..\\b", "it contains a backslash"],
    ["a\0b", "it contains a NUL character"],
  ];
  for (const [path, reason] of table) assert.equal(unsafePathReason(path), reason, path);
});

Deno.test("writeFiles() refuses a template path that leaves the folder before writing anything", async () => {
  const base = await tempDir();
  try {
    const root = join(base, "root");
    for (const path of ["../escaped.txt", "a/../../escaped.txt", `${base}/escaped.txt`]) {
      const files = [{ path: "fine.txt", content: "x" }, { path, content: "evil" }];
      await assert.rejects(writeFiles(root, files), /Refusing to write/);
      assert.deepEqual(await listFiles(base), [], path);
      await Deno.remove(root, { recursive: true }).catch(() => {});
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("engine create resolves --directory against the folder it was run from", async () => {
  const dir = await tempDir();
  try {
    const r = await runCli(["create", "--template=quickstart", "--directory=my project"], {
      cwd: dir,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ {2}cd 'my project'$/m);
    await Deno.stat(join(dir, "my project", "engine-config.yaml"));
    // In the current folder (as the start command's hint suggests): no "cd ." step.
    const here = join(dir, "here");
    await Deno.mkdir(here);
    const inPlace = await runCli(["create", "--template=quickstart", "--directory=."], {
      cwd: here,
      env: { ENGINE_CALLER_DIR: here },
    });
    assert.equal(inPlace.code, 0, inPlace.stderr);
    assert.match(inPlace.stdout, /Next steps:\n {2}engine --config engine-config\.yaml/);
    assert.doesNotMatch(inPlace.stdout, /^ {2}cd /m);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
