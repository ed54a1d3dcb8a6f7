import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabase } from "./sqlite.ts";

/**
 * A folder the test process cannot write: mode 555, and, for root (whom modes
 * do not stop), a read-only bind mount of it. Undefined where neither works.
 */
async function readOnlyFolder(): Promise<{ dir: string; undo(): Promise<void> } | undefined> {
  const dir = await Deno.makeTempDir({ prefix: "sqlite-ro-" });
  await Deno.chmod(dir, 0o555);
  let mounted = false;
  if (Deno.uid() === 0) {
    const mount = await new Deno.Command("mount", {
      args: ["-o", "bind,ro", dir, dir],
      stdout: "null",
      stderr: "null",
    }).output().catch(() => undefined);
    mounted = mount?.success ?? false;
  }
  const undo = async () => {
    if (mounted) await new Deno.Command("umount", { args: [dir] }).output();
    await Deno.chmod(dir, 0o755);
    await Deno.remove(dir, { recursive: true });
  };
  try {
    await Deno.writeTextFile(join(dir, "probe"), "");
  } catch {
    return { dir, undo };
  }
  await undo();
  return undefined;
}

Deno.test("openDatabase() in a folder it cannot write says so, not only 'unable to open database file'", async () => {
  const folder = await readOnlyFolder();
  if (folder === undefined) {
    console.log("skipped: this process can make no folder it cannot write");
    return;
  }
  const path = join(folder.dir, "state.db");
  try {
    assert.throws(
      () => openDatabase({ path, schema: "", label: "state" }, () => undefined),
      (error: Error) => {
        assert.match(
          error.message,
          new RegExp(
            `^Cannot open the state database "${path}": .*: the folder "${folder.dir}" is not writable: (EROFS|EACCES)`,
          ),
        );
        return true;
      },
    );
  } finally {
    await folder.undo();
  }
});
