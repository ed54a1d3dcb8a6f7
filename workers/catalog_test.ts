import assert from "node:assert/strict";
import { parseConfig } from "../engine/config/parse.ts";
import { BUILTIN_WORKERS, builtinConfigParsers } from "./catalog.ts";

Deno.test("a typo in a built-in worker's config block is told with the field it means", () => {
  const cases: [string, string, string][] = [
    ["engine-http", "prot: 3111", 'workers[0].config.prot: Unknown field: did you mean "port"?'],
    [
      "engine-state",
      "adaptr: sqlite",
      'workers[0].config.adaptr: Unknown field: did you mean "adapter"?',
    ],
    [
      "engine-queue",
      "default_queu: {}",
      'workers[0].config.default_queu: Unknown field: did you mean "default_queue"?',
    ],
  ];
  assert.deepEqual(cases.map(([name]) => name).toSorted(), Object.keys(BUILTIN_WORKERS).toSorted());
  for (const [name, line, message] of cases) {
    const result = parseConfig(`workers:\n  - name: ${name}\n    config:\n      ${line}\n`, {
      file: "engine-config.yaml",
      env: () => undefined,
      workerConfigs: builtinConfigParsers(),
    });
    assert.ok(!result.ok, name);
    assert.equal(result.error.message, `engine-config.yaml:4:7: ${message}`);
  }
});
