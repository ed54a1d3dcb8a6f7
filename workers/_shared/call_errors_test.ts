import assert from "node:assert/strict";
import { CallError } from "../../engine/api.ts";
import { recordingLog } from "../../tests/support/recording_log.ts";
import { invalidInput, storeGuard } from "./call_errors.ts";
import { markLoggedOutage } from "./store_outage.ts";

Deno.test("invalidInput() names the function, with INVALID_ARGUMENT unless told a code", () => {
  const plain = invalidInput("state::set", '"scope" must be a non-empty string: it is missing');
  assert.ok(plain instanceof CallError);
  assert.deepEqual(plain.toBody(), {
    code: "INVALID_ARGUMENT",
    message: 'Invalid input for state::set: "scope" must be a non-empty string: it is missing',
  });
  assert.deepEqual(invalidInput("state::update", "ops[0]: unknown op", "INVALID_OP").toBody(), {
    code: "INVALID_OP",
    message: "Invalid input for state::update: ops[0]: unknown op",
  });
});

Deno.test("storeGuard() hands back what the call returns, awaited or not", async () => {
  const { log, errors } = recordingLog();
  const guard = storeGuard(log);
  assert.equal(await guard("GET_ERROR", "read", () => 7), 7);
  assert.equal(await guard("GET_ERROR", "read", () => Promise.resolve("later")), "later");
  assert.deepEqual(errors, []);
});

const failures: [string, () => unknown, string][] = [
  ["a thrown Error", () => {
    throw new Error("disk full");
  }, "disk full"],
  ["a rejected promise", () => Promise.reject(new Error("Redis gone")), "Redis gone"],
  ["a thrown non-Error", () => {
    throw "socket closed";
  }, "socket closed"],
];

for (const [what, call, detail] of failures) {
  Deno.test(`storeGuard() turns ${what} into a logged CallError with the given code`, async () => {
    const { log, errors } = recordingLog();
    const guard = storeGuard(log);
    const message = `Cannot write scope "s" key "k": ${detail}`;
    await assert.rejects(guard("SET_ERROR", 'write scope "s" key "k"', call), (error) => {
      assert.ok(error instanceof CallError);
      assert.deepEqual(error.toBody(), { code: "SET_ERROR", message });
      return true;
    });
    assert.deepEqual(errors, [[message, { code: "SET_ERROR" }]]);
  });
}

Deno.test("storeGuard() lets a CallError through as it is, without logging it", async () => {
  const { log, errors } = recordingLog();
  const refused = new CallError({ code: "VALUE_TOO_LARGE", message: "Value is too large" });
  await assert.rejects(
    storeGuard(log)("SET_ERROR", "write", () => Promise.reject(refused)),
    (error) => error === refused,
  );
  assert.deepEqual(errors, []);
});

Deno.test("storeGuard() names the SQLite database a failure happened in, unless the detail does", async () => {
  const { log } = recordingLog();
  const guard = storeGuard(log, { path: "/data/state.db" });
  const cases: [string, string][] = [
    ["database or disk is full", 'database or disk is full (SQLite database "/data/state.db")'],
    ['cannot open "/data/state.db"', 'cannot open "/data/state.db"'],
  ];
  for (const [detail, expected] of cases) {
    await assert.rejects(
      guard("SET_ERROR", "write", () => Promise.reject(new Error(detail))),
      { message: `Cannot write: ${expected}` },
    );
  }
  // A store without a file (memory, Redis) adds nothing.
  await assert.rejects(
    storeGuard(log, { url: "redis://127.0.0.1:6379" })("SET_ERROR", "write", () => {
      throw new Error("Redis at redis://127.0.0.1:6379 is unreachable");
    }),
    { message: "Cannot write: Redis at redis://127.0.0.1:6379 is unreachable" },
  );
});

Deno.test("storeGuard() counts a failure of an outage already logged instead of logging it again", async () => {
  const { log, errors } = recordingLog();
  let counted = 0;
  const outage = { countFailedCall: () => void counted++ };
  const gone = markLoggedOutage(
    new Error("Redis at redis://h:6379 is unreachable: ECONNREFUSED"),
    outage,
  );
  for (let i = 0; i < 3; i++) {
    await assert.rejects(
      storeGuard(log)("GET_ERROR", 'read scope "s" key "k"', () => Promise.reject(gone)),
      {
        message:
          'Cannot read scope "s" key "k": Redis at redis://h:6379 is unreachable: ECONNREFUSED',
      },
    );
  }
  assert.deepEqual(errors, []);
  assert.equal(counted, 3);
});
