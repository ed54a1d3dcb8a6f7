/**
 * `engine create --template <name> [--directory <dir>] [--force]`: writes a
 * project from one of the embedded templates (`cli/templates/`) and prints
 * the commands to run next.
 *
 * @module
 */

import { parseCommandArgs } from "./args.ts";
import { isEmptyFolder, writeFiles } from "./create_files.ts";
import { resolveFromCaller } from "./paths.ts";
import { type Template, templateNames, TEMPLATES } from "./templates/mod.ts";
import type { Io } from "./trigger.ts";
import { UsageError } from "./usage.ts";

export interface CreateArgs {
  template: Template;
  /** As given (the template's name when absent). */
  directory: string;
  force: boolean;
}

function listTemplates(): string {
  return templateNames().map((n) => `"${n}"`).join(", ");
}

/** Parses the arguments of `engine create`; throws a {@linkcode UsageError}. */
export function parseCreateArgs(args: string[]): CreateArgs {
  const { values, positionals } = parseCommandArgs("create", {
    args,
    options: {
      template: { type: "string", short: "t" },
      directory: { type: "string", short: "d" },
      force: { type: "boolean", short: "f" },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length > 0) {
    throw new UsageError(
      `Unexpected argument "${positionals[0]}": give the folder with --directory`,
      "create",
    );
  }
  if (values.template === undefined || values.template === "") {
    throw new UsageError(`Missing --template: one of ${listTemplates()}`, "create");
  }
  const template = Object.hasOwn(TEMPLATES, values.template)
    ? TEMPLATES[values.template]
    : undefined;
  if (!template) {
    throw new UsageError(
      `Unknown template "${values.template}": the templates are ${listTemplates()}`,
      "create",
    );
  }
  if (values.directory === "") throw new UsageError("Empty --directory", "create");
  return { template, directory: values.directory ?? template.name, force: values.force ?? false };
}

/** The path as a shell word the user can paste. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./~-]+$/.test(path) ? path : `'${path.replaceAll("'", `'\\''`)}'`;
}

export async function create(args: string[], io: Io): Promise<number> {
  const { template, directory, force } = parseCreateArgs(args);
  const root = resolveFromCaller(directory);
  let info: Deno.FileInfo | undefined;
  try {
    info = await Deno.stat(root);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      io.err(`Error: Cannot use "${root}": ${(error as Error).message}`);
      return 1;
    }
  }
  if (info && !info.isDirectory) {
    io.err(`Error: "${root}" exists and is not a folder: choose a new or empty folder`);
    return 1;
  }
  if (info && !force && !(await isEmptyFolder(root, template.files))) {
    io.err(
      `Error: Folder "${root}" is not empty: choose a new or empty folder, or rerun with ` +
        `--force to write the template into it (files of the same name are overwritten)`,
    );
    return 1;
  }
  try {
    await writeFiles(root, template.files);
  } catch (error) {
    io.err(`Error: Cannot create the project in "${root}": ${(error as Error).message}`);
    return 1;
  }
  io.out(`Created the "${template.name}" project in ${root} (${template.files.length} files)`);
  io.out("");
  io.out("Next steps:");
  // Created in the folder the user is in: no "cd ." to type.
  const cd = root === resolveFromCaller(".") ? [] : [`cd ${shellWord(directory)}`];
  for (const step of [...cd, ...template.nextSteps]) io.out(`  ${step}`);
  io.out("");
  io.out("README.md walks through the rest: state, an HTTP endpoint, the console.");
  return 0;
}
