import assert from "node:assert/strict";
import { closest, editDistance } from "./suggest.ts";

Deno.test("editDistance() counts inserts, deletes, replacements and swaps of two", () => {
  const cases: [string, string, number][] = [
    ["json", "json", 0],
    ["jsn", "json", 1],
    ["trgger", "trigger", 1],
    ["tirgger", "trigger", 1],
    ["wokrer", "worker", 1],
    ["", "abc", 3],
    ["kitten", "sitting", 3],
  ];
  for (const [a, b, distance] of cases) assert.equal(editDistance(a, b), distance, `${a} → ${b}`);
});

Deno.test("closest() names the candidate a typo is of, and nothing for a word far from all", () => {
  const cases: [string, string[], string | undefined][] = [
    ["--jsn", ["--config", "--json", "--force"], "--json"],
    ["--follw", ["--follow", "--worker"], "--follow"],
    ["trgger", ["create", "trigger", "worker"], "trigger"],
    ["ad", ["add", "remove", "list"], "add"],
    ["orders::ecHo", ["orders::echo", "orders::get"], "orders::echo"],
    ["math::ad", ["math::add", "math::add_two_numbers"], "math::add"],
    ["frobnicate", ["create", "trigger", "worker"], undefined],
    ["x", ["add", "ls"], undefined],
    ["--bogus", ["--config", "--json"], undefined],
  ];
  for (const [typed, candidates, expected] of cases) {
    assert.equal(closest(typed, candidates), expected, typed);
  }
});
