/**
 * Several protocol frames in one WebSocket message: the `engine.batch.v1`
 * subprotocol, offered in the opening handshake by the SDKs and chosen by the
 * engine. With it, a text message holds one or more frames separated by a line
 * feed; without it (the reference's SDK, a hand-written client) every message
 * is one frame, as the protocol says.
 *
 * Frames sent in one turn of the event loop travel together, up to
 * {@linkcode BATCH_BYTES} a message: under load that is many calls per message
 * and far less work per call for both ends of the socket; a single frame goes
 * out alone, as before, with no wait.
 *
 * A frame never holds a raw line feed: JSON has one only as whitespace between
 * tokens (inside a string it is escaped as `\n`), so a frame text is made safe
 * by turning its line feeds into spaces ({@linkcode lineSafe}), which keeps its
 * meaning.
 *
 * @module
 */

/** The subprotocol name. */
export const BATCH_PROTOCOL = "engine.batch.v1";

/** A message collects frames up to this many UTF-16 units; a larger frame travels alone. */
export const BATCH_BYTES = 64 * 1024;

/**
 * The most UTF-16 units the engine takes in one message of several frames:
 * four times what the SDKs put in one (a single frame is bounded by the
 * engine's `max_frame_bytes` instead). A larger one is refused whole: its
 * frames would be handled in one go, holding up every other connection.
 */
export const MAX_BATCH_UNITS = 4 * BATCH_BYTES;

/**
 * Whether the `Sec-WebSocket-Protocol` header `value` offers `name` (exact
 * match: subprotocol names are case-sensitive).
 *
 * @example
 * ```ts
 * console.log(offersProtocol("chat, engine.batch.v1", "engine.batch.v1")); // true
 * console.log(offersProtocol(null, "engine.batch.v1")); // false
 * ```
 */
export function offersProtocol(value: string | null | undefined, name: string): boolean {
  return value != null && value.split(",").some((token) => token.trim() === name);
}

/**
 * `text` with its line feeds turned into spaces; the same text when it has
 * none (the usual case, and a single scan).
 *
 * @example
 * ```ts
 * console.log(lineSafe('{"a":\n1}')); // {"a": 1}
 * ```
 */
export function lineSafe(text: string): string {
  return text.includes("\n") ? text.replaceAll("\n", " ") : text;
}

/**
 * The frames of one batched message, in order; lines that are empty or hold
 * only JSON whitespace (a `\r` of CRLF-joined frames, spaces, tabs) are
 * skipped.
 *
 * @example
 * ```ts
 * console.log(splitBatch('{"type":"ping"}\n \n{"type":"pong"}\n')); // [ '{"type":"ping"}', '{"type":"pong"}' ]
 * ```
 */
export function splitBatch(text: string): string[] {
  if (!text.includes("\n")) return isBlank(text) ? [] : [text];
  return text.split("\n").filter((line) => !isBlank(line));
}

/**
 * Whether `line` holds nothing but JSON whitespace (space, tab, carriage return). A frame stops
 * the scan at its first character, `{`.
 */
function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/**
 * Collects the frames sent during one turn and sends them, from a microtask,
 * in as few messages as {@linkcode BATCH_BYTES} allows.
 *
 * @example
 * ```ts
 * const sent: string[] = [];
 * const batcher = new FrameBatcher((text) => sent.push(text));
 * batcher.push('{"type":"ping"}');
 * batcher.push('{"type":"ping"}');
 * await Promise.resolve();
 * console.log(sent); // [ '{"type":"ping"}\n{"type":"ping"}' ]
 * ```
 */
export class FrameBatcher {
  #send: (text: string) => void;
  #sendLines: ((frames: readonly string[]) => void) | undefined;
  #checked: boolean;
  #frames: string[] = [];
  #units = 0;
  #scheduled = false;

  /**
   * `send` writes one message; it is not called for an empty batch. With
   * `lineFree`, the texts pushed are known to hold no line feed (their maker
   * sees to it) and are not scanned again: for a large frame built of parts,
   * that scan would also copy it into one string before the batch does. With
   * `sendLines`, a message of several frames goes to it as they are, for a
   * socket that writes them with line feeds between (no joined string);
   * `send` then writes the messages of one frame.
   */
  constructor(
    send: (text: string) => void,
    { lineFree = false, sendLines }: {
      lineFree?: boolean;
      sendLines?: (frames: readonly string[]) => void;
    } = {},
  ) {
    this.#send = send;
    this.#sendLines = sendLines;
    this.#checked = lineFree;
  }

  /** UTF-16 units queued and not yet handed to `send` (a lower bound of their bytes). */
  get pendingUnits(): number {
    return this.#units;
  }

  /** Queues one frame's text. */
  push(text: string): void {
    const safe = this.#checked ? text : lineSafe(text);
    this.#frames.push(safe);
    this.#units += safe.length;
    if (!this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(this.flush);
    }
  }

  /** Sends everything queued now (before a close frame, say). */
  flush = (): void => {
    this.#scheduled = false;
    const frames = this.#frames;
    if (frames.length === 0) return;
    this.#frames = [];
    this.#units = 0;
    let start = 0;
    let units = frames[0]!.length;
    for (let i = 1; i < frames.length; i++) {
      const next = frames[i]!.length;
      if (units + 1 + next > BATCH_BYTES) {
        this.#message(frames, start, i);
        start = i;
        units = next;
      } else units += 1 + next;
    }
    this.#message(frames, start, frames.length);
  };

  /** Drops what is queued (the connection is gone). */
  clear(): void {
    this.#frames = [];
    this.#units = 0;
  }

  /** Frames `start` to `end` of `frames` as one message. */
  #message(frames: string[], start: number, end: number): void {
    if (end - start === 1) return this.#send(frames[start]!);
    const lines = start === 0 && end === frames.length ? frames : frames.slice(start, end);
    if (this.#sendLines) this.#sendLines(lines);
    else this.#send(lines.join("\n"));
  }
}
