import assert from "node:assert/strict";
import { bearerToken, exposedWithoutToken, sameToken, tokenProblem } from "./token.ts";

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

Deno.test("tokenProblem() refuses a token every client would not send alike", () => {
  const cases: [string, string | undefined][] = [
    ["s3cr3t", undefined],
    ["a: b #c ~!\"'{}", undefined],
    ["pässwort", "Invalid token: character 2 (U+00E4) is not printable ASCII"],
    ["ab€", "Invalid token: character 3 (U+20AC) is not printable ASCII"],
    ["a\tb", "Invalid token: character 2 (U+0009) is not printable ASCII"],
    ["a\x7f", "Invalid token: character 2 (U+007F) is not printable ASCII"],
    [" x", "Invalid token: it starts or ends with a space"],
    ["x ", "Invalid token: it starts or ends with a space"],
  ];
  for (const [token, problem] of cases) {
    const found = tokenProblem(token);
    if (problem === undefined) assert.equal(found, undefined, JSON.stringify(token));
    else assert.ok(found?.startsWith(problem), `${JSON.stringify(token)}: ${found}`);
    assert.ok(!found?.includes(token), "the token is not repeated");
  }
});
