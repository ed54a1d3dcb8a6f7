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

/** What an edit of the config makes of its text: the new text, or why it cannot. */
export type ConfigEdit = { text: string } | { error: string };

/**
 * Reads the config file `file`, applies `edit` to its text and writes the
 * result, all under the config's lock: commands editing the file at the
 * same time (`engine worker add a & engine worker add b`) take turns, each
 * editing what the one before it wrote. Resolves with the error of `edit`,
 * of reading or of writing, or `undefined` once written.
 */
export async function editConfigFile(
  file: string,
  edit: (text: string) => ConfigEdit,
): Promise<string | undefined> {
  using _ = await lockConfig(file);
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (e) {
    return `Cannot read "${file}": ${systemDetail(e)}`;
  }
  const edited = edit(text);
  if ("error" in edited) return edited.error;
  return await writeConfigText(file, edited.text);
}

/**
 * Takes the lock of the config file `file`: an advisory lock on
 * `.engine/config.lock` beside the file (the file itself is replaced on
 * every write, so it cannot carry the lock). The system drops it when the
 * process ends, so a killed command leaves nothing stale. Where the lock
 * file cannot be made (a folder that may not be written) the edit runs
 * unlocked.
 */
async function lockConfig(file: string): Promise<Disposable> {
  const folder = join(dirname(await realPath(file)), ".engine");
  let lock: Deno.FsFile | undefined;
  try {
    await Deno.mkdir(folder, { recursive: true });
    lock = await Deno.open(join(folder, "config.lock"), { write: true, create: true });
    await lock.lock(true);
  } catch {
    lock?.close();
    return { [Symbol.dispose]: () => {} };
  }
  const held = lock;
  // Closing the file releases the lock.
  return { [Symbol.dispose]: () => held.close() };
}

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
  return `Cannot write "${file}": ${systemDetail(error)}; it is unchanged`;
}

/** The system's words, without Deno's "(os error 13): open '…'" after them. */
function systemDetail(error: unknown): string {
  return (error as Error).message.replace(/ \(os error \d+\)(: \w+ '.*')?$/, "");
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
