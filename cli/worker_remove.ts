/**
 * `engine worker remove <name>`: deletes the worker's entry from the config
 * file (keeping everything else byte for byte); a running engine of that
 * file stops the worker, and this command waits until it has.
 *
 * @module
 */

import { removeWorkerEntry } from "../engine/config/mod.ts";
import { editConfigFile } from "./config_write.ts";
import type { Io } from "./trigger.ts";
import { UsageError } from "./usage.ts";
import {
  checkConfigText,
  type ConfigFile,
  parseWorkerArgs,
  readConfigFile,
} from "./worker_args.ts";
import { findEngineUrl, linkEngine } from "./worker_engine.ts";
import { waitForGone } from "./worker_wait.ts";

export async function workerRemove(args: string[], io: Io): Promise<number> {
  const options = parseWorkerArgs(args, 30_000);
  const [name, ...extra] = options.positionals;
  if (name === undefined) {
    throw new UsageError("Missing the name of the worker to remove", "worker");
  }
  if (extra.length > 0) throw new UsageError(`Unexpected argument "${extra[0]}"`, "worker");
  const file = options.config;
  const read = await readConfigFile(file);
  if (!read.ok && read.missing) {
    io.err(`Error: ${read.message}`);
    return 1;
  }
  let checked: ConfigFile | undefined;
  const failed = await editConfigFile(file, (text) => {
    const removed = removeWorkerEntry(text, name, { file });
    if (!removed.ok) {
      return {
        error: removed.reason === "missing"
          ? `No worker "${name}" in ${file}: "engine worker list" shows the workers`
          : read.ok
          ? removed.message
          : `Cannot edit an invalid config file: ${read.message}`,
      };
    }
    checked = checkConfigText(file, removed.text);
    // An invalid file may be edited (to remove what breaks it), a valid one must stay valid.
    if (!checked.ok && read.ok) {
      return {
        error: `The edited config would be invalid, so it was not written: ${checked.message}`,
      };
    }
    return { text: removed.text };
  });
  if (failed !== undefined) {
    io.err(`Error: ${failed}`);
    return 1;
  }
  io.out(`Removed "${name}" from ${file}`);

  const url = await findEngineUrl(file, checked?.ok ? checked.config : undefined, options.url);
  const linked = await linkEngine(url, file);
  if (!linked.ok && linked.refused) {
    io.err(
      `Warning: ${linked.reason}. The engine reads ${file} and stops "${name}" itself; ` +
        `this command cannot follow it without the token`,
    );
    return 0;
  }
  if (!linked.ok) {
    io.out(`${linked.reason}: nothing to stop`);
    return 0;
  }
  try {
    if (!options.wait) return 0;
    if (await waitForGone(linked.link, name, { timeoutMs: options.timeoutMs })) {
      io.out(`Stopped "${name}" in the engine at ${url}`);
      return 0;
    }
    io.err(`Error: The engine at ${url} still runs "${name}": see its output`);
    return 1;
  } finally {
    await linked.link.close();
  }
}
