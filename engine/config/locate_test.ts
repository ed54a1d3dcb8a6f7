import assert from "node:assert/strict";
import { placeOf } from "./locate.ts";

const FILE = "engine-config.yaml";

Deno.test("placeOf() names the line and column of a field, or only the file when it is not set", () => {
  const cases: [string, (string | number)[], string][] = [
    ["host: 127.0.0.1\nport: 4000\n", ["port"], `${FILE}:2:7: port`],
    ["port: ${ENGINE_PORT:49134}\n", ["port"], `${FILE}:1:7: port`],
    ["{ host: a, port: ${P} }\n", ["port"], `${FILE}:1:18: port`],
    ["console:\n  port: 1\n", ["console", "port"], `${FILE}:2:9: console.port`],
    ["workers: []\n", ["port"], `${FILE}: port`],
    ["", ["port"], `${FILE}: port`],
  ];
  for (const [text, path, place] of cases) assert.equal(placeOf(FILE, text, path), place, text);
});
