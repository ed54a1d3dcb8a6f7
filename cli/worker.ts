/**
 * `engine worker add|remove|list`: edit the config file's `workers` list
 * (keeping its comments and layout) and, when an engine runs that file,
 * follow what it does about the change.
 *
 * @module
 */

import { closest } from "../engine/suggest.ts";
import type { Io } from "./trigger.ts";
import { UsageError } from "./usage.ts";
import { workerAdd } from "./worker_add.ts";
import { workerList } from "./worker_list.ts";
import { workerRemove } from "./worker_remove.ts";

export async function worker(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case "add":
      return await workerAdd(rest, io);
    case "remove":
    case "rm":
      return await workerRemove(rest, io);
    case "list":
    case "ls":
      return await workerList(rest, io);
    case undefined:
      throw new UsageError("Missing command: add, remove or list", "worker");
    default: {
      const meant = closest(sub, ["add", "remove", "list"]);
      throw new UsageError(
        `Unknown command "worker ${sub}": ${
          meant ? `did you mean "worker ${meant}"?` : "use add, remove or list"
        }`,
        "worker",
      );
    }
  }
}
