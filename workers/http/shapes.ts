/**
 * The shapes of the live patterns, for the parameter-name rule: patterns that
 * agree up to a position where both have a parameter must name it the same
 * (`/users/:id` and `/users/:userId/posts` clash, under any methods).
 *
 * The live patterns form a trie over their segments. Since clashing routes are
 * refused, a node has at most one parameter child, so a new pattern is checked
 * by walking its own segments: at the first parameter whose live sibling has
 * another name, every route below that sibling clashes with it, and no route
 * elsewhere does. Adding or removing a pattern touches its own path only.
 *
 * @module
 */
import type { Segment } from "./routes.ts";

interface Node {
  /** Live route keys whose pattern passes through or ends at this node. */
  count: number;
  literals: Map<string, Node> | undefined;
  param: { name: string; node: Node } | undefined;
  /** Keys of the live routes whose pattern ends here. */
  ends: Set<string> | undefined;
}

/** A parameter-name clash: the new pattern's name, the live one's, and the live routes that have it. */
export interface Clash {
  names: [string, string];
  /** The keys of every live route that clashes (all those below the live parameter). */
  keys: string[];
}

/** A route leaving the table in the same change, left out of a check. */
export interface Leaving {
  key: string;
  segments: readonly Segment[];
}

export class ShapeTrie {
  readonly #root: Node = node();

  /** The clash `segments` would have with the live patterns, as if `leaving` were gone. */
  clash(segments: readonly Segment[], leaving?: Leaving): Clash | undefined {
    const gone = leaving ? new Set(this.#path(leaving.segments)) : undefined;
    const live = (n: Node) => n.count > (gone?.has(n) ? 1 : 0);
    let at = this.#root;
    for (const segment of segments) {
      let next: Node | undefined;
      if (segment.kind === "literal") next = at.literals?.get(segment.value);
      else if (at.param !== undefined && live(at.param.node)) {
        if (at.param.name !== segment.name) {
          const keys: string[] = [];
          collectKeys(at.param.node, keys);
          return {
            names: [segment.name, at.param.name],
            keys: leaving ? keys.filter((k) => k !== leaving.key) : keys,
          };
        }
        next = at.param.node;
      }
      if (next === undefined || !live(next)) return undefined;
      at = next;
    }
    return undefined;
  }

  /** Adds the pattern of route `key`; the caller has checked it does not clash. */
  insert(key: string, segments: readonly Segment[]): void {
    let at = this.#root;
    at.count++;
    for (const segment of segments) {
      let next: Node | undefined;
      if (segment.kind === "literal") {
        next = (at.literals ??= new Map()).get(segment.value);
        if (next === undefined) at.literals.set(segment.value, next = node());
      } else {
        if (at.param !== undefined && at.param.name !== segment.name) {
          throw new Error(`Parameter ":${segment.name}" clashes with ":${at.param.name}"`);
        }
        next = (at.param ??= { name: segment.name, node: node() }).node;
      }
      next.count++;
      at = next;
    }
    (at.ends ??= new Set()).add(key);
  }

  /** Removes the pattern of route `key`, and the nodes no live pattern needs any more. */
  remove(key: string, segments: readonly Segment[]): void {
    const path = this.#path(segments);
    if (path.length !== segments.length + 1) return;
    path[path.length - 1]!.ends?.delete(key);
    for (let i = 0; i < path.length; i++) path[i]!.count--;
    for (let i = 1; i < path.length; i++) {
      if (path[i]!.count > 0) continue;
      const parent = path[i - 1]!;
      const segment = segments[i - 1]!;
      if (segment.kind === "literal") parent.literals?.delete(segment.value);
      else parent.param = undefined;
      return; // everything below went with it
    }
  }

  /** The nodes from the root along `segments`, as far as they exist. */
  #path(segments: readonly Segment[]): Node[] {
    const path = [this.#root];
    let at: Node | undefined = this.#root;
    for (const segment of segments) {
      at = segment.kind === "literal"
        ? at.literals?.get(segment.value)
        : at.param?.name === segment.name
        ? at.param.node
        : undefined;
      if (at === undefined) break;
      path.push(at);
    }
    return path;
  }
}

function node(): Node {
  return { count: 0, literals: undefined, param: undefined, ends: undefined };
}

function collectKeys(at: Node, into: string[]): void {
  if (at.ends) into.push(...at.ends);
  if (at.literals) { for (const child of at.literals.values()) collectKeys(child, into); }
  if (at.param) collectKeys(at.param.node, into);
}
