/**
 * Payloads travel on as the JSON text they arrived in (the engine does not
 * serialize `data` and `result` again): what the other side parses must be
 * exactly what the engine parsed, whatever the text looks like, and nothing
 * of it changes on the way.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import { RawWorker, waitForFunctions } from "../support/raw_worker.ts";

/** Text of the frames `w` receives, as they came over the socket. */
function rawTexts(w: RawWorker): string[] {
  const texts: string[] = [];
  w.socket.addEventListener("message", (e) => texts.push(String(e.data)));
  return texts;
}

/** How many times `"key":` stands at the top level of the object `text`. */
function topLevelCount(text: string, key: string): number {
  let depth = 0;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === "\\") i++;
      if (depth === 1 && text.slice(start, i + 1) === JSON.stringify(key)) {
        let j = i + 1;
        while (text[j] === " " || text[j] === "\n") j++;
        if (text[j] === ":") count++;
      }
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
  }
  return count;
}

const TRICKY = 'quote " backslash \\ brace } bracket ] unicode é 😀 \u2028 control \u0001 ';

/** Payloads, each as formatted text. */
const PAYLOADS: [string, unknown, (v: unknown) => string][] = [
  ["a long string with escapes", TRICKY.repeat(40), (v) => JSON.stringify(v)],
  [
    "nested objects, written with whitespace",
    {
      invocation_id: "not-the-envelope",
      data: { result: [1, 2, { "}": "]" }] },
      list: Array.from({ length: 60 }, (_, i) => ({ i, s: `${TRICKY}${i}`, n: -(i + 1) / 7 })),
    },
    (v) => JSON.stringify(v, null, 2),
  ],
  ["numbers", Array.from({ length: 500 }, (_, i) => i * 1.5e-3), (v) => JSON.stringify(v, null, 1)],
  ["a string at the size boundary", "x".repeat(1000), (v) => ` ${JSON.stringify(v)} `],
];

Deno.test("payloads and results arrive as the engine parsed them", async (t) => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0 });
  const caller = await RawWorker.connect(engine.url);
  const worker = await RawWorker.connect(engine.url);
  const toWorker = rawTexts(worker);
  const toCaller = rawTexts(caller);
  try {
    // The worker answers with the payload it got, written as formatted text of its own.
    worker.send({ type: "registerfunction", id: "text::echo" });
    worker.socket.addEventListener("message", (e) => {
      const f = JSON.parse(String(e.data));
      if (f.type !== "invokefunction") return;
      worker.send(
        `{ "type": "invocationresult", "invocation_id": ${JSON.stringify(f.invocation_id)},\n` +
          `  "function_id": "text::echo", "result": {"echo": ${JSON.stringify(f.data, null, 3)}} }`,
      );
    });
    await waitForFunctions(caller, ["text::echo"]);
    for (const [name, payload, write] of PAYLOADS) {
      await t.step(name, async () => {
        const id = crypto.randomUUID();
        const answer = caller.next((f) => f.invocation_id === id, { description: name });
        caller.send(
          `{"type":"invokefunction","invocation_id":${JSON.stringify(id)},` +
            `"function_id":"text::echo","data":${write(payload)}}`,
        );
        const r = await answer;
        assert.deepEqual(r.result, { echo: payload });
        assert.equal(r.function_id, "text::echo");
        const sent = toWorker.findLast((s) => s.includes('"invokefunction"'))!;
        assert.deepEqual(JSON.parse(sent).data, payload);
        assert.equal(topLevelCount(sent, "data"), 1);
        assert.equal(topLevelCount(sent, "invocation_id"), 1);
        assert.notEqual(JSON.parse(sent).invocation_id, id, "the worker gets the engine's id");
        const back = toCaller.findLast((s) => s.includes(id))!;
        assert.equal(topLevelCount(back, "result"), 1);
        assert.equal(topLevelCount(back, "invocation_id"), 1);
      });
    }

    await t.step(
      "a repeated top-level key passes on the value the engine took (the last)",
      async () => {
        const id = crypto.randomUUID();
        const answer = caller.next((f) => f.invocation_id === id);
        const last = { big: TRICKY.repeat(40) };
        caller.send(
          `{"type":"invokefunction","invocation_id":${JSON.stringify(id)},` +
            `"function_id":"text::echo","data":{"first":true},"data":${JSON.stringify(last)}}`,
        );
        assert.deepEqual((await answer).result, { echo: last });
        const sent = toWorker.findLast((s) => s.includes('"invokefunction"'))!;
        assert.equal(topLevelCount(sent, "data"), 1);
        assert.deepEqual(JSON.parse(sent).data, last);
      },
    );
  } finally {
    await caller.close();
    await worker.close();
    await engine.stop();
  }
});

Deno.test("a result repeating its result key reaches the caller as the engine took it", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0 });
  const caller = await RawWorker.connect(engine.url);
  const worker = await RawWorker.connect(engine.url);
  const toCaller = rawTexts(caller);
  const big = TRICKY.repeat(40);
  try {
    worker.send({ type: "registerfunction", id: "text::twice" });
    worker.socket.addEventListener("message", (e) => {
      const f = JSON.parse(String(e.data));
      if (f.type !== "invokefunction") return;
      worker.send(
        `{"type":"invocationresult","invocation_id":${JSON.stringify(f.invocation_id)},` +
          `"function_id":"text::twice","result":"first","result":${JSON.stringify(big)}}`,
      );
    });
    await waitForFunctions(caller, ["text::twice"]);
    const r = await caller.call("text::twice", {});
    assert.equal(r.result, big);
    const back = toCaller.findLast((s) => s.includes('"invocationresult"'))!;
    assert.equal(topLevelCount(back, "result"), 1);
  } finally {
    await caller.close();
    await worker.close();
    await engine.stop();
  }
});

Deno.test("integers beyond 2^53 reach the worker and come back digit for digit", async () => {
  const engine = await startEngine({ port: 0, shutdownGraceMs: 0 });
  const caller = await RawWorker.connect(engine.url);
  const worker = await RawWorker.connect(engine.url);
  const toWorker = rawTexts(worker);
  const toCaller = rawTexts(caller);
  const big = "18446744073709551615"; // u64::MAX: a JavaScript number would make it ...552000
  try {
    worker.send({ type: "registerfunction", id: "text::ids" });
    worker.socket.addEventListener("message", (e) => {
      const f = JSON.parse(String(e.data));
      if (f.type !== "invokefunction") return;
      worker.send(
        `{"type":"invocationresult","invocation_id":${JSON.stringify(f.invocation_id)},` +
          `"function_id":"text::ids","result":{"next":${big}1}}`,
      );
    });
    await waitForFunctions(caller, ["text::ids"]);
    const id = crypto.randomUUID();
    const answer = caller.next((f) => f.invocation_id === id);
    caller.send(
      `{"type":"invokefunction","invocation_id":"${id}","function_id":"text::ids","data":{"id":${big}}}`,
    );
    await answer;
    assert.ok(toWorker.some((s) => s.includes(`"data":{"id":${big}}`)), toWorker.join("\n"));
    assert.ok(toCaller.some((s) => s.includes(`"result":{"next":${big}1}`)), toCaller.join("\n"));
  } finally {
    await caller.close();
    await worker.close();
    await engine.stop();
  }
});
