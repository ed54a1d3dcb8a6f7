/**
 * Edits of the `workers` list for `engine worker add` and `worker remove`.
 * The file is parsed with `yaml` only to find where things are; the edit
 * itself splices text, so comments, blank lines, quoting and the order of
 * everything else stay byte for byte. Only the new entry is rendered.
 *
 * | File has                   | `addWorkerEntry` does                        |
 * |----------------------------|----------------------------------------------|
 * | no `workers` key, or nothing | appends a `workers:` block at the end       |
 * | `workers:` / `workers: []` | turns it into a block list holding the entry |
 * | a block list               | appends the entry after the last one, at the list's indentation |
 * | a flow list `[a, b]`       | rewrites that list as a block list           |
 *
 * @module
 */

import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  type Node,
  parseDocument,
  stringify,
  type YAMLSeq,
} from "yaml";
import { isValidWorkerName } from "./schema.ts";

/** A worker entry as written in the file. */
export interface WorkerEntryInput {
  name: string;
  path?: string;
  config?: unknown;
}

/** An entry found in the file. */
export interface FoundWorkerEntry {
  /** Its index in `workers`. */
  index: number;
  /** The 1-based line of its `-`. */
  line: number;
  /** The entry as written, unvalidated. */
  entry: unknown;
}

export type AddWorkerResult =
  | { ok: true; text: string; replaced: boolean }
  | ({ ok: false; reason: "exists" } & FoundWorkerEntry)
  | { ok: false; reason: "invalid"; message: string };

export type RemoveWorkerResult =
  | { ok: true; text: string }
  | { ok: false; reason: "missing"; message: string }
  | { ok: false; reason: "invalid"; message: string };

/** Finds the entry named `name`; `undefined` when absent or the text is not a valid config. */
export function findWorkerEntry(text: string, name: string): FoundWorkerEntry | undefined {
  const found = openWorkers(text);
  if ("message" in found || found.seq === undefined) return undefined;
  const index = found.seq.items.findIndex((item) => nameOf(item) === name);
  if (index === -1) return undefined;
  const item = found.seq.items[index] as Node;
  const line = text.slice(0, itemSpan(text, item)[0]).split("\n").length;
  return { index, line, entry: item.toJSON() };
}

/**
 * Adds `entry` at the end of `workers`. An entry of the same name is left
 * alone (`reason: "exists"`) unless `force`, which replaces it in place;
 * `file` names the file in messages.
 *
 * @example
 * ```ts
 * import { addWorkerEntry } from "./edit.ts";
 * const result = addWorkerEntry("# mine\nworkers: []\n", { name: "math", path: "./math" });
 * if (result.ok) console.log(result.text); // "# mine\nworkers:\n  - name: math\n    path: ./math\n"
 * ```
 */
export function addWorkerEntry(
  text: string,
  entry: WorkerEntryInput,
  options: { force?: boolean; file?: string } = {},
): AddWorkerResult {
  if (!isValidWorkerName(entry.name)) {
    return { ok: false, reason: "invalid", message: `Invalid worker name "${entry.name}"` };
  }
  const found = openWorkers(text, options.file);
  if ("message" in found) return { ok: false, reason: "invalid", message: found.message };
  const existing = findWorkerEntry(text, entry.name);
  if (existing && !options.force) return { ok: false, reason: "exists", ...existing };
  const plain = plainEntry(entry);
  const eol = lineEnding(text);
  const edits: Edit[] = [];
  const { seq, keyColumn } = found;
  if (seq === undefined || seq.flow) {
    // No list, `workers:`, or a flow list: write the whole list as a block.
    const items = (seq?.items ?? []).map((item) =>
      nameOf(item) === entry.name ? plain : toJS(item)
    );
    if (!existing) items.push(plain);
    const rendered = renderBlock(items, keyColumn + 2, eol);
    if (found.value === undefined) {
      edits.push({ from: text.length, to: text.length, insert: `workers:${eol}${rendered}` });
    } else {
      const [start, end] = found.value;
      edits.push({ from: trimBack(text, start), to: end, insert: "" });
      edits.push({ from: lineEndOf(text, end), to: lineEndOf(text, end), insert: rendered });
    }
  } else {
    const indent = seq.range![0] - lineStartOf(text, seq.range![0]);
    const rendered = renderBlock([plain], indent, eol);
    const matches = seq.items.filter((item) => nameOf(item) === entry.name) as Node[];
    if (matches.length === 0) {
      const end = ownEnd(text, spanEnd(text, seq.range![1]), indent);
      edits.push({ from: end, to: end, insert: rendered });
    }
    matches.forEach((item, i) => {
      const [from, to] = itemSpan(text, item);
      edits.push({ from, to, insert: i === 0 ? rendered : "" });
    });
  }
  return { ok: true, text: applyEdits(text, edits, eol), replaced: existing !== undefined };
}

