/**
 * The project templates of `engine create`, embedded in the program: every
 * file is a text import, so the compiled binary and the bundle carry them.
 *
 * @module
 */

import { quickstart } from "./quickstart/mod.ts";

/** One file of a template: a relative `/`-separated path and its text. */
export interface TemplateFile {
  path: string;
  content: string;
}

export interface Template {
  name: string;
  /** One line, shown by `engine create --help`. */
  description: string;
  files: readonly TemplateFile[];
  /** Commands to run inside the new project, printed after it is created. */
  nextSteps: readonly string[];
}

/** The templates by name. */
export const TEMPLATES: Readonly<Record<string, Template>> = {
  [quickstart.name]: quickstart,
};

/** The template names, sorted. */
export function templateNames(): string[] {
  return Object.keys(TEMPLATES).sort();
}
