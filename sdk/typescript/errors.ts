/**
 * The error a failed call surfaces as.
 *
 * @module
 */

/** The `ErrorBody` of the wire protocol: `{code, message, stacktrace?}`. */
export interface ErrorBody {
  code: string;
  message: string;
  stacktrace?: string;
}

/**
 * A call failed: the engine or the called function answered with an error, or
 * the call failed locally. `code` is the protocol's error code, for example
 * `function_not_found`, `invocation_failed`, `invocation_stopped`, `TIMEOUT`
 * (no answer within the time-out) or `shutdown` (the worker shut down first).
 *
 * A handler may also throw an `EngineError` (or any error with a string
 * `code`) to answer its caller with that code instead of `invocation_failed`.
 *
 * @example
 * ```ts
 * try {
 *   throw new EngineError("not_found", 'Order "42" does not exist');
 * } catch (err) {
 *   if (err instanceof EngineError) console.log(err.code, err.message);
 * }
 * ```
 */
export class EngineError extends Error {
  /** Machine-readable error code. */
  readonly code: string;
  /** Stack trace of the remote failure, when the callee sent one. */
  readonly stacktrace: string | undefined;
  /** The function that was called, when known. */
  readonly function_id: string | undefined;

  constructor(
    code: string,
    message: string,
    options: {
      stacktrace?: string | undefined;
      function_id?: string | undefined;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "EngineError";
    this.code = code;
    this.stacktrace = options.stacktrace;
    this.function_id = options.function_id;
  }

  /**
   * Builds an `EngineError` from the `error` field of an `invocationresult`.
   * A value that is not an `ErrorBody` gives code `UNKNOWN`.
   *
   * @example
   * ```ts
   * const err = EngineError.fromBody({ code: "function_not_found", message: "Function a::b not found" }, "a::b");
   * console.log(err.code); // "function_not_found"
   * ```
   */
  static fromBody(body: unknown, function_id?: string): EngineError {
    if (isErrorBody(body)) {
      const stacktrace = typeof body.stacktrace === "string" ? body.stacktrace : undefined;
      return new EngineError(body.code, body.message, { stacktrace, function_id });
    }
    const message = typeof body === "string" ? body : JSON.stringify(body);
    return new EngineError("UNKNOWN", message, { function_id });
  }

  /** The wire form `{code, message, stacktrace?}`. */
  toJSON(): ErrorBody {
    return this.stacktrace === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, stacktrace: this.stacktrace };
  }
}

/**
 * Whether `value` has the shape `{code: string, message: string, stacktrace?: string}`.
 *
 * @example
 * ```ts
 * console.log(isErrorBody({ code: "x", message: "y" })); // true
 * console.log(isErrorBody("boom")); // false
 * ```
 */
export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.code === "string" && typeof v.message === "string" &&
    (v.stacktrace === undefined || v.stacktrace === null || typeof v.stacktrace === "string");
}

/**
 * The `ErrorBody` a handler's thrown value is reported as: its own string
 * `code` when it has one (an `Error` or a plain object), else
 * `invocation_failed`; the message (an `Error` without one by its name, a
 * plain object without one as JSON); and the stack for `Error` objects.
 * Never throws: a value that throws when read (a getter, a `Proxy`) is
 * described by its type.
 */
export function toErrorBody(thrown: unknown): ErrorBody {
  try {
    return readThrown(thrown);
  } catch (err) {
    // The caller must get an answer even then: throwing here would leave it waiting.
    return {
      code: "invocation_failed",
      message: `${typeName(thrown)} (reading the thrown value raised ${typeName(err)})`,
    };
  }
}

function readThrown(thrown: unknown): ErrorBody {
  if (thrown instanceof Error) {
    const code = ownCode(thrown, "invocation_failed");
    const remote = thrown instanceof EngineError ? thrown.stacktrace : undefined;
    const stacktrace = remote ?? thrown.stack;
    // "invocation_failed: " alone tells the caller nothing; the name at least says what failed.
    const message = String(thrown.message) || String(thrown.name) || "Error";
    return typeof stacktrace === "string" ? { code, message, stacktrace } : { code, message };
  }
  if (isErrorBody(thrown)) {
    const { code, message, stacktrace } = thrown;
    return typeof stacktrace === "string" ? { code, message, stacktrace } : { code, message };
  }
  if (typeof thrown === "object" && thrown !== null) {
    // A plain object: its own code if it has one, and JSON rather than "[object Object]".
    const { message } = thrown as { message?: unknown };
    return {
      code: ownCode(thrown, "invocation_failed"),
      message: typeof message === "string" ? message : describe(thrown),
    };
  }
  return { code: "invocation_failed", message: String(thrown) };
}

/** `Error`, `TypeError`, `Object`, `string`, …: what `value` is, without reading more of it. */
function typeName(value: unknown): string {
  if (typeof value !== "object" || value === null) return value === null ? "null" : typeof value;
  try {
    const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)
      ?.constructor?.name;
    return typeof name === "string" && name !== "" ? name : "object";
  } catch {
    return "object"; // a Proxy whose getPrototypeOf trap throws
  }
}

/** The `code` a thrown value carries when it is a non-empty string, else `fallback`. */
export function ownCode(thrown: unknown, fallback: string): string {
  const code = (thrown as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" && code !== "" ? code : fallback;
}

function describe(value: object): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value); // a cycle or a BigInt
  }
}
