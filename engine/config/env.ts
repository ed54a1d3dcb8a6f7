/**
 * Environment-variable expansion over the config file's raw text, before YAML
 * parsing, so `port: ${HTTP_PORT:3111}` parses as a number.
 *
 * | Form             | Result                                            |
 * |------------------|---------------------------------------------------|
 * | `${VAR}`         | the value of `VAR`; an error when `VAR` is unset  |
 * | `${VAR:default}` | `default` when `VAR` is unset (may hold `:`, not `}`) |
 * | `${VAR:}`        | nothing when `VAR` is unset (see below)           |
 *
 * A value is text: an empty one leaves the scalar empty, which YAML reads as
 * null where it stands alone (`token: ${T:}`), as the reference does; write
 * `"${T:}"` for the empty string.
 *
 * Unlike the reference, which expands the whole text, text in a `#` comment is
 * left alone, so a commented-out `password: ${SECRET}` does not stop start-up;
 * and a value is text within one scalar, never YAML structure, so a secret
 * holding `" #"` is not cut short at a comment and a value holding a line
 * break cannot add fields. A `#` starts a comment at the start of a line or
 * after white space, outside quotes and block scalars, as in YAML. Quotes are
 * tracked within one line only.
 *
 * @module
 */

/** The reference implementation's pattern; group 2 is the default. */
const VARIABLE = /\$\{([^}:]+)(?::([^}]*))?\}/y;

/** A line whose code ends with a block scalar header (`key: |`, `- >-`): the lines below are text. */
const BLOCK_HEADER = /(?:^\s*|[:-]\s+)[|>][1-9+-]{0,2}$/;

/** Outcome of {@linkcode expandEnv}. */
export type ExpandResult =
  | {
    ok: true;
    text: string;
    /** Maps an offset in the expanded text back to the offset in the original text. */
    toOriginal: (offset: number) => number;
  }
  | {
    ok: false;
    /** The variable at fault. */
    name: string;
    /** Where its `${` is in the original text; `line` and `column` count from 1. */
    offset: number;
    line: number;
    column: number;
    /** What is wrong with it; absent when it is unset and has no default. */
    problem?: string;
  };

interface Substitution {
  /** Start and end of `${…}` in the original text. */
  from: number;
  to: number;
  /** Start and end of its value in the expanded text. */
  start: number;
  end: number;
}

/** Where a `${…}` stands in the YAML, which decides how its value is written there. */
type Place = "double" | "single" | "block" | "plain" | "plain-part";

/**
 * Expands `${VAR}`, `${VAR:default}` and `${VAR:}` in `text`, outside `#`
 * comments, reading variables through `env`. A value is always text inside
 * one scalar, never YAML structure: in double quotes it is escaped, in single
 * quotes its `'` doubled, in a block scalar its lines indented like the line
 * it is on; a whole unquoted scalar whose value YAML would read otherwise (a
 * `" #"` starting a comment, a `": "`, a leading `&`, `[`, `"`, …) is written
 * in double quotes. A value that cannot be written where it stands (a line
 * break outside double quotes and block scalars, such text inside a longer
 * unquoted scalar) is an error saying to quote it.
 *
 * @example
 * ```ts
 * import { expandEnv } from "./env.ts";
 * const result = expandEnv("port: ${PORT:3111}", () => undefined);
 * if (result.ok) console.log(result.text); // "port: 3111"
 * ```
 */
