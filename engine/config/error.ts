/**
 * The one error class of config loading: every problem with a config file,
 * from a missing file to a wrong type deep in a worker's settings, names the
 * file, the line and column, and the field.
 *
 * @module
 */

/** Where a {@linkcode ConfigError} points. */
export interface ConfigErrorOptions {
  file: string;
  /** 1-based; 0 (the default) when the problem is not at one place in the file. */
  line?: number;
  column?: number;
  /** The field path, like `workers[1].config.port`; empty for the whole file. */
  path?: string;
  cause?: unknown;
}

/**
 * A config file that cannot be used. Its message is one line:
 * `<file>:<line>:<col>: <field.path>: <problem>`, without the field path when
 * there is none, and just `<problem>` when there is no line (a missing file).
 */
export class ConfigError extends Error {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly path: string;
  /** The message without the place. */
  readonly problem: string;

  constructor(problem: string, options: ConfigErrorOptions) {
    const { file, line = 0, column = 0, path = "" } = options;
    const place = line > 0 ? `${file}:${line}:${column}: ${path === "" ? "" : `${path}: `}` : "";
    super(place + problem, options.cause === undefined ? {} : { cause: options.cause });
    this.name = "ConfigError";
    this.file = file;
    this.line = line;
    this.column = column;
    this.path = path;
    this.problem = problem;
  }
}
