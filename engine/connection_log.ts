/**
 * What the engine's log says of a worker connection saying who it is, and
 * which connections are the CLI's own: each `engine` command opens one (or
 * two) for a moment, and `engine logs -f` keeps one open, all saying
 * `sdk: "engine-cli"` (`cli/engine_url.ts`). They are tools, not workers: a
 * line for each made most of the log (65 of 100 lines in a quickstart run).
 * What goes wrong on them is logged as for any connection.
 *
 * @module
 */

/** The `sdk` the CLI's connections give in `engine::workers::register`. */
export const CLI_SDK = "engine-cli";

/** Whether a connection is the CLI's own, from what it said of itself. */
export function isCliConnection(conn: { metadata: Record<string, unknown> }): boolean {
  return conn.metadata.sdk === CLI_SDK;
}

/**
 * The debug line for a worker that said who it is
 * (`Worker "orders" registered (node, pid 42)`), or undefined for the CLI's
 * own connections.
 */
export function registeredLine(
  conn: { name: string; metadata: Record<string, unknown> },
): string | undefined {
  if (isCliConnection(conn)) return undefined;
  const m = conn.metadata;
  const runtime = typeof m.runtime === "string"
    ? ` (${m.runtime}${m.pid ? `, pid ${m.pid}` : ""})`
    : "";
  return `Worker "${conn.name}" registered${runtime}`;
}
