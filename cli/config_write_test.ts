import assert from "node:assert/strict";
import { join } from "node:path";
import { writeConfigText } from "./config_write.ts";
import { main } from "./main.ts";

/** Whether `chattr +i` works here (root with CAP_LINUX_IMMUTABLE): the only read-only file root cannot write. */
async function canMakeImmutable(): Promise<boolean> {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "probe");
    await Deno.writeTextFile(file, "");
    const on = await new Deno.Command("chattr", { args: ["+i", file], stderr: "null" }).output()
      .catch(() => undefined);
    if (!on?.success) return false;
    await new Deno.Command("chattr", { args: ["-i", file] }).output();
    return true;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A file no one may write while `fn` runs: mode 0444, and immutable when run as root. */
async function withReadOnly(file: string, fn: () => Promise<void>): Promise<void> {
  await Deno.chmod(file, 0o444);
  const root = Deno.uid() === 0;
  if (root) await new Deno.Command("chattr", { args: ["+i", file] }).output();
  try {
    await fn();
  } finally {
    if (root) await new Deno.Command("chattr", { args: ["-i", file] }).output();
    await Deno.chmod(file, 0o644);
  }
}

const readOnlyWorks = Deno.uid() !== 0 || await canMakeImmutable();

Deno.test("writeConfigText() replaces the file, keeping its mode and a symbolic link", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const real = join(dir, "real.yaml");
    const link = join(dir, "engine-config.yaml");
    await Deno.writeTextFile(real, "workers: []\n");
    await Deno.chmod(real, 0o640);
    await Deno.symlink(real, link);
    assert.equal(await writeConfigText(link, "# new\nworkers: []\n"), undefined);
    assert.equal(await Deno.readTextFile(real), "# new\nworkers: []\n");
    assert.ok((await Deno.lstat(link)).isSymlink);
    assert.equal((await Deno.stat(real)).mode! & 0o777, 0o640);
    const left = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(left, ["engine-config.yaml", "real.yaml"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeConfigText() names a file it cannot write and leaves it alone", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // A folder where the config should be: no user can write it as a file.
    const message = await writeConfigText(dir, "workers: []\n");
    assert.match(message ?? "", /^Cannot write ".+": .+; it is unchanged$/);
    assert.ok(message?.includes(dir));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "engine worker add and remove on a read-only config fail with exit 1 and change nothing",
  ignore: !readOnlyWorks,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    try {
      const file = join(dir, "engine-config.yaml");
      const text = "# mine\nworkers:\n  - name: engine-state\n";
      await Deno.writeTextFile(file, text);
      await withReadOnly(file, async () => {
        for (
          const args of [
            ["worker", "add", "engine-queue", "--no-wait", "--config", file],
            ["worker", "remove", "engine-state", "--no-wait", "--config", file],
          ]
        ) {
          const err: string[] = [];
          const code = await main(args, { out: () => {}, err: (line) => err.push(line) });
          assert.equal(code, 1, args.join(" "));
          assert.match(
            err.join("\n"),
            /^Error: Cannot write ".*engine-config\.yaml": .+; it is unchanged$/,
          );
          assert.equal(await Deno.readTextFile(file), text);
        }
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("engine worker add and remove run at the same time lose none of each other's edits", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = join(dir, "engine-config.yaml");
    await Deno.writeTextFile(file, "# mine\nworkers:\n  - name: engine-state\n");
    const names = ["w1", "w2", "w3", "w4", "w5", "w6"];
    for (const name of names) {
      await Deno.mkdir(join(dir, name));
      await Deno.writeTextFile(join(dir, name, "x.py"), "");
      await Deno.writeTextFile(
        join(dir, name, "engine.worker.yaml"),
        `name: ${name}\nruntime: {kind: python, entry: x.py}\nscripts: {start: "true"}\n`,
      );
    }
    const io = { out: () => {}, err: () => {} };
    // Port 1: no engine there to wait for.
    const common = ["--no-wait", "--config", file, "--url=ws://127.0.0.1:1"];
    const codes = await Promise.all([
      ...names.map((name) => main(["worker", "add", join(dir, name), ...common], io)),
      main(["worker", "add", "engine-queue", ...common], io),
      main(["worker", "remove", "engine-state", ...common], io),
    ]);
    assert.deepEqual(codes, names.map(() => 0).concat([0, 0]));
    const text = await Deno.readTextFile(file);
    const listed = [...text.matchAll(/- name: (\S+)/g)].map((m) => m[1]).sort();
    assert.deepEqual(listed, [...names, "engine-queue"].sort(), text);
    assert.ok(text.startsWith("# mine\nworkers:\n"), text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
