/**
 * The head of an HTTP/1.1 request, read from a TCP connection: the request
 * line and the header fields, up to a size limit and within a time limit
 * (a client that sends its head a byte a minute holds no connection for
 * long).
 *
 * @module
 */

/** A parsed request head; header names are lower case, repeated fields joined with ", ". */
export interface RequestHead {
  method: string;
  target: string;
  /** `1.0` or `1.1`. */
  version: string;
  headers: Map<string, string>;
}

export type ParsedHead =
  | { kind: "head"; head: RequestHead; length: number }
  | { kind: "incomplete" }
  | { kind: "invalid"; status: 400 | 431; message: string };

export type HeadRead =
  | { kind: "head"; head: RequestHead; rest: Uint8Array }
  | { kind: "invalid"; status: 400 | 431; message: string }
  /** The client closed or reset the connection first. */
  | { kind: "ended" }
  /** The time limit passed; the connection has been closed. */
  | { kind: "timeout" };

export interface HeadLimits {
  /** Largest head in bytes, the blank line included. */
  maxBytes: number;
  /** How long the whole head may take to arrive. */
  timeoutMs: number;
}

export const DEFAULT_HEAD_LIMITS: HeadLimits = { maxBytes: 16 * 1024, timeoutMs: 10_000 };
/** Enough for a worker's upgrade request in one read. */
const FIRST_BUFFER_BYTES = 2048;

const latin1 = new TextDecoder("latin1");
const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) ([^\s]+) HTTP\/(1\.[01])$/;
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Reads a request head from `conn`. On time-out the connection is closed
 * (the only way to end a read in progress); otherwise it is left open.
 */
export async function readRequestHead(
  conn: Pick<Deno.Conn, "read" | "close">,
  limits: HeadLimits = DEFAULT_HEAD_LIMITS,
): Promise<HeadRead> {
  // Grown as the head arrives: a client that sends nothing holds little memory.
  let buf = new Uint8Array(Math.min(FIRST_BUFFER_BYTES, limits.maxBytes));
  let used = 0;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      conn.close();
    } catch { /* closed already */ }
  }, limits.timeoutMs);
  try {
    for (;;) {
      if (used === buf.length) {
        const grown = new Uint8Array(Math.min(buf.length * 2, limits.maxBytes));
        grown.set(buf);
        buf = grown;
      }
      let n: number | null;
      try {
        n = await conn.read(buf.subarray(used));
      } catch {
        n = null;
      }
      if (timedOut) return { kind: "timeout" };
      if (n === null) return { kind: "ended" };
      const searchFrom = Math.max(0, used - 3);
      used += n;
      const parsed = parseRequestHead(buf.subarray(0, used), searchFrom, limits.maxBytes);
      if (parsed.kind === "invalid") return parsed;
      if (parsed.kind === "head") {
        return { kind: "head", head: parsed.head, rest: buf.slice(parsed.length, used) };
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Parses the head at the start of `bytes`: `incomplete` until the blank line
 * has arrived (searched for from `searchFrom`), `invalid` with 431 when
 * `maxBytes` hold no blank line, or with 400 when the head is malformed.
 */
export function parseRequestHead(
  bytes: Uint8Array,
  searchFrom = 0,
  maxBytes = Infinity,
): ParsedHead {
  const end = blankLineAt(bytes, searchFrom);
  if (end < 0) {
    if (bytes.length >= maxBytes) {
      return {
        kind: "invalid",
        status: 431,
        message: `Request head larger than ${maxBytes} bytes`,
      };
    }
    return { kind: "incomplete" };
  }
  const lines = latin1.decode(bytes.subarray(0, end)).split("\r\n");
  const requestLine = REQUEST_LINE.exec(lines[0]!);
  if (!requestLine) {
    return invalid(`Malformed request line ${JSON.stringify(lines[0]!.slice(0, 100))}`);
  }
  const headers = new Map<string, string>();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!FIELD_NAME.test(name)) {
      return invalid(`Malformed header line ${JSON.stringify(line.slice(0, 100))}`);
    }
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    if (/[\0\r\n]/.test(value)) {
      return invalid(`Malformed value of header ${JSON.stringify(name.slice(0, 100))}`);
    }
    const key = name.toLowerCase();
    const previous = headers.get(key);
    headers.set(key, previous === undefined ? value : `${previous}, ${value}`);
  }
  const [, method, target, version] = requestLine;
  return {
    kind: "head",
    head: { method: method!, target: target!, version: version!, headers },
    length: end + 4,
  };
}

function invalid(message: string): ParsedHead {
  return { kind: "invalid", status: 400, message };
}

/** Index of the `\r\n\r\n` ending the head, or -1. */
function blankLineAt(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}
