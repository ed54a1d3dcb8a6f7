/**
 * Function ids: `<namespace>::<name>`.
 *
 * @module
 */

/** Parts of letters, digits, `-` and `_`, joined by `::` (two parts or more). */
const FUNCTION_ID = /^[A-Za-z0-9_-]+(?:::[A-Za-z0-9_-]+)+$/;

/**
 * Throws a `TypeError` naming `id` unless it has the form
 * `<namespace>::<name>` with parts made of letters, digits, `-` and `_`.
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
  if (typeof id !== "string" || !FUNCTION_ID.test(id)) {
    throw new TypeError(
      `Invalid function id ${JSON.stringify(id)}: expected "<namespace>::<name>" ` +
        `with parts made of letters, digits, "-" and "_"`,
    );
  }
}
