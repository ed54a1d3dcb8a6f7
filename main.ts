/**
 * The `engine` program: parses arguments and hands over to `cli/`.
 *
 * @module
 */
import { main } from "./cli/main.ts";
import { flushStandardOutput } from "./cli/output.ts";

if (import.meta.main) {
  let code: number;
  try {
    code = await main(Deno.args);
  } finally {
    // Lines still held for a slow reader (cli/output.ts), also before an uncaught error's report.
    await flushStandardOutput();
  }
  Deno.exit(code);
}
