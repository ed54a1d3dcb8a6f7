import assert from "node:assert/strict";
import { bearerToken, exposedWithoutToken, sameToken } from "./token.ts";

Deno.test("exposedWithoutToken() requires a non-empty token beyond loopback", () => {
  const cases: [string, string | undefined, boolean][] = [
    ["127.0.0.1", undefined, false],
    ["localhost", undefined, false],
    ["::1", undefined, false],
    ["[::1]", "", false],
    ["0.0.0.0", undefined, true],
    ["0.0.0.0", "", true],
    ["0.0.0.0", "t", false],
    ["::", undefined, true],
    ["192.168.1.4", undefined, true],
    ["192.168.1.4", "t", false],
  ];
  for (const [host, token, exposed] of cases) {
    assert.equal(exposedWithoutToken(host, token), exposed, `${host} ${token}`);
  }
});

Deno.test("sameToken() compares whole tokens", () => {
  assert.ok(sameToken("abc", "abc"));
  assert.ok(sameToken("é", "é"));
  for (const other of ["abd", "ab", "abcd", "", "ABC", "abc\0"]) {
    assert.ok(!sameToken(other, "abc"), JSON.stringify(other));
  }
});

Deno.test("bearerToken() reads the token of a Bearer header, and nothing else", () => {
  const cases: [string | null | undefined, string][] = [
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
    ["BEARER  abc ", "abc"],
    ["Bearer\tabc", "abc"],
    ["Bearer ", ""],
    ["Bearer", ""],
    ["Basic abc", ""],
    ["Bearerabc", ""],
    ["abc", ""],
    ["", ""],
    [null, ""],
    [undefined, ""],
  ];
  for (const [header, token] of cases) assert.equal(bearerToken(header), token, String(header));
});
