/**
 * BENCHMARKS.md is written by several benchmarks. Each one owns a section
 * between `<!-- bench:<name> -->` and `<!-- /bench:<name> -->` and replaces
 * only that. `bench/run.ts` owns the head of the file and the sections of
 * the benchmarks it runs (`core`, `state`, `http`, `queue`): a run with
 * `--only` replaces the sections it ran and keeps every other one.
 *
 * @module
 */

const BLOCK = /<!-- bench:([\w-]+) -->\n[\s\S]*?<!-- \/bench:\1 -->\n?/g;

function wrap(name: string, markdown: string): string {
  return `<!-- bench:${name} -->\n${markdown.trimEnd()}\n<!-- /bench:${name} -->\n`;
}

async function readOr(file: string, fallback: string): Promise<string> {
  try {
    return await Deno.readTextFile(file);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return fallback;
    throw e;
  }
}

/** Replaces the section `name` in `text`, or appends it. */
export function replaceSection(text: string, name: string, markdown: string): string {
  const block = wrap(name, markdown);
  let found = false;
  const next = text.replace(BLOCK, (whole, n: string) => {
    if (n !== name) return whole;
    found = true;
    return block;
  });
  if (found) return next;
  return `${text.trimEnd()}\n\n${block}`;
}

/** Writes the section `name` of `file` (creating the file with a title when missing). */
export async function writeSection(file: string, name: string, markdown: string): Promise<void> {
  const text = await readOr(file, "# Benchmarks\n");
  await Deno.writeTextFile(file, replaceSection(text, name, markdown));
  await formatMarkdown(file);
}

/** Formats `file` with `deno fmt`, so `deno task ok` stays green after a benchmark run. */
export async function formatMarkdown(file: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--quiet", file],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`deno fmt ${file} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/**
 * Rewrites `file` as `head`, then the sections named in `own` in that order
 * (the new markdown where one is given, else the section as the file had it),
 * then every other marked section of the file as it was.
 */
export async function writeHeadAndSections(
  file: string,
  head: string,
  own: [name: string, markdown: string | undefined][],
): Promise<void> {
  const kept = new Map(
    [...(await readOr(file, "")).matchAll(BLOCK)].map((m) => [m[1]!, m[0].trimEnd() + "\n"]),
  );
  const blocks: string[] = [];
  for (const [name, markdown] of own) {
    const block = markdown === undefined ? kept.get(name) : wrap(name, markdown);
    if (block !== undefined) blocks.push(block);
    kept.delete(name);
  }
  blocks.push(...kept.values());
  await Deno.writeTextFile(file, `${head.trimEnd()}\n\n${blocks.join("\n")}`);
  await formatMarkdown(file);
}
