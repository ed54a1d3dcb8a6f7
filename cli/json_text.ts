/**
 * JSON text laid out for reading without parsing it: `engine trigger`
 * prints a result as the worker wrote it, so a number keeps every digit
 * (`12345678901234567890`, `1e400`, `1.50`), which `JSON.parse` would round.
 *
 * @module
 */

/**
 * `text` (valid JSON) indented by two spaces a level, as
 * `JSON.stringify(value, null, 2)` lays it out, with every number and string
 * written as in `text`.
 *
 * @example
 * ```ts
 * import { prettyJsonText } from "./json_text.ts";
 * prettyJsonText('{"n":12345678901234567890,"l":[]}');
 * // '{\n  "n": 12345678901234567890,\n  "l": []\n}'
 * ```
 */
export function prettyJsonText(text: string): string {
  const out: string[] = [];
  let depth = 0;
  let i = 0;
  const newline = () => out.push("\n", "  ".repeat(depth));
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      out.push(text.slice(i, end));
      i = end;
      continue;
    }
    if (c === "{" || c === "[") {
      const next = skipSpace(text, i + 1);
      if (text[next] === (c === "{" ? "}" : "]")) {
        out.push(c === "{" ? "{}" : "[]");
        i = next + 1;
        continue;
      }
      out.push(c);
      depth++;
      newline();
    } else if (c === "}" || c === "]") {
      depth--;
      newline();
      out.push(c);
    } else if (c === ",") {
      out.push(",");
      newline();
    } else if (c === ":") {
      out.push(": ");
    } else if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") {
      out.push(c);
    }
    i++;
  }
  return out.join("");
}

/** The index after the string that opens at `i`. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === "\\") j++;
    else if (text[j] === '"') return j + 1;
  }
  return text.length;
}

function skipSpace(text: string, i: number): number {
  while (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r") i++;
  return i;
}
