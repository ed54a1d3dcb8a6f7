/**
 * Where a config file takes a port from: `port: ${ENGINE_PORT:49134}` reads
 * `ENGINE_PORT`. An error about a port in use names that variable, so that
 * the user moves the port for one run as the README says, rather than hunt
 * for a number in a file that holds none.
 *
 * @module
 */
import { isNode, parseDocument } from "yaml";

/** `${NAME}`, `${NAME:default}` or `${NAME:}`, and nothing else, as a scalar's whole text. */
const ONE_VARIABLE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)(?::[^}\n]*)?\}$/;

/**
 * The variable the scalar at `path` of config text `text` is made of, or
 * `undefined` when it is anything else (a number, text around the
 * variable, no such field).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const text = "console:\n  port: ${ENGINE_CONSOLE_PORT:3113}\n";
 * assert.equal(portVariable(text, ["console", "port"]), "ENGINE_CONSOLE_PORT");
 * ```
 */
export function portVariable(text: string, path: readonly (string | number)[]): string | undefined {
  // Each `${…}` masked to the same length, as the config parser does: in a flow collection its
  // `{` would open a map. Offsets into the masked text are offsets into `text`.
  const masked = text.replace(/\$\{[^}\n]*\}/g, (variable) => "_".repeat(variable.length));
  let node: unknown;
  try {
    node = parseDocument(masked).getIn(path as unknown[], true);
  } catch {
    return undefined; // a step through a scalar
  }
  if (!isNode(node) || !node.range) return undefined;
  const source = text.slice(node.range[0], node.range[1]).trim().replace(/^(["'])(.*)\1$/, "$2");
  return ONE_VARIABLE.exec(source)?.[1];
}

/** ` (the file reads it from ENGINE_PORT: ENGINE_PORT=<port> moves it for one run)`, or "". */
export function movePortHint(variable: string | undefined): string {
  return variable === undefined
    ? ""
    : ` (the file reads it from ${variable}: ${variable}=<port> moves it for one run)`;
}
