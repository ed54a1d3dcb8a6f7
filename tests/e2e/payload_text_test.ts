/**
 * Payloads travel on as the JSON text they arrived in (the engine does not
 * serialize `data` and `result` again): what the other side parses must be
 * exactly what the engine parsed, whatever the text looks like, and nothing
 * of it changes on the way.
 */
import assert from "node:assert/strict";
import { withEngine } from "../support/in_process_engine.ts";
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

interface Pair {
  caller: RawWorker;
  /** Text of the frames the caller and the worker received. */
  toCaller: string[];
  toWorker: string[];
  /** Sends an `invokefunction` of `functionId` with `dataText` as its data; resolves with the result frame. */
  invoke(functionId: string, dataText: string): Promise<Record<string, unknown>>;
}

/**
 * A caller and a worker on one engine; the worker serves `functionId` and
 * answers each call with the frame text `answer` writes for it.
 */
function withPair(
  functionId: string,
  answer: (invocationId: string, data: unknown) => string,
  body: (pair: Pair) => Promise<void>,
): Promise<void> {
  return withEngine(async (url) => {
    const caller = await RawWorker.connect(url);
    const worker = await RawWorker.connect(url);
    try {
      const pair: Pair = {
        caller,
        toCaller: rawTexts(caller),
        toWorker: rawTexts(worker),
        async invoke(fn, dataText) {
          const id = crypto.randomUUID();
          const result = caller.next((f) => f.invocation_id === id, { description: dataText });
          caller.send(
            `{"type":"invokefunction","invocation_id":${JSON.stringify(id)},` +
              `"function_id":${JSON.stringify(fn)},"data":${dataText}}`,
          );
          return await result;
        },
      };
      worker.send({ type: "registerfunction", id: functionId });
      worker.socket.addEventListener("message", (e) => {
        const f = JSON.parse(String(e.data));
        if (f.type === "invokefunction") worker.send(answer(f.invocation_id, f.data));
      });
      await waitForFunctions(caller, [functionId]);
      await body(pair);
    } finally {
      await caller.close();
      await worker.close();
    }
  });
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

Deno.test("payloads and results arrive as the engine parsed them", (t) =>
  // The worker answers with the payload it got, written as formatted text of its own.
  withPair(
    "text::echo",
    (id, data) =>
      `{ "type": "invocationresult", "invocation_id": ${JSON.stringify(id)},\n` +
      `  "function_id": "text::echo", "result": {"echo": ${JSON.stringify(data, null, 3)}} }`,
    async (p) => {
      for (const [name, payload, write] of PAYLOADS) {
        await t.step(name, async () => {
          const r = await p.invoke("text::echo", write(payload));
          assert.deepEqual(r.result, { echo: payload });
          assert.equal(r.function_id, "text::echo");
          const sent = p.toWorker.findLast((s) => s.includes('"invokefunction"'))!;
          assert.deepEqual(JSON.parse(sent).data, payload);
          assert.equal(topLevelCount(sent, "data"), 1);
          assert.equal(topLevelCount(sent, "invocation_id"), 1);
          assert.notEqual(JSON.parse(sent).invocation_id, r.invocation_id, "the engine's own id");
          const back = p.toCaller.findLast((s) => s.includes(String(r.invocation_id)))!;
          assert.equal(topLevelCount(back, "result"), 1);
          assert.equal(topLevelCount(back, "invocation_id"), 1);
        });
      }
      await t.step(
        "a repeated top-level key passes on the value the engine took (the last)",
        async () => {
          const last = { big: TRICKY.repeat(40) };
          const r = await p.invoke("text::echo", `{"first":true},"data":${JSON.stringify(last)}`);
          assert.deepEqual(r.result, { echo: last });
          const sent = p.toWorker.findLast((s) => s.includes('"invokefunction"'))!;
          assert.equal(topLevelCount(sent, "data"), 1);
          assert.deepEqual(JSON.parse(sent).data, last);
        },
      );
    },
  ));

Deno.test("a result repeating its result key reaches the caller as the engine took it", () => {
  const big = TRICKY.repeat(40);
  return withPair(
    "text::twice",
    (id) =>
      `{"type":"invocationresult","invocation_id":${JSON.stringify(id)},` +
      `"function_id":"text::twice","result":"first","result":${JSON.stringify(big)}}`,
    async (p) => {
      const r = await p.invoke("text::twice", "{}");
      assert.equal(r.result, big);
      const back = p.toCaller.findLast((s) => s.includes('"invocationresult"'))!;
      assert.equal(topLevelCount(back, "result"), 1);
    },
  );
});

Deno.test("integers beyond 2^53 reach the worker and come back digit for digit", () => {
  const big = "18446744073709551615"; // u64::MAX: a JavaScript number would make it ...552000
  return withPair(
    "text::ids",
    (id) =>
      `{"type":"invocationresult","invocation_id":${JSON.stringify(id)},` +
      `"function_id":"text::ids","result":{"next":${big}1}}`,
    async (p) => {
      await p.invoke("text::ids", `{"id":${big}}`);
      assert.ok(p.toWorker.some((s) => s.includes(`"data":{"id":${big}}`)), p.toWorker.join("\n"));
      assert.ok(
        p.toCaller.some((s) => s.includes(`"result":{"next":${big}1}`)),
        p.toCaller.join("\n"),
      );
    },
  );
});