/**
 * Removes the entry named `name` (every one of them, if a hand edit doubled
 * it). `options.file` names the file in messages.
 */
export function removeWorkerEntry(
  text: string,
  name: string,
  options: { file?: string } = {},
): RemoveWorkerResult {
  const found = openWorkers(text, options.file);
  if ("message" in found) return { ok: false, reason: "invalid", message: found.message };
  const { seq } = found;
  const matches = (seq?.items ?? []).filter((item) => nameOf(item) === name) as Node[];
  if (seq === undefined || matches.length === 0) {
    return { ok: false, reason: "missing", message: `No worker "${name}" in the config file` };
  }
  const edits: Edit[] = [];
  const rest = seq.items.filter((item) => nameOf(item) !== name);
  if (seq.flow) {
    const [start, end] = found.value!;
    const flow = rest.length === 0 ? "[]" : stringify(rest.map(toJS), FLOW).trimEnd();
    edits.push({ from: start, to: end, insert: flow, inline: true });
  } else {
    for (const item of matches) {
      const [from, to] = itemSpan(text, item);
      edits.push({ from, to, insert: "" });
    }
    // An empty block list would leave `workers:` (null), which is refused.
    if (rest.length === 0) {
      edits.push({ from: found.colon + 1, to: found.colon + 1, insert: " []", inline: true });
    }
  }
  return { ok: true, text: applyEdits(text, edits, lineEnding(text)) };
}

const FLOW = { collectionStyle: "flow", lineWidth: 0 } as const;

interface Edit {
  from: number;
  to: number;
  insert: string;
  /** Inserted into a line, rather than as lines of its own. */
  inline?: boolean;
}

interface WorkersList {
  /** The list, when `workers` holds one. */
  seq: YAMLSeq | undefined;
  /** Start and end of the value of `workers`, when the key is present. */
  value: [number, number] | undefined;
  /** Offset of the colon after `workers`. */
  colon: number;
  /** Column of the top-level keys. */
  keyColumn: number;
}

/** The `workers` list of `text`, or why it cannot be edited (naming `file` when given). */
function openWorkers(text: string, file?: string): WorkersList | { message: string } {
  const cannot = `Cannot edit ${file === undefined ? "the config file" : `"${file}"`}`;
  const doc: Document = parseDocument(text, { prettyErrors: false });
  const error = doc.errors[0];
  if (error) {
    const line = text.slice(0, error.pos[0]).split("\n").length;
    return {
      message: `${cannot}: invalid YAML at line ${line}: ${error.message.split("\n")[0]}`,
    };
  }
  const root = doc.contents;
  if (root === null) return { seq: undefined, value: undefined, colon: -1, keyColumn: 0 };
  if (!isMap(root) || root.flow) {
    return {
      message: `${cannot}: its top level is not a block of \`key: value\` lines`,
    };
  }
  const pair = root.items.find((item) => isScalar(item.key) && item.key.value === "workers");
  const keyColumn = root.range![0] - lineStartOf(text, root.range![0]);
  if (!pair) return { seq: undefined, value: undefined, colon: -1, keyColumn };
  const key = pair.key as Node;
  const colon = text.indexOf(":", key.range![1]);
  const value = pair.value as Node | null;
  const range: [number, number] = value?.range
    ? [value.range[0], value.range[1]]
    : [colon + 1, colon + 1];
  if (isSeq(value)) return { seq: value, value: range, colon, keyColumn };
  if (value === null || (isScalar(value) && value.value === null)) {
    return { seq: undefined, value: range, colon, keyColumn };
  }
  return { message: `${cannot}: "workers" is not a list` };
}

