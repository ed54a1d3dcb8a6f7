/**
 * BENCHMARKS.md is written by several benchmarks. Each one owns a section
 * between `<!-- bench:<name> -->` and `<!-- /bench:<name> -->` and replaces
 * only that; `bench/run.ts` rewrites the head of the file and keeps every
 * marked section it finds.
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

/** Every marked section of `text`, in order. */
export function markedSections(text: string): string[] {
  return [...text.matchAll(BLOCK)].map((m) => m[0].endsWith("\n") ? m[0] : `${m[0]}\n`);
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

/** The marked sections already in `file`, to append after a rewrite of its head. */
export async function keptSections(file: string): Promise<string> {
  const blocks = markedSections(await readOr(file, ""));
  return blocks.length === 0 ? "" : `\n${blocks.join("\n")}`;
}
