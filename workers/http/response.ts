/**
 * A function's `{status_code, headers, body}` (a handler's result, or the
 * `response` of a middleware's `respond`) turned into an HTTP response.
 *
 * - `status_code`: an integer from 200 to 599; 200 when absent.
 * - An object with none of the three fields (`{price: 5}`) is refused, not
 *   sent as an empty 200: it was almost always meant as the body.
 * - `headers`: a map of name to string (or to a list of strings, which
 *   repeats the header: `{"set-cookie": ["a=1", "b=2"]}`), or a list of
 *   `"Name: value"` lines (the reference's form, which can repeat a name too).
 *   Hop-by-hop fields (`connection` and those it names, `keep-alive`,
 *   `transfer-encoding`, `upgrade`, `te`, `trailer`) are dropped, as a
 *   gateway does, and so is `content-length`: the body's own is sent.
 * - `body`: sent as JSON (`application/json` unless the function set a
 *   content type); a string with the function's own content type is sent as
 *   is, and `null` with its own content type is sent empty. No body, no bytes.
 *
 * @module
 */

export type ResponseOutcome =
  | { kind: "ok"; response: Response }
  | { kind: "invalid"; reason: string };

const NULL_BODY_STATUS = new Set([204, 205, 304]);

/** The headers of a JSON reply with none of the function's own (copied by each Response). */
const JSON_ONLY = { "content-type": "application/json" };

/** Maps a function's response value; `invalid` says what is wrong with it. */
export function toHttpResponse(value: unknown): ResponseOutcome {
  if (value === undefined || value === null) return invalid("returned no response");
  if (typeof value !== "object" || Array.isArray(value)) {
    return invalid(
      `returned ${describe(value)} instead of a map with status_code, headers and body`,
    );
  }
  const fields = value as Record<string, unknown>;
  if (!("status_code" in fields || "headers" in fields || "body" in fields)) {
    // `return { price: 5 }`: meant as the body, it would be an empty 200.
    const keys = Object.keys(fields);
    if (keys.length > 0) {
      return invalid(
        `returned an object without status_code, headers or body (keys: ${
          keys.slice(0, 5).join(", ")
        }${keys.length > 5 ? ", …" : ""}): return {status_code: 200, body: <the object>}`,
      );
    }
  }
  const { status_code: status = 200, headers: rawHeaders, body } = fields;
  if (typeof status !== "number" || !Number.isInteger(status) || status < 200 || status > 599) {
    return invalid(
      `returned an invalid status_code ${describe(status)}: use an integer from 200 to 599`,
    );
  }
  if (rawHeaders === undefined || rawHeaders === null) {
    // The common case, without a Headers object to fill.
    if (body === undefined || NULL_BODY_STATUS.has(status)) {
      return ok(new Response(null, { status }));
    }
    return ok(new Response(JSON.stringify(body), { status, headers: JSON_ONLY }));
  }
  const headers = new Headers();
  const problem = fillHeaders(headers, rawHeaders);
  if (problem !== undefined) return invalid(`returned invalid headers: ${problem}`);
  dropHopByHop(headers);
  // The server writes the body's own length (a HEAD reply took the function's, right or not).
  headers.delete("content-length");
  if (body === undefined || NULL_BODY_STATUS.has(status)) {
    return ok(new Response(null, { status, headers }));
  }
  const ownType = headers.has("content-type");
  if (ownType && typeof body === "string") return ok(new Response(body, { status, headers }));
  if (ownType && body === null) return ok(new Response(null, { status, headers }));
  if (!ownType) headers.set("content-type", "application/json");
  return ok(new Response(JSON.stringify(body), { status, headers }));
}

/**
 * Fields about the connection, not the reply (RFC 9110 §7.6.1), which a
 * gateway does not pass on: a function cannot close, upgrade or re-frame the
 * client's connection (`connection: upgrade` on a 200 misleads proxies).
 */
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
];

/** A header name (RFC 9110 §5.1). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Drops the hop-by-hop fields, and those the `connection` field names. */
export function dropHopByHop(headers: Headers): void {
  const named = (headers.get("connection") ?? "").split(",").map((name) => name.trim());
  for (const name of [...HOP_BY_HOP, ...named]) {
    if (TOKEN.test(name)) headers.delete(name);
  }
}

function fillHeaders(headers: Headers, raw: unknown): string | undefined {
  if (Array.isArray(raw)) {
    for (const line of raw) {
      const colon = typeof line === "string" ? line.indexOf(":") : -1;
      if (colon <= 0) return `${describe(line)} is not a "Name: value" line`;
      const problem = addHeader(headers, line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (typeof raw !== "object") {
    return `expected a map or a list of "Name: value" lines, got ${describe(raw)}`;
  }
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const problem = setHeader(headers, name, value);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * Sets header `name` to `value`, a string (a number or boolean is written as
 * one) or a list of them, which repeats the header, as Node's
 * `res.setHeader("Set-Cookie", [...])` does. Returns what is wrong, naming the
 * header, when it cannot be sent; `headers` then holds none of a list's values.
 */
export function setHeader(headers: Headers, name: string, value: unknown): string | undefined {
  const values = Array.isArray(value) ? value : [value];
  for (const one of values) {
    if (typeof one !== "string" && typeof one !== "number" && typeof one !== "boolean") {
      const what = Array.isArray(value) ? `a list holding ${describe(one)}` : describe(one);
      return `header ${JSON.stringify(name)} has ${what}, not a string`;
    }
  }
  for (const [i, one] of values.entries()) {
    const problem = addHeader(headers, name, String(one), i === 0);
    if (problem !== undefined) {
      if (i > 0) headers.delete(name);
      return problem;
    }
  }
  return undefined;
}

/** Adds (or, with `replace`, sets) a header; what is wrong with it, naming it, if it cannot be. */
function addHeader(
  headers: Headers,
  name: string,
  value: string,
  replace = false,
): string | undefined {
  try {
    if (replace) headers.set(name, value);
    else headers.append(name, value);
    return undefined;
  } catch (e) {
    const breaking = /[\r\n\0]/.exec(value)?.[0];
    if (breaking !== undefined) {
      // Named, not quoted: the value would carry its line break into the message and the log.
      return `header ${JSON.stringify(name)} holds ${JSON.stringify(breaking)} (${
        codePoint(breaking)
      }), which would end the header: remove it`;
    }
    const wide = [...value].find((c) => c.codePointAt(0)! > 0xff);
    if (wide !== undefined) {
      return `header ${JSON.stringify(name)} holds ${JSON.stringify(wide)} (${
        codePoint(wide)
      }), which a header cannot carry: percent-encode the value`;
    }
    if (!TOKEN.test(name)) {
      return `header name ${
        JSON.stringify(name)
      } is not a token: use letters, digits and !#$%&'*+-.^_\`|~`;
    }
    return `header ${JSON.stringify(name)}: ${(e as Error).message}`;
  }
}

/** `U+000D` for a carriage return. */
function codePoint(c: string): string {
  return `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  if (typeof value === "string") {
    return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)}`;
  }
  return `${typeof value} ${String(value)}`;
}

function ok(response: Response): ResponseOutcome {
  return { kind: "ok", response };
}

function invalid(reason: string): ResponseOutcome {
  return { kind: "invalid", reason };
}
