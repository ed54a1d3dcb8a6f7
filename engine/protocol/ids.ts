/**
 * Function ids: `<namespace>::<name>`, two or more parts separated by `::`,
 * each part letters, digits, `-` and `_` (seed §2).
 *
 * @module
 */

const FUNCTION_ID = /^[A-Za-z0-9_-]+(::[A-Za-z0-9_-]+)+$/;
const MAX_LENGTH = 256;

export const FUNCTION_ID_RULE =
  "a function id is two or more parts separated by \"::\", each part letters, digits, '-' and '_'";

/** Returns `undefined` for a valid id, else the reason it is refused. */
export function checkFunctionId(id: string): string | undefined {
  if (id.length > MAX_LENGTH) {
    return `Invalid function id "${id.slice(0, 64)}…": longer than ${MAX_LENGTH} characters`;
  }
  if (!FUNCTION_ID.test(id)) return `Invalid function id "${id}": ${FUNCTION_ID_RULE}`;
  return undefined;
}
