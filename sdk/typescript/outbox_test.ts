import assert from "node:assert/strict";
import { Outbox } from "./outbox.ts";

/** Runs `fn` with console.warn recorded. */
function warnings(fn: () => void): string[] {
  const seen: string[] = [];
  const original = console.warn;
  console.warn = (...args: unknown[]) => void seen.push(args.join(" "));
  try {
    fn();
  } finally {
    console.warn = original;
  }
  return seen;
}

Deno.test("Outbox keeps the newest frames past its capacity and warns once per disconnection", () => {
  const outbox = new Outbox(20);
  const warned = warnings(() => {
    for (let i = 0; i < 45; i++) outbox.push({ text: `f${i}` });
  });
  assert.equal(warned.length, 1);
  assert.match(warned[0]!, /More than 20 frames queued while disconnected; dropping the oldest/);
  const kept = outbox.take().map((q) => q.text);
  // A tenth (2) is dropped each time it is full: never more than the capacity, the newest last.
  assert.ok(kept.length <= 20 && kept.length > 15, `kept ${kept.length}`);
  assert.equal(kept.at(-1), "f44");
  assert.deepEqual(kept, kept.toSorted((a, b) => Number(a.slice(1)) - Number(b.slice(1))));
  assert.deepEqual(outbox.take(), [], "take() empties it");

  // The next disconnection warns again.
  const again = warnings(() => {
    for (let i = 0; i < 21; i++) outbox.push({ text: `g${i}`, invocationId: `i${i}` });
  });
  assert.equal(again.length, 1);
  assert.equal(outbox.take()[0]?.invocationId, "i2", "the oldest two were dropped");
});
