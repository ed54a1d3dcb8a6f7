/**
 * Where a JSON text breaks. `JSON.parse` names a position for some mistakes
 * and only quotes the text for others, so a rejected body is scanned once
 * more (only then) to point at the first offending character.
 *
 * @module
 */

/** Describes the first syntax error of `text` as `unexpected "}" at line 1, column 6`. */
export function describeJsonError(text: string): string {
  let offset: number;
  try {
    offset = new Scanner(text).run();
  } catch (e) {
    if (e instanceof RangeError) return "nested too deeply"; // call stack exhausted
    throw e;
  }
  if (offset < 0) return "invalid JSON";
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  const what = offset >= text.length ? "end of input" : JSON.stringify(text[offset]);
  return `unexpected ${what} at line ${line}, column ${column}`;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
// JSON strings may not hold raw control characters.
// deno-lint-ignore no-control-regex
const STRING_BODY = /(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*/y;

class Scanner {
  #text: string;
  #at = 0;

  constructor(text: string) {
    this.#text = text;
  }

  /** The offset of the first error, or -1 when the text is valid. */
  run(): number {
    const error = this.#value();
    if (error >= 0) return error;
    this.#ws();
    return this.#at < this.#text.length ? this.#at : -1;
  }

  #ws(): void {
    while (this.#at < this.#text.length && " \t\n\r".includes(this.#text[this.#at]!)) this.#at++;
  }

  #value(): number {
    this.#ws();
    const c = this.#text[this.#at];
    if (c === "{") return this.#container("}", true);
    if (c === "[") return this.#container("]", false);
    if (c === '"') return this.#string();
    for (const word of ["true", "false", "null"]) {
      if (this.#text.startsWith(word, this.#at)) {
        this.#at += word.length;
        return -1;
      }
    }
    NUMBER.lastIndex = this.#at;
    if (NUMBER.test(this.#text)) {
      this.#at = NUMBER.lastIndex;
      return -1;
    }
    return this.#at;
  }

  #string(): number {
    STRING_BODY.lastIndex = this.#at + 1;
    STRING_BODY.test(this.#text);
    this.#at = STRING_BODY.lastIndex;
    if (this.#text[this.#at] !== '"') return this.#at;
    this.#at++;
    return -1;
  }

  #container(close: string, isObject: boolean): number {
    this.#at++;
    this.#ws();
    if (this.#text[this.#at] === close) {
      this.#at++;
      return -1;
    }
    for (;;) {
      if (isObject) {
        this.#ws();
        if (this.#text[this.#at] !== '"') return this.#at;
        const key = this.#string();
        if (key >= 0) return key;
        this.#ws();
        if (this.#text[this.#at] !== ":") return this.#at;
        this.#at++;
      }
      const error = this.#value();
      if (error >= 0) return error;
      this.#ws();
      const c = this.#text[this.#at];
      this.#at++;
      if (c === close) return -1;
      if (c !== ",") return this.#at - 1;
    }
  }
}
