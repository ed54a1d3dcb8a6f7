/**
 * A worker socket for tests of the `engine.batch.v1` subprotocol: it records
 * every message as it came and the frames in it, and waits for a frame.
 *
 * @module
 */

// deno-lint-ignore no-explicit-any
export type Frame = any;

/** A worker socket that records every message as it came and the frames in it. */
export class BatchSocket {
  readonly messages: string[] = [];
  readonly frames: Frame[] = [];
  /** Lines that were not a JSON frame (a frame cut by a line feed, say); waits fail on the first. */
  readonly broken: string[] = [];
  #waiters: {
    match: (f: Frame) => boolean;
    resolve: (f: Frame) => void;
    reject: (e: Error) => void;
  }[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.onmessage = (e) => {
      const text = String(e.data);
      this.messages.push(text);
      for (const line of text.split("\n")) {
        let frame: Frame;
        try {
          frame = JSON.parse(line);
        } catch (err) {
          this.broken.push(line);
          const error = new Error(
            `A line of a message is not a frame: ${JSON.stringify(line.slice(0, 200))}`,
            { cause: err },
          );
          for (const w of this.#waiters.splice(0)) w.reject(error);
          continue;
        }
        this.frames.push(frame);
        for (const w of [...this.#waiters]) {
          if (w.match(frame)) {
            this.#waiters.splice(this.#waiters.indexOf(w), 1);
            w.resolve(frame);
          }
        }
      }
    };
  }

  static async open(url: string, protocols: string[]): Promise<BatchSocket> {
    const socket = new WebSocket(url, protocols);
    const s = new BatchSocket(socket);
    await s.next((f) => f.type === "workerregistered");
    return s;
  }

  /** The first frame (seen already or to come) that matches. */
  next(match: (f: Frame) => boolean, what = String(match)): Promise<Frame> {
    const seen = this.frames.find(match);
    if (seen) return Promise.resolve(seen);
    let timer: ReturnType<typeof setTimeout>;
    return Promise.race([
      new Promise<Frame>((resolve, reject) => this.#waiters.push({ match, resolve, reject })),
      new Promise<never>((_, reject) =>
        timer = setTimeout(() => reject(new Error(`No frame ${what} in 10 s`)), 10_000)
      ),
    ]).finally(() => clearTimeout(timer));
  }

  /** Sends `frames` as one message (their texts joined by line feeds). */
  send(...frames: (Frame | string)[]): void {
    this.socket.send(frames.map((f) => typeof f === "string" ? f : JSON.stringify(f)).join("\n"));
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise((resolve) => this.socket.addEventListener("close", resolve));
    this.socket.close();
    await closed;
  }
}
