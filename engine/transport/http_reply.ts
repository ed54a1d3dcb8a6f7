/**
 * The plain HTTP answers of the native server: a JSON body, then the
 * connection closes (no keep-alive: the port serves WebSocket clients and
 * an occasional health check).
 *
 * @module
 */

const REASONS: Record<number, string> = {
  200: "OK",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  426: "Upgrade Required",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
};

const encoder = new TextEncoder();

/**
 * The bytes of a complete response with `body` as JSON; `headOnly` (a HEAD
 * request) keeps the headers, `content-length` included, and leaves out the body.
 */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  headOnly = false,
): Uint8Array {
  const json = encoder.encode(JSON.stringify(body));
  let head = `HTTP/1.1 ${status} ${REASONS[status] ?? "Unknown"}\r\n` +
    `content-type: application/json\r\ncontent-length: ${json.length}\r\nconnection: close\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  const headBytes = encoder.encode(head + "\r\n");
  if (headOnly) return headBytes;
  const out = new Uint8Array(headBytes.length + json.length);
  out.set(headBytes);
  out.set(json, headBytes.length);
  return out;
}

/** Writes all of `bytes` (a write may take only part of them). */
export async function writeAll(conn: Pick<Deno.Conn, "write">, bytes: Uint8Array): Promise<void> {
  for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
}
