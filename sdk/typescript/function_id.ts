/**
 * Function ids: `<namespace>::<name>`.
 *
 * @module
 */

/** Parts of letters, digits, `-` and `_`, joined by `::` (two parts or more). */
const FUNCTION_ID = /^[A-Za-z0-9_-]+(?:::[A-Za-z0-9_-]+)+$/;

/** The longest id the engine accepts (engine/protocol/ids.ts). */
const MAX_LENGTH = 256;

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
  // Same wording as the engine's refusal, so a too-long id reads alike wherever it is caught.
  if (typeof id === "string" && id.length > MAX_LENGTH) {
    throw new TypeError(
      `Invalid function id "${id.slice(0, 64)}…": longer than ${MAX_LENGTH} characters`,
    );
  }
  if (typeof id !== "string" || !FUNCTION_ID.test(id)) {
    throw new TypeError(
      `Invalid function id ${JSON.stringify(id)}: expected "<namespace>::<name>" ` +
        `with parts made of letters, digits, "-" and "_"`,
    );
  }
}
