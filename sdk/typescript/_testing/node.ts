/**
 * Test support: the version of the `node` on PATH (`v20.20.2`), or
 * `undefined` when there is none, for the tests that run the SDK on Node.
 *
 * @module
 */

/** `node --version`, or `undefined` when `node` is not on PATH. */
export function nodeVersion(): string | undefined {
  try {
    const out = new Deno.Command("node", { args: ["--version"], stdout: "piped", stderr: "null" })
      .outputSync();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

/** Kills `child` unless it has exited already, and waits for it. */
export async function killAndWait(child: Deno.ChildProcess | undefined): Promise<void> {
  if (!child) return;
  try {
    child.kill("SIGKILL");
  } catch {
    // already exited
  }
  await child.status;
}
