/**
 * Environment-variable expansion over the config file's raw text, before YAML
 * parsing, so `port: ${HTTP_PORT:3111}` parses as a number.
 *
 * | Form             | Result                                            |
 * |------------------|---------------------------------------------------|
 * | `${VAR}`         | the value of `VAR`; an error when `VAR` is unset  |
 * | `${VAR:default}` | `default` when `VAR` is unset (may hold `:`, not `}`) |
 * | `${VAR:}`        | the empty string when `VAR` is unset              |
 *
 * Unlike the reference, which expands the whole text, text in a `#` comment is
 * left alone, so a commented-out `password: ${SECRET}` does not stop start-up.
 * A `#` starts a comment at the start of a line or after white space, outside
 * quotes, as in YAML. Quotes are tracked within one line only, and a `#` after
 * white space inside a block scalar (`|`, `>`) is taken for a comment too: a
 * `${VAR}` after it on that line is not expanded.
 *
 * @module
 */

/** The reference implementation's pattern; group 2 is the default. */
const VARIABLE = /\$\{([^}:]+)(?::([^}]*))?\}/y;

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
    /** The unset variable. */
    name: string;
    /** Where its `${` is in the original text; `line` and `column` count from 1. */
    offset: number;
    line: number;
    column: number;
  };

interface Substitution {
  /** Start and end of `${…}` in the original text. */
  from: number;
  to: number;
  /** Start and end of its value in the expanded text. */
  start: number;
  end: number;
}

/**
 * Expands `${VAR}`, `${VAR:default}` and `${VAR:}` in `text`, outside `#`
 * comments, reading variables through `env`.
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
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === "\n") {
      line++;
      lineStart = i + 1;
      quote = undefined;
      i++;
      continue;
    }
    if (ch === "$") {
      VARIABLE.lastIndex = i;
      const match = VARIABLE.exec(text);
      if (match) {
        const name = match[1]!.trim();
        const value = env(name) ?? match[2];
        if (value === undefined) {
          return { ok: false, name, offset: i, line, column: i - lineStart + 1 };
        }
        out += text.slice(copied, i);
        subs.push({
          from: i,
          to: i + match[0].length,
          start: out.length,
          end: out.length + value.length,
        });
        out += value;
        i += match[0].length;
        copied = i;
        continue;
      }
    }
    if (quote === undefined) {
      const prev = i === lineStart ? " " : text[i - 1]!;
      if (ch === "#" && /\s/.test(prev)) {
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
  return { ok: true, text: out, toOriginal: (offset) => toOriginal(subs, offset) };
}

function toOriginal(subs: Substitution[], offset: number): number {
  let shift = 0;
  for (const sub of subs) {
    if (offset < sub.start) break;
    if (offset < sub.end) return sub.from;
    shift = sub.to - sub.end;
  }
  return offset + shift;
}
