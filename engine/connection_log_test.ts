import assert from "node:assert/strict";
import { isCliConnection, registeredLine } from "./connection_log.ts";

Deno.test("registeredLine() names a worker, its runtime and pid, and is silent for the CLI's connections", () => {
  const cases: [string, Record<string, unknown>, string | undefined][] = [
    [
      "orders",
      { runtime: "node", pid: 42, sdk: "iii-sdk" },
      'Worker "orders" registered (node, pid 42)',
    ],
    ["orders", { runtime: "python" }, 'Worker "orders" registered (python)'],
    ["orders", {}, 'Worker "orders" registered'],
    ["engine-cli", { runtime: "deno", pid: 7, sdk: "engine-cli" }, undefined],
    ["engine-logs", { sdk: "engine-cli" }, undefined],
    // The name alone does not make a connection the CLI's.
    [
      "engine-cli",
      { runtime: "deno", sdk: "engine-typescript" },
      'Worker "engine-cli" registered (deno)',
    ],
  ];
  for (const [name, metadata, line] of cases) {
    assert.equal(registeredLine({ name, metadata }), line, JSON.stringify(metadata));
    assert.equal(isCliConnection({ metadata }), line === undefined);
  }
});
