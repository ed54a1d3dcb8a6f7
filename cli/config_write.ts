/**
 * Saving the config file after `engine worker add` or `worker remove` edited
 * it. The new text goes to a temporary file beside it, which then replaces
 * the config in one rename: a write that fails halfway (a full disk) leaves
 * the old file whole, and a running engine never reads half of it. A file
 * that may not be written is left alone and named in the error.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";

/** Writes `text` to the config file `file`; the reason it could not, or `undefined`. */
export async function writeConfigText(file: string, text: string): Promise<string | undefined> {
  // Through a symbolic link, the file it points to is replaced, not the link.
  const target = await realPath(file);
  let info: Deno.FileInfo;
  try {
    // Opening for writing (without truncating) asks the system whether this file may be
    // written: a rename would replace a read-only file too.
    using _ = await Deno.open(target, { write: true });
    info = await Deno.stat(target);
  } catch (e) {
    return cannotWrite(file, e);
  }
  const temp = join(
    dirname(target),
    `.${basename(target)}.${crypto.randomUUID().slice(0, 8)}.tmp`,
  );
  try {
    await Deno.writeTextFile(temp, text, { createNew: true });
    if (info.mode !== null) await Deno.chmod(temp, info.mode & 0o7777);
    if (info.uid !== null && info.gid !== null) await chownIfAllowed(temp, info.uid, info.gid);
    await Deno.rename(temp, target);
    return undefined;
  } catch {
    await Deno.remove(temp).catch(() => {});
  }
  // No temporary file beside it (a folder that may not be written): write in place.
  try {
    await Deno.writeTextFile(target, text);
    return undefined;
  } catch (e) {
    return cannotWrite(file, e);
  }
}

function cannotWrite(file: string, error: unknown): string {
  const detail = (error as Error).message.replace(/ \(os error \d+\)/, "").replace(
    /: \S+ '.*'$/,
    "",
  );
  return `Cannot write "${file}": ${detail}; it is unchanged`;
}

async function chownIfAllowed(path: string, uid: number, gid: number): Promise<void> {
  try {
    await Deno.chown(path, uid, gid);
  } catch {
    // Only the owner or root may; a file of someone else's that we may write keeps our owner.
  }
}

async function realPath(path: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch {
    return path;
  }
}
