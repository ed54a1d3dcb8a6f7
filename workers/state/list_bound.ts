/**
 * The bound of one `state::list` (or `list_keys`) answer: a scope's entries
 * are counted as they are read, and the list is refused once they are over
 * `max_list_bytes`, before the rest is read. An unbounded answer of a large
 * scope grew the engine by several times the scope's size and was then
 * refused by the caller's SDK, which closed its whole connection.
 *
 * @module
 */

import { CallError } from "../../engine/api.ts";
import { utf8Length } from "../_shared/utf8.ts";
import { quoteName } from "./values.ts";

/** 32 MiB: the default `max_list_bytes`, half what the SDKs take in one message. */
export const DEFAULT_MAX_LIST_BYTES = 32 * 1024 * 1024;

const numberFormat = new Intl.NumberFormat("en-US");

/**
 * A counter of the entries of `scope` read for one list: each call adds one
 * entry's key and stored text, and throws `LIST_TOO_LARGE` once the sum is
 * over `maxBytes`.
 */
export function listBound(scope: string, maxBytes: number): (key: string, text: string) => void {
  let bytes = 0;
  let entries = 0;
  return (key, text) => {
    entries++;
    bytes += utf8Length(key) + utf8Length(text);
    if (bytes <= maxBytes) return;
    throw new CallError({
      code: "LIST_TOO_LARGE",
      message: `Scope ${quoteName(scope)} is over ${
        numberFormat.format(maxBytes)
      } bytes of keys and values (over ${numberFormat.format(bytes)} bytes in its first ${
        numberFormat.format(entries)
      } entries): a list answers at most ${
        numberFormat.format(maxBytes)
      } bytes (max_list_bytes); raise the limit, or spread the values over more scopes`,
    });
  };
}
