import assert from "node:assert/strict";
import { callFunction, type CallRequest, type Invoker, requestAborted } from "./calls.ts";
import { CallError } from "../../engine/api.ts";
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

Deno.test("callFunction() blames the engine's failure of the call on the call, and a failure passed on from a nested call on the function", async () => {
  const scope = () =>
    new RequestScope(performance.now() + 60_000, new AbortController().signal, TRACE);
  const failing = (code: string, message: string): Invoker => ({
    hasFunction: () => true,
    call: () => Promise.reject(new CallError({ code, message })),
  });
  const cases: [string, string, number, string][] = [
    // The engine's own failures of the call to orders::get.
    ["function_not_found", "Function orders::get not found", 503, "FUNCTION_UNAVAILABLE"],
    [
      "function_not_found",
      'Function orders::get not found on worker "w"',
      503,
      "FUNCTION_UNAVAILABLE",
    ],
    [
      "invocation_timeout",
      "Invocation of orders::get timed out after 10ms",
      504,
      "REQUEST_TIMEOUT",
    ],
    ["invocation_stopped", "Invocation of orders::get stopped: gone", 502, "invocation_stopped"],
    ["overloaded", 'Cannot call orders::get: worker "w" is not reading', 503, "overloaded"],
    // orders::get answered: with the failure of a call it made to another function.
    ["function_not_found", "Function orders::lookup not found", 500, "function_not_found"],
    [
      "invocation_timeout",
      "Invocation of orders::lookup timed out after 10ms",
      500,
      "invocation_timeout",
    ],
    ["invocation_stopped", "Invocation of orders::lookup stopped: gone", 500, "invocation_stopped"],
    ["overloaded", 'Cannot call orders::lookup: worker "w" is not reading', 500, "overloaded"],
    // A prefix of another id is another id.
    ["function_not_found", "Function orders::get_all not found", 500, "function_not_found"],
  ];
  for (const [code, message, status, replyCode] of cases) {
    await assert.rejects(
      callFunction(failing(code, message), scope(), HANDLER),
      (error: unknown) => {
        assert.ok(error instanceof HttpError, message);
        assert.deepEqual([error.status, error.code], [status, replyCode], message);
        return true;
      },
    );
  }
});
