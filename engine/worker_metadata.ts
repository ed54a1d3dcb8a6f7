/**
 * What a worker may tell about itself (`engine::workers::register`): the
 * engine keeps it on the connection for as long as the worker stays, merged
 * with what it said before, and shows it in `engine::workers::list` and the
 * console. Bounded, so a worker that keeps sending new keys, or one large
 * value, cannot grow the engine's memory for the life of its connection.
 *
 * @module
 */

/** Most keys a worker's merged metadata holds (iii-sdk sends 8). */
export const MAX_METADATA_KEYS = 64;
/** Most characters of a worker's merged metadata as JSON. */
export const MAX_METADATA_CHARS = 16_384;

/**
 * Why `update` merged over `current` is more metadata than the engine keeps,
 * or `undefined` when it may be kept.
 *
 * @example
 * ```ts
 * import { metadataProblem } from "./worker_metadata.ts";
 * metadataProblem({ runtime: "node" }, { pid: 7 }); // undefined
 * metadataProblem({}, { note: "x".repeat(20_000) }); // "its metadata would be 20,011 characters of JSON, over …"
 * ```
 */
export function metadataProblem(
  current: Record<string, unknown>,
  update: Record<string, unknown>,
): string | undefined {
  const merged = { ...current, ...update };
  const keys = Object.keys(merged).length;
  if (keys > MAX_METADATA_KEYS) {
    return `its metadata would have ${keys} keys, over the ${MAX_METADATA_KEYS} the engine keeps`;
  }
  const chars = JSON.stringify(merged).length;
  if (chars > MAX_METADATA_CHARS) {
    return `its metadata would be ${chars.toLocaleString("en-US")} characters of JSON, ` +
      `over the ${MAX_METADATA_CHARS.toLocaleString("en-US")} the engine keeps`;
  }
  return undefined;
}
