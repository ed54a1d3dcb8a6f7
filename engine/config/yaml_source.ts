/**
 * What the config file and the worker manifest share between their text and
 * their schema: the YAML parse, and problems turned into one
 * {@linkcode ConfigError} at `file:line:col: field: problem`, the first in
 * file order.
 *
 * @module
 */

import { type Document, isScalar, type LineCounter, parseDocument, visit } from "yaml";
import { ConfigError } from "./error.ts";
import { preferTypos, type Problem } from "./issues.ts";
import { formatPath, lineCounterFor, offsetOf, pathAtOffset } from "./locate.ts";

/** The YAML of a {@linkcode YamlSource}, parsed. */
export interface ParsedYaml {
  ok: true;
  /** The document as plain values; `null` or `undefined` for an empty file. */
  raw: unknown;
  /** The first of `problems` in file order, placed at its field. */
  firstProblem(problems: Problem[]): ConfigError;
}

export type ParseYamlResult = ParsedYaml | { ok: false; error: ConfigError };

export interface ParseYamlOptions {
  /** The text to parse when it is not the file's own: a rewrite of it (`${VAR}` expanded). */
  text: string;
  /** Maps an offset in `text` back to the file's text. */
  toOriginal: (offset: number) => number;
}

/**
 * One file's text, whose problems are reported with the line and column
 * they are at.
 *
 * @example
 * ```ts
 * import { YamlSource } from "./yaml_source.ts";
 * const source = new YamlSource("a.yaml", "name: [\n");
 * const parsed = source.parseYaml();
 * if (!parsed.ok) console.log(parsed.error.message); // a.yaml:2:1: Invalid YAML: …
 * ```
 */
export class YamlSource {
  readonly file: string;
  readonly text: string;
  #lines: LineCounter | undefined;

  constructor(file: string, text: string) {
    this.file = file;
    this.text = text;
  }

  /** A {@linkcode ConfigError} at `offset` of the file's text. */
  errorAt(
    offset: number,
    problem: string,
    options: { path?: string; cause?: unknown } = {},
  ): ConfigError {
    this.#lines ??= lineCounterFor(this.text);
    const { line, col } = this.#lines.linePos(offset);
    // A byte order mark is no column an editor shows.
    const column = line === 1 && col > 1 && this.text.startsWith("\ufeff") ? col - 1 : col;
    const { path = "", cause } = options;
    return new ConfigError(problem, { file: this.file, line, column, path, cause });
  }

  /** Parses the file's text, or the rewrite of it that `options` gives. */
  parseYaml(options?: ParseYamlOptions): ParseYamlResult {
    const text = options?.text ?? this.text;
    const at = options?.toOriginal ?? ((offset: number) => offset);
    const doc = parseDocument(text, { prettyErrors: false });
    const syntax = doc.errors[0];
    if (syntax) {
      const problem = syntax.code === "MULTIPLE_DOCS"
        ? `Invalid YAML: the file holds more than one document ("---"): keep one`
        : `Invalid YAML: ${syntax.message.split("\n")[0]}`;
      // A quote never closed is found at the end of the file: name where it opens, and its field.
      const open = syntax.code === "MISSING_CHAR" ? unclosedQuote(doc, syntax.pos[0]) : undefined;
      if (open !== undefined) {
        const path = formatPath(pathAtOffset(doc, open));
        const detail = `${problem}: the quoted value starting here is never closed`;
        return { ok: false, error: this.errorAt(at(open), detail, { path, cause: syntax }) };
      }
      return { ok: false, error: this.errorAt(at(syntax.pos[0]), problem, { cause: syntax }) };
    }
    let raw: unknown;
    try {
      raw = doc.toJS();
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return { ok: false, error: this.errorAt(0, `Invalid YAML: ${detail}`, { cause: error }) };
    }
    const firstProblem = (problems: Problem[]): ConfigError => {
      const placed = preferTypos(problems).map((p) => ({
        ...p,
        offset: at(offsetOf(doc, p.path, { key: p.atKey })),
      }));
      placed.sort((a, b) => a.offset - b.offset);
      const { offset, problem, path } = placed[0]!;
      return this.errorAt(offset, problem, { path: formatPath(path) });
    };
    return { ok: true, raw, firstProblem };
  }
}

/** Where the quoted scalar that runs on to `end` (a missing closing quote) opens, if one does. */
function unclosedQuote(doc: Document, end: number): number | undefined {
  let start: number | undefined;
  visit(doc, {
    Scalar(_key, node) {
      const quoted = node.type === "QUOTE_DOUBLE" || node.type === "QUOTE_SINGLE";
      if (quoted && isScalar(node) && node.range?.[1] === end) start = node.range[0];
    },
  });
  return start;
}
