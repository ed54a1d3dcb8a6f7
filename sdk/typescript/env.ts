/**
 * Environment and runtime facts, read the same way on Deno and Node. Reading
 * never throws and never prompts: without Deno's `--allow-env` (or
 * `--allow-sys`) the value is simply missing.
 *
 * @module
 */

import { arch, hostname, platform, release } from "node:os";

/** The version of this SDK, reported to the engine. */
export const SDK_VERSION = "0.1.0";

interface DenoLike {
  version?: { deno?: string };
  env?: { get(name: string): string | undefined };
  permissions?: {
    querySync?(desc: { name: string; variable?: string; kind?: string }): { state: string };
  };
}

function deno(): DenoLike | undefined {
  return (globalThis as { Deno?: DenoLike }).Deno;
}

function granted(desc: { name: string; variable?: string; kind?: string }): boolean {
  const d = deno();
  if (!d) return true;
  try {
    return d.permissions?.querySync?.(desc).state === "granted";
  } catch {
    return false;
  }
}

/**
 * The value of environment variable `name`, or `undefined` when it is unset,
 * empty (as the Python SDK and the engine's config count it) or cannot be
 * read.
 *
 * @example
 * ```ts
 * const url = readEnv("ENGINE_URL") ?? "ws://localhost:49134";
 * console.log(url.startsWith("ws")); // true
 * ```
 */
export function readEnv(name: string): string | undefined {
  try {
    const d = deno();
    const value = d?.env
      ? (granted({ name: "env", variable: name }) ? d.env.get(name) : undefined)
      : (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
        ?.[name];
    return value === "" ? undefined : value;
  } catch {
    return undefined;
  }
}

/**
 * Which runtime runs this code.
 *
 * @example
 * ```ts
 * console.log(runtimeName()); // "deno"
 * ```
 */
export function runtimeName(): "deno" | "node" {
  return deno()?.version?.deno ? "deno" : "node";
}

function safe<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/** Process id, or 0 when unknown. */
export function processId(): number {
  const proc = (globalThis as { process?: { pid?: number } }).process;
  return safe(() => proc?.pid ?? 0, 0);
}

/** The host name, when the runtime lets us read it. */
export function hostName(): string | undefined {
  if (!granted({ name: "sys", kind: "hostname" })) return undefined;
  return safe<string | undefined>(() => hostname(), undefined);
}

/** A short description of the OS, like `linux 6.8.0 (x64)`. */
export function osDescription(): string {
  const rel = granted({ name: "sys", kind: "osRelease" }) ? safe(() => release(), "") : "";
  return `${safe(() => platform(), "unknown")}${rel ? ` ${rel}` : ""} (${
    safe(() => arch(), "unknown")
  })`;
}

/**
 * What the worker tells the engine about itself (`engine::workers::register`).
 *
 * @example
 * ```ts
 * console.log(workerMetadata("orders").sdk); // "engine-typescript"
 * ```
 */
export function workerMetadata(name: string): Record<string, unknown> {
  return {
    runtime: runtimeName(),
    version: SDK_VERSION,
    name,
    os: osDescription(),
    pid: processId(),
    sdk: "engine-typescript",
  };
}
