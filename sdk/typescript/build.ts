/**
 * Builds the Node.js form of the SDK: one ES module with no dependencies,
 * `dist/engine-sdk.mjs` by default (Node 20 cannot run TypeScript).
 *
 *     deno run -A sdk/typescript/build.ts [out-file]
 *
 * @example
 * ```ts ignore
 * import { bundleForNode } from "./build.ts";
 * await bundleForNode("dist/engine-sdk.mjs");
 * ```
 *
 * @module
 */

/**
 * Bundles `mod.ts` for Node into `outFile` with `deno bundle --platform node`.
 * Throws with deno's output when bundling fails.
 *
 * @example
 * ```ts ignore
 * await bundleForNode("/tmp/engine-sdk.mjs");
 * ```
 */
export async function bundleForNode(outFile: string): Promise<void> {
  const entry = new URL("./mod.ts", import.meta.url).pathname;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--platform", "node", "--format", "esm", "-o", outFile, entry],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    const out = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    throw new Error(`deno bundle failed (exit ${code}):\n${out}`);
  }
}

if (import.meta.main) {
  const out = Deno.args[0] ?? "dist/engine-sdk.mjs";
  await bundleForNode(out);
  console.log(`Wrote ${out}`);
}
