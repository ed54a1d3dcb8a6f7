import assert from "node:assert/strict";
import { telemetryView } from "./worker_telemetry.ts";

Deno.test("telemetryView() shows language, project and framework, never the API key", () => {
  const cases: [unknown, unknown][] = [
    [
      { language: "en-US", project_name: "p", framework: "iii-node", amplitude_api_key: "k" },
      { language: "en-US", project_name: "p", framework: "iii-node" },
    ],
    [{ framework: "iii-node", language: 7 }, { framework: "iii-node" }],
    [{ amplitude_api_key: "k" }, null],
    [undefined, null],
    [null, null],
    ["en-US", null],
    [["en-US"], null],
  ];
  for (const [telemetry, expected] of cases) {
    assert.deepEqual(telemetryView(telemetry), expected, JSON.stringify(telemetry));
  }
});
