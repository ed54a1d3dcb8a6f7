import assert from "node:assert/strict";
import { YamlSource } from "./yaml_source.ts";

Deno.test("YamlSource.parseYaml() places a quote never closed where it opens, with its field", () => {
  const cases: [text: string, message: string][] = [
    [
      'port: 0\nauth:\n  token: "abc\nworkers: []\n',
      'f.yaml:3:10: auth.token: Invalid YAML: Missing closing "quote: the quoted value starting here is never closed',
    ],
    [
      "workers:\n  - name: 'x\n",
      "f.yaml:2:11: workers[0].name: Invalid YAML: Missing closing 'quote: the quoted value starting here is never closed",
    ],
    // Other syntax errors stay where the parser finds them.
    [
      "a: [\n",
      "f.yaml:2:1: Invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]",
    ],
  ];
  for (const [text, message] of cases) {
    const parsed = new YamlSource("f.yaml", text).parseYaml();
    assert.ok(!parsed.ok, text);
    assert.equal(parsed.error.message, message);
  }
});
