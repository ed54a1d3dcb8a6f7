import assert from "node:assert/strict";
import { CONSOLE_TOKEN_ENV, ENGINE_TOKEN_ENV } from "../engine/config/auth.ts";
import { TRANSPORT_VARIABLE } from "../engine/transport/select.ts";
import { HELP } from "./usage.ts";

Deno.test("HELP.start names every environment variable the engine reads at start-up", () => {
  for (const variable of [ENGINE_TOKEN_ENV, CONSOLE_TOKEN_ENV, TRANSPORT_VARIABLE]) {
    assert.match(HELP.start!, new RegExp(`^  ${variable} `, "m"), `${variable} is not listed`);
  }
});
