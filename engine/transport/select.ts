/**
 * Which WebSocket server the engine runs: `deno` (`Deno.serve` with
 * `Deno.upgradeWebSocket`) or `native` (this folder's RFC 6455 server over
 * `Deno.listen`). Chosen at start-up with `ENGINE_TRANSPORT`.
 *
 * @module
 */

export const TRANSPORTS = ["deno", "native"] as const;
export type TransportName = typeof TRANSPORTS[number];

/** The environment variable that chooses the transport. */
export const TRANSPORT_VARIABLE = "ENGINE_TRANSPORT";

/**
 * The transport named by `value` (the variable's value; unset or empty means
 * `deno`). Throws on anything else, naming the variable and the choices.
 */
export function parseTransport(value: string | undefined): TransportName {
  if (value === undefined || value === "") return "deno";
  if ((TRANSPORTS as readonly string[]).includes(value)) return value as TransportName;
  throw new Error(
    `Invalid ${TRANSPORT_VARIABLE} ${JSON.stringify(value)}: expected ${
      TRANSPORTS.map((t) => `"${t}"`).join(" or ")
    }`,
  );
}
