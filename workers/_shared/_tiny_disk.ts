/**
 * Test support: a small tmpfs to fill (root on Linux only), and a file that
 * fills it.
 *
 * @module
 */

import assert from "node:assert/strict";

/** Whether a tmpfs can be mounted here (root on Linux). */
export const canMount = Deno.build.os === "linux" && Deno.uid() === 0;

/** A mounted tmpfs of `size` (`1m`); `unmount()` also removes its folder. */
export interface TinyDisk {
  dir: string;
  unmount(): Promise<void>;
}

/** Mounts a tmpfs of `size` on a new temporary folder. */
export async function mountTinyDisk(size: string): Promise<TinyDisk> {
  const dir = await Deno.makeTempDir({ prefix: "tiny-disk-" });
  try {
    await run("mount", "-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir);
  } catch (error) {
    await Deno.remove(dir);
    throw error;
  }
  return {
    dir,
    async unmount() {
      await run("umount", dir);
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Writes zeros to `file` (appending) until the disk is full. */
export async function fillDisk(file: string): Promise<void> {
  const f = await Deno.open(file, { create: true, append: true });
  const blocks = [64 * 1024, 4096, 512];
  try {
    for (const size of blocks) {
      const block = new Uint8Array(size);
      try {
        for (;;) await f.write(block);
      } catch (error) {
        if (!(error instanceof Error) || !/No space left/.test(error.message)) throw error;
      }
    }
  } finally {
    f.close();
  }
}

async function run(...command: string[]): Promise<void> {
  const [program, ...args] = command;
  const { code, stderr } = await new Deno.Command(program!, { args, stderr: "piped" }).output();
  assert.equal(code, 0, `${command.join(" ")}: ${new TextDecoder().decode(stderr)}`);
}
