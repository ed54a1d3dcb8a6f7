import assert from "node:assert/strict";
import { configSummary, SUMMARY_MAX } from "./trigger_summary.ts";

Deno.test("configSummary() says what a trigger's config holds, briefly", () => {
  const cases: [string, unknown, string][] = [
    ["http", { api_path: "/orders/:id", http_method: "POST" }, "POST /orders/:id"],
    ["http", { api_path: "orders", http_method: "delete" }, "DELETE /orders"],
    ["http", { api_path: "/x" }, "GET /x"],
    ["http", { http_method: "GET" }, "http_method=GET"], // not an http config: as any other
    ["state", { scope: "s", key: "k", condition_function_id: "a::b" }, 'scope "s", key "k"'],
    ["state", { key: "k" }, 'key "k"'],
    ["state", undefined, "no config"],
    ["state", {}, "every change"],
    ["log", { level: "warn" }, "level warn"],
    ["log", {}, "level all"],
    ["engine::functions-available", { include_internal: true }, "all functions, internal ones too"],
    ["engine::workers-available", {}, "every worker"],
    ["cron", { expression: "0 * * * * *" }, "expression=0 * * * * *"],
    ["custom", { a: 1, b: [1, 2], c: { d: null }, e: undefined }, 'a=1, b=[1,2], c={"d":null}'],
    ["custom", null, "no config"],
    ["custom", {}, "no config"],
    ["custom", [1, "two"], '[1,"two"]'],
    ["custom", "every\nminute", "every minute"],
  ];
  for (const [type, config, summary] of cases) {
    assert.equal(configSummary(type, config), summary, `${type} ${JSON.stringify(config)}`);
  }
});

Deno.test("configSummary() cuts a long summary at SUMMARY_MAX characters, whole characters", () => {
  const long = configSummary("custom", { note: "😀".repeat(200) });
  assert.equal([...long].length, SUMMARY_MAX);
  assert.ok(long.endsWith("😀…"));
  assert.equal(configSummary("http", { api_path: `/${"a".repeat(100)}` }).length, SUMMARY_MAX);
});
