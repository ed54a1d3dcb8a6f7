import assert from "node:assert/strict";
import { REFRESH_COMMAND, renderGenerated, staleFiles } from "./generate.ts";
import { PYTHON_SDK } from "./quickstart/sdk_py.gen.ts";

Deno.test("the embedded SDK files (TypeScript bundle, Python file list) are current", async () => {
  const stale = await staleFiles(await renderGenerated());
  assert.deepEqual(
    stale,
    [],
    `Stale generated files: ${stale.join(", ")}. The SDK changed: refresh them with\n` +
      `  ${REFRESH_COMMAND}\nand commit the result.`,
  );
});

Deno.test("the quickstart embeds the whole Python SDK, with no compiled files", () => {
  const names = Object.keys(PYTHON_SDK);
  assert.ok(names.includes("__init__.py"));
  assert.ok(names.includes("worker.py"));
  assert.ok(names.every((n) => n.endsWith(".py") && !n.includes("/")), names.join(", "));
  assert.match(PYTHON_SDK["__init__.py"]!, /def register_worker|register_worker/);
});
