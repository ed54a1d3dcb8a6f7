import assert from "node:assert/strict";
import { dialableHost, isHostHeader, isLoopbackHost, isUnspecifiedHost, urlHost } from "./host.ts";

Deno.test("dialableHost() turns a bound host into one a local client can put in a URL", () => {
  const cases: [string, string][] = [
    ["0.0.0.0", "127.0.0.1"],
    ["::", "[::1]"],
    ["[::]", "[::1]"],
    ["0", "127.0.0.1"],
    ["::0", "[::1]"],
    ["::1", "[::1]"],
    ["[::1]", "[::1]"],
    ["fe80::1", "[fe80::1]"],
    ["127.0.0.1", "127.0.0.1"],
    ["192.168.1.4", "192.168.1.4"],
    ["localhost", "localhost"],
    ["engine.example.com", "engine.example.com"],
  ];
  for (const [host, dialed] of cases) assert.equal(dialableHost(host), dialed, host);
});

Deno.test("isLoopbackHost() and isUnspecifiedHost() accept IPv6 with or without brackets", () => {
  // [host, loopback, unspecified]
  const cases: [string, boolean, boolean][] = [
    ["127.0.0.1", true, false],
    ["127.1.2.3", true, false],
    ["localhost", true, false],
    ["::1", true, false],
    ["[::1]", true, false],
    ["0.0.0.0", false, true],
    ["::", false, true],
    ["[::]", false, true],
    // Other spellings Deno.listen binds to every interface too.
    ["0", false, true],
    ["::0", false, true],
    ["0:0:0:0:0:0:0:0", false, true],
    ["[0::0]", false, true],
    ["0.0.0.1", false, false],
    ["::2", false, false],
    ["192.168.1.4", false, false],
    ["engine.example.com", false, false],
  ];
  for (const [host, loopback, unspecified] of cases) {
    assert.equal(isLoopbackHost(host), loopback, host);
    assert.equal(isUnspecifiedHost(host), unspecified, host);
  }
});

Deno.test("urlHost() brackets an IPv6 address once and leaves other hosts alone", () => {
  const cases: [string, string][] = [
    ["::", "[::]"],
    ["::1", "[::1]"],
    ["[::1]", "[::1]"],
    ["0.0.0.0", "0.0.0.0"],
    ["127.0.0.1", "127.0.0.1"],
    ["localhost", "localhost"],
  ];
  for (const [host, written] of cases) assert.equal(urlHost(host), written, host);
});

Deno.test("isHostHeader() takes a host with an optional port and nothing else", () => {
  const cases: [string, boolean][] = [
    ["", true],
    ["a", true],
    ["engine.example.com:49134", true],
    ["127.0.0.1:0", true],
    ["[::1]:65535", true],
    ["a:", true],
    ["caf%C3%A9", true],
    ["a/health?", false],
    ["a?x", false],
    ["a#", false],
    ["u:p@a", false],
    ["a b", false],
    ["a\\b", false],
    ["a:65536", false],
    ["a:b", false],
    ["a%", false],
    ["[zz", false],
    ["a, b", false],
  ];
  for (const [value, ok] of cases) assert.equal(isHostHeader(value), ok, value);
});
