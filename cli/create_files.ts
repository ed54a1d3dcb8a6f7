/**
 * Writes a template's files into a project folder and never outside it:
 * every path must be relative without `.`/`..` segments, and no folder or
 * file on the way may be a symbolic link (a link could lead anywhere). All
 * checks run before the first write, so a refused project leaves nothing
 * behind; the parent folder's real path is checked again right before each
 * write.
 *
 * @module
 */

import { join, resolve } from "node:path";
import type { TemplateFile } from "./templates/mod.ts";

/** Why `path` is not a safe relative file path, or `undefined` when it is. */
export function unsafePathReason(path: string): string | undefined {
  if (path === "") return "it is empty";
  if (path.includes("\\")) return "it contains a backslash";
  if (path.includes("\0")) return "it contains a NUL character";
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "it is absolute";
  const segments = path.split("/");
  if (segments.some((s) => s === "..")) return "it leaves the folder through ..";
  if (segments.some((s) => s === "" || s === ".")) return "it has an empty or . segment";
  return undefined;
}

/**
 * Whether a folder is free for `files`: it has no entries but dotfiles and
 * dot-folders that none of `files` would write (`.git` of a new repository);
 * a missing folder counts as free.
 */
export async function isEmptyFolder(
  folder: string,
  files: readonly TemplateFile[],
): Promise<boolean> {
  const written = new Set(files.map((file) => file.path.split("/")[0]));
  try {
    for await (const entry of Deno.readDir(folder)) {
      if (!entry.name.startsWith(".") || written.has(entry.name)) return false;
    }
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return true;
    throw error;
  }
}

async function lstat(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * Checks that every file of `files` can be written inside `root` (which
 * exists) without following a link or replacing a folder. Throws an `Error`
 * naming the first offending path.
 */
export async function checkFiles(root: string, files: readonly TemplateFile[]): Promise<void> {
  for (const file of files) {
    const reason = unsafePathReason(file.path);
    if (reason) throw new Error(`Refusing to write "${file.path}": ${reason}`);
    const segments = file.path.split("/");
    let current = root;
    for (const [i, segment] of segments.entries()) {
      current = join(current, segment);
      const info = await lstat(current);
      if (info === undefined) break; // created by the write
      const shown = segments.slice(0, i + 1).join("/");
      if (info.isSymlink) {
        throw new Error(`Refusing to write "${file.path}": "${shown}" is a symbolic link`);
      }
      const last = i === segments.length - 1;
      if (!last && !info.isDirectory) {
        throw new Error(`Cannot write "${file.path}": "${shown}" exists and is not a folder`);
      }
      if (last && !info.isFile) {
        throw new Error(`Cannot write "${file.path}": it exists and is not a file`);
      }
    }
  }
}

/**
 * Writes `files` under `root` (created when missing) after
 * {@linkcode checkFiles}; existing files of the same path are overwritten.
 */
export async function writeFiles(root: string, files: readonly TemplateFile[]): Promise<void> {
  await Deno.mkdir(root, { recursive: true });
  const realRoot = await Deno.realPath(root);
  await checkFiles(realRoot, files);
  for (const file of files) {
    const target = resolve(realRoot, ...file.path.split("/"));
    const parent = resolve(target, "..");
    await Deno.mkdir(parent, { recursive: true });
    // Built from the real root, the parent is its own real path unless a link crept in.
    if (await Deno.realPath(parent) !== parent) {
      throw new Error(`Refusing to write "${file.path}": its folder leads outside "${realRoot}"`);
    }
    await Deno.writeTextFile(target, file.content);
  }
}
