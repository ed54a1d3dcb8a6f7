/**
 * Function ids: `<namespace>::<name>`.
 *
 * @module
 */

/** Parts of letters, digits, `-` and `_`, joined by `::` (two parts or more). */
const FUNCTION_ID = /^[A-Za-z0-9_-]+(?:::[A-Za-z0-9_-]+)+$/;

/** The longest id the engine accepts (engine/protocol/ids.ts). */
const MAX_LENGTH = 256;

/** The rule in the engine's words, so a refusal reads alike wherever it is caught. */
const FUNCTION_ID_RULE =
  "a function id is two or more parts separated by \"::\", each part letters, digits, '-' and '_'";

/**
 * Throws a `TypeError` naming `id` unless it has the form
 * `<namespace>::<name>` with parts made of letters, digits, `-` and `_`,
 * and is at most 256 characters long (the engine refuses longer ids).
 *
 * @example
 * ```ts
 * validateFunctionId("orders::create"); // fine
 * try {
 *   validateFunctionId("orders.create");
 * } catch (err) {
 *   console.log((err as Error).message);
 * }
 * ```
 */
export function validateFunctionId(id: unknown): asserts id is string {
  if (typeof id !== "string") {
    throw new TypeError(
      `Invalid function id ${String(JSON.stringify(id))}: expected a string, got ${typeof id}`,
    );
  }
  // The engine's wording for both refusals, so an id reads alike wherever it is caught.
  if (id.length > MAX_LENGTH) {
    throw new TypeError(
      `Invalid function id "${id.slice(0, 64)}…": longer than ${MAX_LENGTH} characters`,
    );
  }
  if (!FUNCTION_ID.test(id)) {
    throw new TypeError(`Invalid function id "${id}": ${FUNCTION_ID_RULE}`);
  }
}
