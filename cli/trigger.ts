/**
 * `engine trigger --function-id=<id> --payload=<json>`: calls a function
 * through the running engine and prints its JSON result.
 *
 * @module
 */
import { parseCommandArgs, parseTimeoutMs, parseUrlOption } from "./args.ts";
import { callerEngineUrl } from "./caller_engine.ts";
import { EngineClient, EngineUnreachable, FunctionFailed } from "./engine_url.ts";
import { prettyJsonText } from "./json_text.ts";
import { resolveFromCaller } from "./paths.ts";
import { notFoundHint } from "./trigger_hint.ts";
import { UsageError } from "./usage.ts";

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  /** Resolves when the reader of `out` went away (`engine logs -f | head -1`). */
  outClosed?: Promise<void>;
}

export function parseTriggerArgs(args: string[]) {
  const { values, positionals } = parseCommandArgs("trigger", {
    args,
    options: {
      "function-id": { type: "string" },
      payload: { type: "string" },
      "timeout-ms": { type: "string" },
      url: { type: "string" },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 0) {
    throw new UsageError(positionalHint(values["function-id"], positionals), "trigger");
  }
  const functionId = values["function-id"];
  if (!functionId) {
    throw new UsageError(
      "Missing --function-id: name the function to call, e.g. --function-id=math::add",
      "trigger",
    );
  }
  // `@<file>` or `-` (standard input): for a payload larger than one argument may be.
  const from = values.payload === "-" ? "-" : values.payload?.match(/^@(.+)$/s)?.[1];
  const payload = from === undefined ? checkPayload(values.payload ?? "{}", "--payload") : "";
  const timeoutMs = parseTimeoutMs(values["timeout-ms"], { command: "trigger", fallback: 30_000 });
  return {
    functionId,
    payload,
    ...(from === undefined ? {} : { payloadFrom: from }),
    timeoutMs,
    url: parseUrlOption(values.url, "trigger"),
  };
}

/**
 * `text` trimmed, once it is checked to be JSON; sent as written, since
 * parsing would round numbers JSON.parse cannot hold. Not JSON: a
 * {@linkcode UsageError} naming `what` and the place.
 */
function checkPayload(text: string, what: string): string {
  try {
    JSON.parse(text);
    return text.trim();
  } catch (e) {
    const detail = (e as Error).message;
    const where = /position \d+/.test(detail)
      ? ""
      : ` (at the end of the text, position ${text.length})`;
    throw new UsageError(`${what} is not valid JSON: ${detail}${where}`, "trigger");
  }
}

/** The payload text of `--payload=@<file>` or `--payload=-`; a read error is an `Error` to report. */
async function readPayload(from: string): Promise<string> {
  const path = from === "-" ? "standard input" : resolveFromCaller(from);
  let text: string;
  try {
    text = from === "-"
      ? await new Response(Deno.stdin.readable).text()
      : await Deno.readTextFile(path);
  } catch (e) {
    throw new Error(`Cannot read the payload from "${path}": ${(e as Error).message}`);
  }
  return checkPayload(
    text,
    from === "-" ? "The payload on standard input" : `The payload in "${path}"`,
  );
}

/**
 * What to write instead of the reference's `trigger <fn> [key=value …]`:
 * the options, with the pairs as the JSON payload they stand for (each
 * value JSON when it parses, else text).
 */
function positionalHint(functionId: string | undefined, positionals: string[]): string {
  const first = positionals[0]!;
  const id = functionId === undefined && !first.includes("=") ? first : undefined;
  const payload = pairsPayload(id === undefined ? positionals : positionals.slice(1));
  const quoted = payload === undefined ? "" : `'${payload.replaceAll("'", `'\\''`)}'`;
  if (id !== undefined) {
    return `Unexpected argument "${id}": write --function-id=${id}` +
      (payload === undefined ? "" : ` --payload=${quoted}`);
  }
  return `Unexpected argument "${first}": ` +
    (payload === undefined
      ? "this command takes options only"
      : `give the payload as JSON with --payload, e.g. --payload=${quoted}`);
}

/** `key=value` words as a JSON object's text; `undefined` when there are none or one is not such a word. */
function pairsPayload(words: string[]): string | undefined {
  if (words.length === 0) return undefined;
  const payload: Record<string, unknown> = {};
  for (const word of words) {
    const at = word.indexOf("=");
    if (at <= 0) return undefined;
    const text = word.slice(at + 1);
    try {
      payload[word.slice(0, at)] = JSON.parse(text);
    } catch {
      payload[word.slice(0, at)] = text;
    }
  }
  return JSON.stringify(payload);
}

export async function trigger(args: string[], io: Io): Promise<number> {
  const { functionId, payloadFrom, timeoutMs, url: flag, ...parsed } = parseTriggerArgs(args);
  let payload = parsed.payload;
  if (payloadFrom !== undefined) {
    try {
      payload = await readPayload(payloadFrom);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      io.err(`Error: ${(e as Error).message}`);
      return 1;
    }
  }
  const url = await callerEngineUrl(flag);
  let client: EngineClient;
  try {
    // Connecting has its own bound: a short --timeout-ms is the call's, and must not read as
    // an engine that cannot be reached.
    client = await EngineClient.connect(url, { timeoutMs: 10_000 });
  } catch (e) {
    io.err(`Error: ${(e as Error).message}`);
    return 1;
  }
  try {
    const result = await client.callText(functionId, payload, timeoutMs);
    io.out(prettyJsonText(result));
    return 0;
  } catch (e) {
    if (e instanceof FunctionFailed) {
      io.err(`Error: ${e.body.code}: ${e.body.message}`);
      if (e.body.code === "function_not_found") io.err(await notFoundHint(client, functionId));
    } else if (e instanceof EngineUnreachable) io.err(`Error: ${e.message}`);
    else throw e;
    return 1;
  } finally {
    await client.close();
  }
}
