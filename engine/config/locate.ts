/**
 * From field paths to places in the file and back, over a parsed YAML
 * document's node ranges.
 *
 * @module
 */

import {
  type Document,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
} from "yaml";

/** A field path as zod reports it: map keys and list indexes. */
export type FieldPath = readonly PropertyKey[];

/** `["workers", 1, "config", "port"]` → `workers[1].config.port`. */
export function formatPath(path: FieldPath): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(String(part))) {
      out += `${out === "" ? "" : "."}${String(part)}`;
    } else out += `[${JSON.stringify(String(part))}]`;
  }
  return out;
}

/**
 * The offset of the node at `path`. A missing field points at its nearest
 * present parent (the map it should be in); `key: true` points at the key
 * of the last step instead of its value (for an unknown field).
 */
export function offsetOf(doc: Document, path: FieldPath, options: { key?: boolean } = {}): number {
  if (options.key && path.length > 0) {
    const parent = nodeAt(doc, path.slice(0, -1));
    const last = path[path.length - 1];
    if (isMap(parent)) {
      const pair = parent.items.find((item) =>
        isScalar(item.key) && String(item.key.value) === last
      );
      if (isNode(pair?.key) && pair.key.range) return pair.key.range[0];
    }
  }
  for (let n = path.length; n >= 0; n--) {
    const node = nodeAt(doc, path.slice(0, n));
    if (isNode(node) && node.range) return node.range[0];
  }
  return 0;
}

function nodeAt(doc: Document, path: FieldPath): unknown {
  if (path.length === 0) return doc.contents;
  try {
    return doc.getIn(path as unknown[], true);
  } catch {
    return undefined; // a step through a scalar
  }
}

/** The field path of the innermost node whose text holds `offset`. */
export function pathAtOffset(doc: Document, offset: number): (string | number)[] {
  const path: (string | number)[] = [];
  let node: unknown = doc.contents;
  for (;;) {
    const inside = (child: unknown) =>
      isNode(child) && child.range !== undefined && child.range !== null &&
      child.range[0] <= offset && offset < Math.max(child.range[1], child.range[0] + 1);
    if (isMap(node)) {
      const pair = node.items.find((item) =>
        isPair(item) && (inside(item.key) || inside(item.value))
      );
      if (!pair || !isScalar(pair.key)) return path;
      path.push(String(pair.key.value));
      if (!inside(pair.value)) return path;
      node = pair.value;
    } else if (isSeq(node)) {
      const index = node.items.findIndex(inside);
      if (index === -1) return path;
      path.push(index);
      node = node.items[index];
    } else {
      return path;
    }
  }
}

/** Line and column (from 1) of each offset in `text`. */
export function lineCounterFor(text: string): LineCounter {
  const lines = new LineCounter();
  lines.addNewLine(0);
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lines.addNewLine(i + 1);
  return lines;
}

/**
 * `<file>:<line>:<col>: <field>`: where field `path` is in the config file
 * `file` whose text is `text`, for an error found after loading (a port in
 * use). `<file>: <field>` when the file does not set it (a default).
 */
export function placeOf(file: string, text: string, path: FieldPath): string {
  // Each `${…}` masked, as parseConfig does: in a flow collection its `{` would open a map.
  const masked = text.replace(/\$\{[^}\n]*\}/g, (variable) => "_".repeat(variable.length));
  const doc = parseDocument(masked);
  const node = nodeAt(doc, path);
  if (!isNode(node) || !node.range) return `${file}: ${formatPath(path)}`;
  const { line, col } = lineCounterFor(text).linePos(node.range[0]);
  return `${file}:${line}:${col}: ${formatPath(path)}`;
}
