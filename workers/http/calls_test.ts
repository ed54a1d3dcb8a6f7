import assert from "node:assert/strict";
import { callFunction, type CallRequest, type Invoker, requestAborted } from "./calls.ts";
import { CallError, type ErrorBody, isEngineFailure, markEngineFailure } from "../../engine/api.ts";
import {
  functionNotFound,
  invocationStopped,
  invocationTimeout,
  refusedAtShutdown,
} from "../../engine/protocol/errors.ts";
import { HttpError } from "./errors.ts";
import { RequestScope } from "./scope.ts";

const TRACE = { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
const HANDLER: CallRequest = { role: "Function", functionId: "orders::get", payload: {} };

/** A scope that already ran out of time (or, with `stopped`, whose worker stopped). */
function endedScope(stopped = false): RequestScope {
  const stopping = new AbortController();
  if (stopped) stopping.abort(new DOMException("stopping", "AbortError"));
  const scope = new RequestScope(performance.now(), stopping.signal, TRACE);
  scope.end(new DOMException("Request timed out", "TimeoutError"));
  return scope;
}

Deno.test("requestAborted() names the step the request timed out in, and keeps 504 REQUEST_TIMEOUT", () => {
  const cases: [CallRequest | string, string][] = [
    [HANDLER, 'Request timed out: function "orders::get" did not answer'],
    [
      { role: "Middleware", functionId: "auth::key", payload: {} },
      'Request timed out: middleware "auth::key" did not answer',
    ],
    [
      "waiting for a free request slot (concurrency_request_limit 4)",
      "Request timed out: waiting for a free request slot (concurrency_request_limit 4)",
    ],
    ["reading the request body", "Request timed out: reading the request body"],
  ];
  for (const [during, message] of cases) {
    const error = requestAborted(endedScope(), during);
    assert.deepEqual([error.status, error.code, error.message], [504, "REQUEST_TIMEOUT", message]);
  }
});

Deno.test("requestAborted() answers 503 SHUTTING_DOWN whatever the step when the worker stops", () => {
  for (const during of [HANDLER, "reading the request body"]) {
    const error = requestAborted(endedScope(true), during);
    assert.deepEqual([error.status, error.code, error.message], [
      503,
      "SHUTTING_DOWN",
      "The HTTP worker is stopping",
    ]);
  }
});

Deno.test("callFunction() with a scope that already timed out does not call, and says so", async () => {
  const called: string[] = [];
  const invoker: Invoker = {
    hasFunction: () => true,
    call: (functionId) => {
      called.push(functionId);
      return Promise.resolve(null);
    },
  };
  await assert.rejects(callFunction(invoker, endedScope(), HANDLER), (error: unknown) => {
    assert.ok(error instanceof HttpError);
    assert.equal(error.status, 504);
    assert.equal(error.message, 'Request timed out: before function "orders::get" was called');
    return true;
  });
  assert.deepEqual(called, []);
});

Deno.test("callFunction() blames the engine's failure of the call on the call, and any other failure on the function", async () => {
  const scope = () =>
    new RequestScope(performance.now() + 60_000, new AbortController().signal, TRACE);
  const failing = (error: CallError): Invoker => ({
    hasFunction: () => true,
    call: () => Promise.reject(error),
  });
  const engines = (body: ErrorBody) => new CallError(markEngineFailure(body));
  const cases: [CallError, number, string][] = [
    // The engine's own failures of the call to orders::get.
    [new CallError(functionNotFound("orders::get")), 503, "FUNCTION_UNAVAILABLE"],
    [
      engines({
        code: "function_not_found",
        message: 'Function orders::get not found on worker "w"',
      }),
      503,
      "FUNCTION_UNAVAILABLE",
    ],
    [new CallError(invocationTimeout("orders::get", 10)), 504, "REQUEST_TIMEOUT"],
    [new CallError(invocationStopped("orders::get", "gone")), 502, "invocation_stopped"],
    [
      engines({
        code: "overloaded",
        message: 'Cannot call orders::get: worker "w" is not reading',
      }),
      503,
      "overloaded",
    ],
    // orders::get's worker is draining and no other replica could take the call.
    [
      new CallError(refusedAtShutdown("orders::get", "w", "Worker is shutting down")),
      503,
      "shutdown",
    ],
    // The engine refused orders::get's result as over max_frame_bytes.
    [
      engines({
        code: "frame_too_large",
        message: 'The result of "orders::get" from worker "w" was refused: Frame of 9000 bytes ' +
          "exceeds the 4096-byte limit (max_frame_bytes)",
      }),
      502,
      "frame_too_large",
    ],
    // orders::get answered: with the failure of a call it made to another function, passed on.
    [
      new CallError(new CallError(functionNotFound("orders::lookup")).toBody()),
      500,
      "function_not_found",
    ],
    [
      new CallError(new CallError(invocationStopped("orders::lookup", "gone")).toBody()),
      500,
      "invocation_stopped",
    ],
    // orders::get answered: with an error of its own that reads like the engine's.
    ...[
      ["function_not_found", "Function orders::get not found"],
      ["invocation_timeout", "Invocation of orders::get timed out after 10ms"],
      ["invocation_stopped", "Invocation of orders::get stopped: gone"],
      ["overloaded", 'Cannot call orders::get: worker "w" is not reading'],
      ["frame_too_large", 'The result of "orders::get" from worker "w" was refused: too large'],
      ["shutdown", "Worker is shutting down"],
    ].map(([code, message]): [CallError, number, string] => [
      new CallError({ code: code!, message: message! }),
      500,
      code!,
    ]),
  ];
  for (const [thrown, status, replyCode] of cases) {
    await assert.rejects(
      callFunction(failing(thrown), scope(), HANDLER),
      (error: unknown) => {
        assert.ok(error instanceof HttpError, thrown.message);
        assert.deepEqual([error.status, error.code], [status, replyCode], thrown.message);
        if (status === 500) assert.equal(error.message, thrown.message, "its own message");
        return true;
      },
    );
  }
});

Deno.test("isEngineFailure() holds for the engine's errors only, and is lost when a function passes one on", () => {
  const made = new CallError(functionNotFound("a::b"));
  assert.equal(isEngineFailure(made), true);
  assert.equal(isEngineFailure(functionNotFound("a::b")), true);
  // What a worker's frame carries: the same fields, parsed from JSON.
  const copied = JSON.parse(JSON.stringify(functionNotFound("a::b")));
  assert.deepEqual(copied, functionNotFound("a::b"));
  assert.equal(isEngineFailure(copied), false);
  assert.equal(isEngineFailure(new CallError(copied)), false);
  assert.equal(isEngineFailure({ ...functionNotFound("a::b") }), false);
  assert.equal(isEngineFailure(made.toBody()), false);
  for (const value of [undefined, null, "x", 1, new Error("x")]) {
    assert.equal(isEngineFailure(value), false);
  }
});

Deno.test("callFunction() answers a failure that is no call's error with a 500 that keeps its text for the log", async () => {
  const scope = new RequestScope(performance.now() + 60_000, new AbortController().signal, TRACE);
  // A bug below the call (the engine's own code threw) is not the function's error.
  const bug = new TypeError("Cannot read properties of undefined (reading 'socket')");
  const invoker: Invoker = { hasFunction: () => true, call: () => Promise.reject(bug) };
  await assert.rejects(callFunction(invoker, scope, HANDLER), (error: unknown) => {
    assert.ok(error instanceof HttpError);
    assert.deepEqual([error.status, error.code], [500, "INTERNAL_ERROR"]);
    assert.equal(error.message, 'Function "orders::get" could not be called: internal error');
    assert.equal(error.detail?.function_id, "orders::get");
    assert.equal(
      error.detail?.error,
      "TypeError: Cannot read properties of undefined (reading 'socket')",
    );
    return true;
  });
});