export function expandEnv(text: string, env: (name: string) => string | undefined): ExpandResult {
  const subs: Substitution[] = [];
  let out = "";
  let copied = 0;
  let line = 1;
  let lineStart = 0;
  let quote: "'" | '"' | undefined;
  /** The indentation of the current block scalar's header line, while in one. */
  let blockParent: number | undefined;
  let inBlock = false;
  let indent = "";
  /** Where the current line's code ends: its comment, or its end. */
  let codeEnd: number | undefined;
  const startLine = (at: number) => {
    lineStart = at;
    codeEnd = undefined;
    indent = /^[ \t]*/.exec(text.slice(at, at + 256))![0];
    const blank = /^[ \t]*(\r?\n|$)/.test(text.slice(at, at + indent.length + 2));
    inBlock = blockParent !== undefined && (blank || indent.length > blockParent);
    if (!inBlock) blockParent = undefined;
  };
  startLine(0);
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "\n") {
      if (!inBlock && BLOCK_HEADER.test(text.slice(lineStart, codeEnd ?? i).trimEnd())) {
        blockParent = indent.length;
      }
      line++;
      quote = undefined;
      i++;
      startLine(i);
      continue;
    }
    if (ch === "$") {
      VARIABLE.lastIndex = i;
      const match = VARIABLE.exec(text);
      if (match) {
        const name = match[1]!.trim();
        const fail = (problem?: string): ExpandResult => ({
          ok: false,
          name,
          offset: i,
          line,
          column: i - lineStart + 1,
          ...(problem === undefined ? {} : { problem }),
        });
        if (match[2]?.includes("${")) {
          return fail(
            `The default of variable "${name}" holds "\${": a default cannot hold another variable`,
          );
        }
        const value = env(name) ?? match[2];
        if (value === undefined) return fail();
        const place: Place = quote === '"'
          ? "double"
          : quote === "'"
          ? "single"
          : inBlock
          ? "block"
          : standsAlone(text, i, i + match[0].length)
          ? "plain"
          : "plain-part";
        const written = writeValue(value, place, indent);
        if (typeof written !== "string") {
          return fail(`Environment variable "${name}" ${written.problem}`);
        }
        out += text.slice(copied, i);
        subs.push({
          from: i,
          to: i + match[0].length,
          start: out.length,
          end: out.length + written.length,
        });
        out += written;
        i += match[0].length;
        copied = i;
        continue;
      }
    }
    if (inBlock) {
      i++;
      continue;
    }
    if (quote === undefined) {
      const prev = i === lineStart ? " " : text[i - 1]!;
      if (ch === "#" && /\s/.test(prev)) {
        codeEnd = i;
        const end = text.indexOf("\n", i);
        i = end === -1 ? text.length : end;
        continue;
      }
      if ((ch === "'" || ch === '"') && /[\s[{,]/.test(prev)) quote = ch;
    } else if (quote === '"' && ch === "\\") {
      i++;
    } else if (ch === quote) {
      if (quote === "'" && text[i + 1] === "'") i++;
      else quote = undefined;
    }
    i++;
  }
  out += text.slice(copied);
  return { ok: true, text: out, toOriginal: (offset) => toOriginal(subs, out, offset) };
}

/**
 * Whether the `${…}` at `from`..`to` of an unquoted line is a whole scalar:
 * a space, `[`, `{` or `,` (or the line's start) before it, and after it the
 * line's end, a comment, `": "` or a flow collection's `,`, `]`, `}`.
 */
function standsAlone(text: string, from: number, to: number): boolean {
  const before = from === 0 ? "\n" : text[from - 1]!;
  if (!/[\s[{,]/.test(before)) return false;
  const rest = text.slice(to, to + 2);
  return rest === "" || /^(\s|\r?\n|[,\]}]|:\s|:$)/.test(rest);
}

/**
 * Why YAML would not read `value` as the plain text it is (a comment, a key,
 * an anchor, a flow collection, trimmed white space), or `undefined`.
 */
function plainTrouble(value: string): string | undefined {
  if (value === "") return undefined;
  if (/[\r\n]/.test(value)) return "a line break";
  if (/[ \t]#/.test(value) || value.startsWith("#")) return '"#", which YAML reads as a comment';
  if (/:([ \t]|$)/.test(value)) return '":", which YAML reads as a key';
  if (/^[ \t]|[ \t]$/.test(value)) return "white space at an end, which YAML drops";
  if (/[,[\]{}]/.test(value)) return "a flow indicator (, [ ] { })";
  if (/^[&*!|>'"%@`]|^[-?:](\s|$)/.test(value)) {
    return `"${value[0]}" first, which YAML reads as syntax`;
  }
  return undefined;
}

/** `value` as it must be written at `place`, or the problem that prevents it. */
function writeValue(value: string, place: Place, indent: string): string | { problem: string } {
  switch (place) {
    case "double":
      return JSON.stringify(value).slice(1, -1);
    case "single":
      if (/[\r\n]/.test(value)) {
        return {
          problem: "holds a line break, which single quotes cannot hold: use double quotes",
        };
      }
      return value.replaceAll("'", "''");
    case "block":
      return value.replace(/\r?\n/g, `\n${indent}`);
    case "plain":
    case "plain-part": {
      const trouble = plainTrouble(value);
      if (trouble === undefined) return value;
      if (place === "plain" && trouble !== "a line break") return JSON.stringify(value);
      return {
        problem:
          `holds ${trouble}, which would change the YAML around it: put the text holding it in double quotes`,
      };
    }
  }
}

function toOriginal(subs: Substitution[], expanded: string, offset: number): number {
  let shift = 0;
  for (const sub of subs) {
    if (offset < sub.start) break;
    if (offset < sub.end) return sub.from;
    // An empty value: YAML places its null after the white space that follows it.
    if (sub.start === sub.end && onlyBlanks(expanded, sub.start, offset)) return sub.from;
    shift = sub.to - sub.end;
  }
  return offset + shift;
}

function onlyBlanks(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text[i] !== " " && text[i] !== "\t") return false;
  return true;
}
