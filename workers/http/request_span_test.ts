import assert from "node:assert/strict";
import { Code, HttpError } from "./errors.ts";
import { requestSpan } from "./request_span.ts";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const facts = {
  method: "POST",
  route: "/orders/:id",
  path: "/orders/7",
  trace: {
    traceparent: `00-${TRACE}-b7ad6b7169203331-01`,
    traceId: TRACE,
    spanId: "b7ad6b7169203331",
  },
  start: Date.now(),
};

Deno.test("requestSpan() is the request's root span, named by method and route", () => {
  const span = requestSpan(facts, { response: new Response("ok", { status: 201 }) });
  assert.equal(span?.traceId, TRACE);
  assert.equal(span?.spanId, "b7ad6b7169203331", "the span the calls carry as their parent");
  assert.equal(span?.parentSpanId, undefined);
  assert.equal(span?.kind, "http");
  assert.equal(span?.name, "POST /orders/:id");
  assert.equal(span?.status, "ok");
  assert.deepEqual(span?.attributes, {
    "http.request.method": "POST",
    "http.route": "/orders/:id",
    "url.path": "/orders/7",
    "http.response.status_code": 201,
  });
});

Deno.test("requestSpan() continues an inbound trace under the caller's span", () => {
  const span = requestSpan(
    { ...facts, trace: { ...facts.trace, parentSpanId: "00f067aa0ba902b7" } },
    { response: new Response(null, { status: 204 }) },
  );
  assert.equal(span?.parentSpanId, "00f067aa0ba902b7");
});

Deno.test("requestSpan() fails only on 5xx, with the error's code and message", () => {
  const cases: [unknown, number, "ok" | "error", string | undefined][] = [
    [new HttpError(401, "unauthorized", "No key"), 401, "ok", undefined],
    [
      new HttpError(504, Code.RequestTimeout, "Request timed out"),
      504,
      "error",
      Code.RequestTimeout,
    ],
    [new Error("boom"), 500, "error", "internal_error"],
  ];
  for (const [error, status, outcome, code] of cases) {
    const span = requestSpan(facts, { error });
    assert.equal(span?.attributes?.["http.response.status_code"], status);
    assert.equal(span?.status, outcome);
    assert.equal(span?.error?.code, code);
  }
});