function nameOf(item: unknown): string | undefined {
  if (!isMap(item)) return undefined;
  const name = item.get("name");
  return typeof name === "string" ? name : undefined;
}

function toJS(item: unknown): unknown {
  return isMap(item) || isSeq(item) || isScalar(item) ? item.toJSON() : item;
}

function plainEntry(entry: WorkerEntryInput): WorkerEntryInput {
  const plain: WorkerEntryInput = { name: entry.name };
  if (entry.path !== undefined) plain.path = entry.path;
  if (entry.config !== undefined) plain.config = entry.config;
  return plain;
}

/** The file's line ending: CRLF when its first line ends so, else LF. */
function lineEnding(text: string): string {
  const newline = text.indexOf("\n");
  return newline > 0 && text[newline - 1] === "\r" ? "\r\n" : "\n";
}

/** Renders list items as a block list at `indent` spaces, each line ending in `eol`. */
function renderBlock(items: unknown[], indent: number, eol: string): string {
  const pad = " ".repeat(indent);
  const block = stringify(items, { indent: 2, lineWidth: 0 });
  return block.split("\n").map((line) => line === "" ? line : pad + line).join(eol);
}

/** Whole lines from the item's `-` to the end of its last line. */
function itemSpan(text: string, item: Node): [number, number] {
  const [start, end] = item.range!;
  let from = lineStartOf(text, start);
  if (!text.slice(from, start).includes("-") && from > 0) from = lineStartOf(text, from - 1);
  return [from, ownEnd(text, spanEnd(text, end), indentOf(text, from))];
}

/**
 * Back from `end` (a line start) over the blank lines and the comments
 * indented less than `indent` that end a list's span: after an indented
 * comment the parser lets a node run on over them, but they introduce what
 * follows the list (a column-0 comment above the next key).
 */
function ownEnd(text: string, end: number, indent: number): number {
  while (end > 0) {
    const start = lineStartOf(text, end - 1);
    const line = text.slice(start, end);
    const column = line.search(/\S/);
    if (column !== -1 && !(line[column] === "#" && column < indent)) break;
    end = start;
  }
  return end;
}

/** Spaces at the start of the line that starts at `from`. */
function indentOf(text: string, from: number): number {
  let i = from;
  while (text[i] === " ") i++;
  return i - from;
}

/**
 * The line start at or after `end`. A node can end in the indentation of
 * the next line (before the next entry's `-`, after a comment): that line is
 * not its own.
 */
function spanEnd(text: string, end: number): number {
  const start = lineStartOf(text, end);
  return /^[ \t]*$/.test(text.slice(start, end)) ? start : lineEndOf(text, end);
}

function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

function lineEndOf(text: string, offset: number): number {
  const newline = text.indexOf("\n", offset);
  return newline === -1 ? text.length : newline + 1;
}

/** Back over the spaces before `offset` on its line. */
function trimBack(text: string, offset: number): number {
  while (offset > 0 && (text[offset - 1] === " " || text[offset - 1] === "\t")) offset--;
  return offset;
}

/** Applies non-overlapping edits, last first; an insertion after a line without `eol` gets one. */
function applyEdits(text: string, edits: Edit[], eol: string): string {
  let out = text;
  for (
    const { from, to, insert, inline } of [...edits].sort((a, b) => b.from - a.from || b.to - a.to)
  ) {
    const needsNewline = !inline && insert !== "" && from === to && from > 0 &&
      out[from - 1] !== "\n";
    out = out.slice(0, from) + (needsNewline ? eol : "") + insert + out.slice(to);
  }
  return out;
}
