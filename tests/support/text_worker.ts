/**
 * A bare WebSocket worker for tests that must see frames as text: it sends
 * frame texts as written (so a payload's digits are exactly what the test
 * wrote) and keeps the text of each frame the engine sends (so a result's
 * digits are what the engine wrote, before any `JSON.parse` rounds them).
 *
 * @module
 */

/** A connected text worker (see the module's description). */
export interface TextWorker {
  /** Every frame text received, in order. */
  received: string[];
  /** Sends `text` as one message. */
  send(text: string): void;
  /** The raw `invocationresult` text for a call whose `data` is the JSON text `dataText`. */
  call(functionId: string, dataText: string): Promise<string>;
  close(): Promise<void>;
}

/** Connects a {@linkcode TextWorker} to the engine at `url`. */
export async function textWorker(url: string): Promise<TextWorker> {
  const socket = new WebSocket(url);
  const waiting = new Map<string, (text: string) => void>();
  const received: string[] = [];
  socket.onmessage = (e) => {
    const text = String(e.data);
    received.push(text);
    const id = /"invocation_id":"([^"]+)"/.exec(text)?.[1];
    if (id !== undefined) waiting.get(id)?.(text);
  };
  await new Promise((resolve) => socket.onopen = resolve);
  let n = 0;
  return {
    received,
    send(text) {
      socket.send(text);
    },
    call(functionId, dataText) {
      const id = `c${n++}`;
      const answered = new Promise<string>((resolve) => waiting.set(id, resolve));
      socket.send(
        `{"type":"invokefunction","invocation_id":"${id}","function_id":"${functionId}","data":${dataText}}`,
      );
      return answered;
    },
    async close() {
      const closed = new Promise((resolve) => socket.onclose = resolve);
      socket.close();
      await closed;
    },
  };
}
