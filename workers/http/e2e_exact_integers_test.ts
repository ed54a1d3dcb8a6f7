/**
 * Integers beyond 2^53 (64-bit ids, snowflakes) in a JSON request body reach
 * the condition and the handler digit for digit, and those in the handler's
 * response body reach the client the same way, instead of being rounded to
 * the nearest double (9007199254740993 as …992). The worker is a Python SDK
 * process: Python's integers are exact, so what it receives and returns is
 * what went over the wire.
 */
import assert from "node:assert/strict";
import { ROOT } from "../../tests/support/engine_process.ts";
import { spawnWorker } from "../../tests/support/worker_process.ts";
import { startStack } from "./_e2e.ts";

const WORKER = `
from engine_sdk import InitOptions, register_worker

worker = register_worker(options=InitOptions(worker_name="exact-integers"))

def echo(req):
    body = req["body"]
    if not isinstance(body, dict):
        return {"status_code": 200, "body": {"body": body}}
    kinds = {key: type(value).__name__ for key, value in body.items()}
    following = body["id"] + 1 if isinstance(body.get("id"), int) else None
    return {"status_code": 200, "body": {"body": body, "kinds": kinds, "following": following}}

def made(req):
    return {"status_code": 200, "body": {"id": 2**64 + 1, "ids": [2**53 + 1, -(2**63) - 1], "n": 7}}

def condition(req):
    return req["body"]["id"] == 123456789012345678901

worker.register_function("exact::echo", echo)
worker.register_function("exact::condition", condition)
worker.register_function("exact::made", made)
worker.register_trigger({"type": "http", "function_id": "exact::made",
                         "config": {"api_path": "/exact/made", "http_method": "GET"}})
worker.register_trigger({"type": "http", "function_id": "exact::echo",
                         "config": {"api_path": "/exact/echo", "http_method": "POST"}})
worker.register_trigger({"type": "http", "function_id": "exact::echo",
                         "config": {"api_path": "/exact/guarded", "http_method": "POST",
                                    "condition_function_id": "exact::condition"}})
worker.trigger({"function_id": "engine::health::check", "payload": {}})
print("ready", flush=True)
worker.run_forever()
`;

const BODY =
  '{"id":123456789012345678901,"snowflake":9007199254740993,"low":-9223372036854775809,"small":7,"f":1.5}';

Deno.test("engine-http keeps integers beyond 2^53 exact from the request body to the handler and back", async (t) => {
  const stack = await startStack();
  const worker = await spawnWorker("", {
    ENGINE_URL: stack.engine.url,
    PYTHONPATH: `${ROOT}sdk/python`,
    PYTHONDONTWRITEBYTECODE: "1",
  }, { cmd: "python3", args: ["-u", "-c", WORKER] });
  const post = async (path: string, body: string, type = "application/json") => {
    const response = await fetch(stack.base + path, {
      method: "POST",
      body,
      headers: { "content-type": type },
    });
    return { status: response.status, text: await response.text() };
  };
  try {
    await t.step(
      "the handler gets the digits as written, and its own reach the client",
      async () => {
        const r = await post("/exact/echo", BODY);
        assert.equal(r.status, 200, r.text);
        assert.equal(
          r.text,
          `{"body":${BODY},"kinds":{"id":"int","snowflake":"int","low":"int","small":"int","f":"float"},` +
            '"following":123456789012345678902}',
        );
      },
    );

    await t.step("integers the handler makes reach the client as it wrote them", async () => {
      const response = await fetch(stack.base + "/exact/made");
      assert.equal(
        await response.text(),
        '{"id":18446744073709551617,"ids":[9007199254740993,-9223372036854775809],"n":7}',
      );
    });

    await t.step("the condition gets them as written too", async () => {
      const passed = await post("/exact/guarded", '{"id": 123456789012345678901}');
      assert.equal(passed.status, 200, passed.text);
      assert.match(passed.text, /"following":123456789012345678902/);
      const refused = await post("/exact/guarded", '{"id": 123456789012345678900}');
      assert.equal(refused.status, 422, refused.text);
    });

    await t.step(
      "a +json type counts as JSON; form and text bodies keep their digits as text",
      async () => {
        const cases: [string, string, string][] = [
          ["application/vnd.api+json", "[9007199254740993]", '{"body":[9007199254740993]}'],
          [
            "application/x-www-form-urlencoded",
            "id=123456789012345678901",
            '{"body":{"id":"123456789012345678901"},"kinds":{"id":"str"},"following":null}',
          ],
          ["text/plain", "9007199254740993", '{"body":"9007199254740993"}'],
        ];
        for (const [type, body, expected] of cases) {
          const r = await post("/exact/echo", body, type);
          assert.equal(r.status, 200, r.text);
          assert.equal(r.text, expected, type);
        }
      },
    );
  } finally {
    await worker.stop("SIGKILL");
    await stack.stop();
  }
});
