/**
 * The engine's own share of a routed call, without sockets: a caller's
 * `invokefunction` text goes into its WebSocketSession, the engine routes it
 * to the worker's session, whose `invocationresult` text comes back out of
 * the caller's session. Everything the engine does per call runs (frame
 * parsing, routing, ids, span, outbound JSON); Deno's WebSocket and the
 * kernel do not. `deno bench engine/invoke_roundtrip_bench.ts`.
 */
import { Engine } from "./core.ts";
import { WebSocketSession } from "./session.ts";
import { LogStore } from "./observability/logs.ts";
import { TraceStore } from "./observability/traces.ts";

/** What the session needs of a WebSocket: it sends text and reports how much is queued. */
class StubSocket {
  readyState: number = WebSocket.OPEN;
  bufferedAmount = 0;
  onSend: (text: string) => void = () => {};
  send(text: string): void {
    this.onSend(text);
  }
  close(): void {}
}

function setup(payloadBytes: number) {
  const logs = new LogStore();
  const engine = new Engine({ log: logs.logger({ source: "engine" }), traces: new TraceStore() });
  const options = {
    log: logs.logger({ source: "session" }),
    maxFrameBytes: 16 << 20,
    maxBacklogBytes: 8 << 20,
  };
  const callerSocket = new StubSocket();
  const workerSocket = new StubSocket();
  const caller = new WebSocketSession(engine, callerSocket as unknown as WebSocket, options);
  const worker = new WebSocketSession(engine, workerSocket as unknown as WebSocket, options);
  worker.receive(JSON.stringify({ type: "registerfunction", id: "bench::echo" }));
  // The worker echoes: its result frame is what an SDK worker would send.
  workerSocket.onSend = (text) => {
    const f = JSON.parse(text);
    worker.receive(
      JSON.stringify({
        type: "invocationresult",
        invocation_id: f.invocation_id,
        function_id: f.function_id,
        result: f.data,
        traceparent: f.traceparent,
      }),
    );
  };
  let answered = 0;
  callerSocket.onSend = () => answered++;
  const data = { data: "x".repeat(Math.max(0, payloadBytes - 20)) };
  let n = 0;
  return {
    /** One routed call; the caller's frame is encoded as the SDK would. */
    call(): void {
      caller.receive(
        JSON.stringify({
          type: "invokefunction",
          invocation_id: `call-${n++}`,
          function_id: "bench::echo",
          data,
        }),
      );
    },
    get answered() {
      return answered;
    },
  };
}

for (const bytes of [100, 10_240]) {
  const s = setup(bytes);
  Deno.bench(`invoke_roundtrip ${bytes} B (engine only, stub sockets)`, { n: 20_000 }, () => {
    s.call();
  });
}
