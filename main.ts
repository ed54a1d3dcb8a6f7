/**
 * The `engine` program: parses arguments and hands over to `cli/`.
 *
 * @module
 */
import { main } from "./cli/main.ts";

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
