/**
 * One round of the soak's churn against a running engine: workers connect,
 * register functions, http, state, custom and `engine::events` triggers,
 * call and are called, answer HTTP requests of every outcome, and leave,
 * cleanly or dropped mid-call; a worker process on the SDK is killed or
 * stopped; a console comes and goes. Every call and request made is awaited
 * before the round ends.
 *
 * @module
 */
import { spawn } from "./procs.ts";
import { type Frame, NO_ANSWER, SoakPeer } from "./soak_peer.ts";
import { nativeSocket, tcpSocket } from "./soak_socket.ts";

export interface RoundOptions {
  /** The engine's WebSocket URL. */
  url: string;
  /** engine-http's base URL. */
  http: string;
  /** The soak's own long-lived connection. */
  ctl: SoakPeer;
  round: number;
  /** In-process workers per round. */
  workers: number;
  /** Start and stop `engine console` (a process) this round. */
  console: boolean;
  /** engine-http's `body_limit`, in bytes. */
  bodyLimit: number;
}

/** What a round saw: HTTP statuses and call outcomes by code, and surprises. */
export interface RoundTally {
  http: Record<string, number>;
  calls: Record<string, number>;
  unexpected: string[];
}

export async function runRound(o: RoundOptions): Promise<RoundTally> {
  const tally: RoundTally = { http: {}, calls: {}, unexpected: [] };
  const count = (table: Record<string, number>, key: string) => table[key] = (table[key] ?? 0) + 1;
  const expectCall = async (call: Promise<Frame>, want: string[], what: string) => {
    const f = await call;
    const code = f.error ? String(f.error.code) : "ok";
    count(tally.calls, code);
    if (!want.includes(code)) tally.unexpected.push(`${what}: ${code} ${f.error?.message ?? ""}`);
  };
  /** `want`: the status expected; `"any"` for a request whose outcome is a race. */
  const expectHttp = async (
    path: string,
    init: RequestInit,
    want: number | "any",
    what = path,
  ) => {
    try {
      const response = await fetch(`${o.http}${path}`, init);
      await response.body?.cancel();
      count(tally.http, String(response.status));
      if (want !== "any" && response.status !== want) {
        tally.unexpected.push(`${init.method ?? "GET"} ${what}: ${response.status}, not ${want}`);
      }
    } catch (e) {
      const name = (e as Error).name;
      count(tally.http, name);
      if (want !== "any") tally.unexpected.push(`${init.method ?? "GET"} ${what}: ${e}`);
    }
  };

  const sdk = sdkWorker(o, expectCall, expectHttp);
  const consoleRun = o.console ? consoleProcess(o) : Promise.resolve();
  const r = `r${o.round}`;
  const customType = `soak::type-${r}`;
  const peers = await Promise.all(
    Array.from({ length: o.workers }, async (_, i) => {
      const socket = i % 2 === 0 ? await nativeSocket(o.url) : await tcpSocket(o.url);
      return await SoakPeer.connect(socket, `soak-${r}-w${i}`);
    }),
  );

  const work: Promise<unknown>[] = [];
  peers.forEach((peer, i) => {
    const ns = `soak_${r}_w${i}`;
    const base = `/soak/${r}/w${i}`;
    peer.register(`${ns}::echo`, (data) => ({ status_code: 200, body: data }));
    peer.register(`${ns}::fail`, () => {
      throw new Error("soak failure");
    });
    peer.register(`${ns}::hang`, () => NO_ANSWER);
    peer.register(`${ns}::bad`, () => 42);
    peer.register(`${ns}::cond`, (d) => (d as Frame).headers?.["x-pass"] === "yes");
    peer.register(`${ns}::mw`, () => ({ action: "continue", context: { soak: true } }));
    peer.trigger(`${ns}-echo`, "http", `${ns}::echo`, {
      api_path: `${base}/echo`,
      http_method: "POST",
      condition_function_id: `${ns}::cond`,
      middleware_function_ids: [`${ns}::mw`],
    });
    for (const name of ["fail", "hang", "bad"]) {
      peer.trigger(`${ns}-${name}`, "http", `${ns}::${name}`, { api_path: `${base}/${name}` });
    }
    peer.trigger(`${ns}-state`, "state", `${ns}::echo`, { scope: `soak-${r}-w${i}` });
    if (i === 0) {
      peer.provide(customType);
      peer.trigger(`${ns}-events`, "engine::events", `${ns}::echo`, { kinds: ["engine"] });
    }
    peer.trigger(`${ns}-custom`, customType, `${ns}::echo`, { n: i });
  });
  // Frames of one connection are handled in order: a call's answer follows its registrations.
  await Promise.all(peers.map((p) => p.result("engine::health::check")));

  peers.forEach((peer, i) => {
    const ns = `soak_${r}_w${i}`;
    const base = `/soak/${r}/w${i}`;
    const json = (body: string, pass = true): RequestInit => ({
      method: "POST",
      body,
      headers: { "content-type": "application/json", ...(pass ? { "x-pass": "yes" } : {}) },
    });
    work.push(
      expectCall(o.ctl.call(`${ns}::echo`, { i }), ["ok"], `${ns}::echo`),
      expectCall(o.ctl.call(`${ns}::fail`), ["soak_failure"], `${ns}::fail`),
      expectCall(o.ctl.call(`${ns}::missing`), ["function_not_found"], `${ns}::missing`),
      expectCall(o.ctl.call(`${ns}::hang`), ["invocation_timeout"], `${ns}::hang`),
      expectCall(
        peer.call(`soak_${r}_w${(i + 1) % peers.length}::echo`, { from: i }),
        ["ok"],
        "worker to worker",
      ),
      expectHttp(`${base}/echo`, json(JSON.stringify({ i })), 200),
      expectHttp(`${base}/echo`, json("{}", false), 422, `${base}/echo without x-pass`),
      expectHttp(`${base}/echo`, json("x".repeat(o.bodyLimit + 1)), 413, `${base}/echo too large`),
      expectHttp(`${base}/echo`, json("{not json"), 400, `${base}/echo not JSON`),
      expectHttp(`${base}/echo`, { method: "GET" }, 405),
      expectHttp(`${base}/nope`, { method: "GET" }, 404),
      expectHttp(`${base}/fail`, { method: "GET" }, 500),
      expectHttp(`${base}/bad`, { method: "GET" }, 500),
      expectHttp(`${base}/hang`, { method: "GET" }, 504),
      // The client leaves while the function runs.
      expectHttp(
        `${base}/hang`,
        { signal: AbortSignal.timeout(50) },
        "any",
        `${base}/hang abandoned`,
      ),
      stateChurn(o.ctl, `soak-${r}-w${i}`, 10),
    );
  });
  await Promise.all(work);

  // Leaving: even workers close cleanly (some with a call in flight), odd ones drop their TCP
  // connection with a call and a request in flight; custom triggers and the type go first half
  // of the time.
  await Promise.all(peers.map(async (peer, i) => {
    const ns = `soak_${r}_w${i}`;
    if (o.round % 2 === 0) {
      peer.send({ type: "unregistertrigger", id: `${ns}-custom`, trigger_type: customType });
      if (i === 0) peer.send({ type: "unregistertriggertype", id: customType });
      peer.send({ type: "unregisterfunction", id: `${ns}::bad` });
      await peer.result("engine::health::check");
    }
    const midCall = i % 4 !== 0;
    const calls: Promise<unknown>[] = [];
    if (midCall) {
      calls.push(
        expectCall(
          o.ctl.call(`${ns}::hang`),
          ["invocation_stopped", "invocation_timeout"],
          `${ns}::hang at disconnect`,
        ),
      );
      if (i % 2 === 1) {
        calls.push(expectHttp(`/soak/${r}/w${i}/hang`, {}, "any", `hang at drop`));
      }
      // The ctl's call has reached the worker once a later call on the same connection returns.
      await o.ctl.result("engine::health::check");
    }
    if (i % 2 === 1) peer.socket.drop();
    else peer.socket.close();
    await peer.socket.closed;
    await Promise.all(calls);
  }));
  await Promise.all([sdk, consoleRun]);
  return tally;
}

