/**
 * The `/otel` socket as the npm iii-sdk@0.22.1 uses it (binary messages: a
 * 4-byte kind, `LOGS` or `OTLP`, then OTLP/JSON), on both transports, with
 * what a buggy or hostile sender may put there: frames that are not JSON or
 * not OTLP are dropped without an error, and what is stored is bounded (a
 * 1 MB service or span name, data nested past 32 levels with a secret and a
 * 200,000-item list in it) while the next good frame still arrives.
 */
import assert from "node:assert/strict";
import { startEngine } from "../../engine/engine.ts";
import type { TransportName } from "../../engine/transport/select.ts";
import { eventually } from "../support/local_worker.ts";

const TRANSPORTS: TransportName[] = ["deno", "native"];
const enc = new TextEncoder();

const frame = (kind: string, body: string) => enc.encode(kind + body);
const str = (s: string) => ({ stringValue: s });

function logs(message: string, service: string, data?: unknown): string {
  const attributes = data === undefined ? [] : [{ key: "log.data", value: data }];
  return JSON.stringify({
    resourceLogs: [{
      resource: { attributes: [{ key: "service.name", value: str(service) }] },
      scopeLogs: [{
        logRecords: [{
          timeUnixNano: String(Date.now() * 1_000_000),
          severityNumber: 9,
          body: str(message),
          attributes,
        }],
      }],
    }],
  });
}

/** An OTLP kvlist nested `depth` levels, holding `leaf`. */
function nested(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { kvlistValue: { values: [{ key: "k", value }] } };
  return value;
}

for (const transport of TRANSPORTS) {
  Deno.test(`[${transport}] /otel: malformed frames are dropped, huge or deep ones are bounded`, async () => {
    const engine = await startEngine({ port: 0, shutdownGraceMs: 0, transport });
    const socket = new WebSocket(`${engine.url}/otel`);
    try {
      await new Promise((resolve, reject) => {
        socket.onopen = resolve;
        socket.onerror = reject;
      });
      const huge = "s".repeat(1_000_000);
      const secret = {
        kvlistValue: {
          values: [
            { key: "password", value: str("hunter2") },
            {
              key: "items",
              value: { arrayValue: { values: Array.from({ length: 200_000 }, () => str("i")) } },
            },
          ],
        },
      };
      const sent: (Uint8Array | string)[] = [
        frame("LOGS", "{not json"),
        frame("LOGS", '{"resourceLogs":5}'),
        frame("LOGS", '{"resourceLogs":[null]}'),
        frame("OTLP", '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":1}]}]}]}'),
        frame("MTRC", "{}"),
        frame("ZZZZ", "{}"),
        new Uint8Array([0x4c, 0x4f]),
        "LOGS text frames are ignored",
        frame("LOGS", logs("huge service", huge)),
        frame("LOGS", logs("deep data", "iii-otel", nested(40, secret))),
        frame(
          "OTLP",
          JSON.stringify({
            resourceSpans: [{
              resource: { attributes: [{ key: "service.name", value: str(huge) }] },
              scopeSpans: [{
                spans: [{
                  traceId: "a".repeat(32),
                  spanId: "b".repeat(16),
                  name: huge,
                  startTimeUnixNano: "1000000",
                  endTimeUnixNano: "2000000",
                }],
              }],
            }],
          }),
        ),
        frame("LOGS", logs("the last one", "iii-otel")),
      ];
      for (const message of sent) socket.send(message);
      await eventually(
        () => engine.logs.query({ text: "the last one" }).length === 1,
        'the log "the last one" sent after the others',
      );

      const hugeLog = engine.logs.query({ text: "huge service" })[0]!;
      assert.ok(hugeLog.source.length < 10_000, `source kept ${hugeLog.source.length} characters`);
      assert.ok(hugeLog.worker!.length < 10_000);
      const deep = JSON.stringify(engine.logs.query({ text: "deep data" })[0]!.data);
      assert.ok(!deep.includes("hunter2"), "a password nested 40 levels deep was stored");
      assert.ok(deep.length < 10_000, `deep data kept ${deep.length} characters`);
      const span = engine.traces.trace("a".repeat(32))[0]!;
      assert.ok(span.name.length < 10_000, `span name kept ${span.name.length} characters`);
      assert.ok(span.worker!.length < 10_000);

      const errors = engine.logs.query({}).filter((e) => e.level === "error" || e.level === "warn");
      assert.deepEqual(errors.map((e) => e.message), []);
      const health = await fetch(`http://127.0.0.1:${engine.port}/health`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
    } finally {
      socket.close();
      await engine.stop();
    }
  });
}
