/**
 * The worker manifest, `engine.worker.yaml`: what a local worker is called,
 * what it is written in, and the commands that install and start it. Parsed
 * like the config file, so every error names the file, line and field:
 * `workers/math/engine.worker.yaml:4:10: runtime.entry: File "main.py" does not exist in …`.
 *
 * @module
 */

import { isAbsolute, join, relative, resolve } from "node:path";
import { z } from "zod";
import { ConfigError } from "../config/error.ts";
import { describeIssue, type Problem } from "../config/issues.ts";
import { isValidWorkerName } from "../config/schema.ts";
import { YamlSource } from "../config/yaml_source.ts";

/** The manifest's file name inside a worker's folder. */
export const MANIFEST_FILE = "engine.worker.yaml";

/** Set by the engine for every worker it starts; a manifest cannot override them. */
export const RESERVED_ENV = ["ENGINE_URL", "ENGINE_WORKER_NAME", "ENGINE_WORKER_CONFIG"];

const MAX_BYTES = 64 * 1024;
const ENV_NAME_PROBLEM =
  "Not a valid environment variable name: use letters, digits and '_', not starting with a digit";

export const Manifest = z.strictObject({
  /** The worker's name: its config entry, its log tag, its default SDK worker name. */
  name: z.string().refine(isValidWorkerName, {
    error: (issue) =>
      `Invalid worker name ${JSON.stringify(issue.input)}: ` +
      "use letters, digits, '.', '_' and '-', not starting with '.' and without '..'",
  }),
  description: z.string().optional(),
  runtime: z.strictObject({
    /** The language, e.g. `typescript` or `python`. */
    kind: z.string().min(1),
    /** The dependency tool, e.g. `npm`, `deno`, `uv`, `pip`. */
    package_manager: z.string().min(1).optional(),
    /** The entry file, relative to the worker's folder. */
    entry: z.string().min(1),
  }),
  scripts: z.strictObject({
    /** Installs dependencies, run with `sh -c` in the worker's folder; none when absent or empty. */
    install: z.string().optional(),
    /** Starts the worker, run with `sh -c` in the worker's folder. */
    start: z.string().min(1),
  }),
  /** Extra environment of the worker's processes. */
  env: z.record(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
    z.string(),
  ).optional(),
});

export type Manifest = z.infer<typeof Manifest>;

export type ManifestResult =
  | { ok: true; manifest: Manifest }
  | { ok: false; error: ConfigError };

export interface ParseManifestOptions {
  /** The file's name as messages should show it. */
  file: string;
  /** Says what is wrong with `runtime.entry`, or `undefined` when it is fine. */
  checkEntry?: (entry: string) => string | undefined;
}

/**
 * Parses and validates a manifest's text. The first problem in file order
 * comes back as a {@linkcode ConfigError}.
 *
 * @example
 * ```ts
 * import { parseManifest } from "./manifest.ts";
 * const result = parseManifest("name: math\nruntime:\n  kind: python\n", { file: "engine.worker.yaml" });
 * if (!result.ok) console.log(result.error.message); // engine.worker.yaml:1:1: scripts: Missing required field
 * ```
 */
export function parseManifest(text: string, options: ParseManifestOptions): ManifestResult {
  const source = new YamlSource(options.file, text);
  if (text.length > MAX_BYTES) {
    return {
      ok: false,
      error: source.errorAt(0, `The manifest is larger than ${MAX_BYTES} bytes`),
    };
  }
  const yaml = source.parseYaml();
  if (!yaml.ok) return yaml;
  const { raw } = yaml;
  if (raw === null || raw === undefined) {
    const problem = "The manifest is empty: it needs name, runtime and scripts";
    return { ok: false, error: source.errorAt(0, problem) };
  }
  const first = (problems: Problem[]): ManifestResult => ({
    ok: false,
    error: yaml.firstProblem(problems),
  });

  const parsed = Manifest.safeParse(raw);
  if (!parsed.success) {
    return first(
      parsed.error.issues.map((issue) =>
        issue.code === "invalid_key"
          ? { path: issue.path, problem: ENV_NAME_PROBLEM, atKey: true }
          : explain(describeIssue(issue, raw, { schema: Manifest }))
      ),
    );
  }
  const manifest = parsed.data;
  const reserved = Object.keys(manifest.env ?? {}).filter((key) => RESERVED_ENV.includes(key));
  if (reserved.length > 0) {
    return first(reserved.map((key) => ({
      path: ["env", key],
      problem: `"${key}" is set by the engine: remove it from the manifest`,
      atKey: true,
    })));
  }
  const entryProblem = options.checkEntry?.(manifest.runtime.entry);
  if (entryProblem) {
    return first([{ path: ["runtime", "entry"], problem: entryProblem, atKey: false }]);
  }
  return { ok: true, manifest };
}

/** Adds the fix to problems a newcomer is likely to hit. */
function explain(problem: Problem): Problem {
  const [section] = problem.path;
  if (
    section === "env" && problem.path.length === 2 &&
    problem.problem.startsWith("Expected a string")
  ) {
    return { ...problem, problem: `${problem.problem}, e.g. PORT: "8080"` };
  }
  return problem;
}

/** A manifest read from a worker's folder. */
export interface LoadedManifest {
  manifest: Manifest;
  /** The folder, absolute. */
  folder: string;
  /** The manifest file, absolute. */
  file: string;
  /** The manifest's text, for the install cache. */
  text: string;
}

/**
 * Reads `engine.worker.yaml` in `folder` and checks that `runtime.entry` is a
 * file inside the folder. Throws a {@linkcode ConfigError} when the folder
 * or the manifest is missing or invalid.
 */
export async function loadManifest(folder: string): Promise<LoadedManifest> {
  const dir = resolve(folder);
  const file = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    const info = await Deno.stat(dir);
    if (!info.isDirectory) throw new ConfigError(`"${dir}" is not a folder`, { file });
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if (!(error instanceof Deno.errors.NotFound)) {
      throw new ConfigError(`Cannot read "${file}": ${(error as Error).message}`, { file });
    }
    const exists = await Deno.stat(dir).then(() => true, () => false);
    throw new ConfigError(
      exists
        ? `No ${MANIFEST_FILE} in "${dir}": a worker's folder needs one (name, runtime, scripts)`
        : `No folder at "${dir}"`,
      { file },
    );
  }
  const result = parseManifest(text, { file, checkEntry: (entry) => entryProblem(dir, entry) });
  if (!result.ok) throw result.error;
  return { manifest: result.manifest, folder: dir, file, text };
}

function entryProblem(folder: string, entry: string): string | undefined {
  const path = resolve(folder, entry);
  const inside = relative(folder, path);
  if (isAbsolute(entry) || inside.startsWith("..") || isAbsolute(inside)) {
    return `Must be a file inside the worker's folder: got "${entry}"`;
  }
  try {
    if (!Deno.statSync(path).isFile) return `"${entry}" is not a file`;
  } catch {
    return `File "${entry}" does not exist in "${folder}"`;
  }
  return undefined;
}