async function stateChurn(ctl: SoakPeer, scope: string, keys: number): Promise<void> {
  for (let k = 0; k < keys; k++) {
    const key = `key-${k}-${crypto.randomUUID()}`;
    await ctl.result("state::set", { scope, key, value: { k, text: "v".repeat(100) } });
    await ctl.result("state::get", { scope, key });
    await ctl.result("state::delete", { scope, key });
  }
}

/** The SDK worker process: registered, called, then SIGKILLed (odd rounds) or SIGTERMed mid-call. */
async function sdkWorker(
  o: RoundOptions,
  expectCall: (call: Promise<Frame>, want: string[], what: string) => Promise<void>,
  expectHttp: (path: string, init: RequestInit, want: number | "any") => Promise<void>,
): Promise<void> {
  const worker = spawn(["run", "--allow-all", "bench/soak_sdk_worker.ts"], { ENGINE_URL: o.url });
  try {
    await worker.waitFor(/^ready$/);
    await Promise.all([
      expectCall(o.ctl.call("soaksdk::echo", { n: 1 }), ["ok"], "soaksdk::echo"),
      expectHttp("/soaksdk", {}, 200),
      o.ctl.result("state::set", { scope: "soaksdk", key: `k-${o.round}`, value: 1 }),
    ]);
    const hang = expectCall(
      o.ctl.call("soaksdk::hang"),
      ["invocation_stopped", "invocation_timeout"],
      "soaksdk::hang",
    );
    await o.ctl.result("engine::health::check");
    worker.child.kill(o.round % 2 === 1 ? "SIGKILL" : "SIGTERM");
    await hang;
    await o.ctl.result("state::delete", { scope: "soaksdk", key: `k-${o.round}` });
  } finally {
    await worker.stop();
  }
}

/** `engine console` for the engine: its pages' API and live feed read once, then stopped or killed. */
async function consoleProcess(o: RoundOptions): Promise<void> {
  const proc = spawn(["run", "--allow-all", "main.ts", "console", "--port", "0", "--url", o.url]);
  try {
    const base = (await proc.waitFor(/Console on (http:\/\/\S+)/))[1]!.replace(/\/$/, "");
    for (const page of ["workers", "functions", "triggers", "logs", "traces", "state", "queues"]) {
      const response = await fetch(`${base}/api/${page}`);
      await response.body?.cancel();
    }
    const events = await fetch(`${base}/api/events`);
    const reader = events.body!.getReader();
    await reader.read();
    await reader.cancel();
    if (o.round % 2 === 1) proc.child.kill("SIGKILL");
  } finally {
    await proc.stop();
  }
}
