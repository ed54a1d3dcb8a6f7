/**
 * Watching the config file for live reload. The file's folder is watched,
 * not the file, so an editor that writes a new file and renames it over the
 * old one is seen too; a burst of events becomes one call after a quiet
 * period.
 *
 * @module
 */

import { basename, dirname, resolve } from "node:path";

export interface WatchOptions {
  /** Quiet time after the last event before `onChange` runs. Default 300 ms. */
  debounceMs?: number;
  /** Stops watching. */
  signal?: AbortSignal;
}

export interface ConfigWatcher {
  /** Stops watching; resolves when the watcher is closed. */
  close(): Promise<void>;
}

/**
 * Calls `onChange` after the file at `file` is created, written, renamed or
 * removed. Calls never overlap: a change during a call runs it once more after.
 */
export function watchConfigFile(
  file: string,
  onChange: () => void | Promise<void>,
  options: WatchOptions = {},
): ConfigWatcher {
  const path = resolve(file);
  // A config that is a symbolic link changes in the folder of the file it points to: both
  // folders are watched (the link itself may be replaced too).
  const real = realPathOr(path);
  const names = new Set([basename(path), basename(real)]);
  const debounceMs = options.debounceMs ?? 300;
  const folders = [...new Set([dirname(path), dirname(real)])];
  const watcher = Deno.watchFs(folders, { recursive: false });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const fire = () => {
    timer = undefined;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await onChange();
        } while (again);
      } finally {
        running = undefined;
      }
    })();
  };

  const loop = (async () => {
    try {
      for await (const event of watcher) {
        if (!event.paths.some((p) => p === path || p === real || names.has(basename(p)))) continue;
        clearTimeout(timer);
        timer = setTimeout(fire, debounceMs);
      }
    } catch {
      // closed
    }
  })();

  const close = async () => {
    clearTimeout(timer);
    try {
      watcher.close();
    } catch {
      // already closed
    }
    await loop;
    await running;
  };
  options.signal?.addEventListener("abort", () => void close(), { once: true });
  return { close };
}

function realPathOr(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path; // not there yet: watched by its own name
  }
}
