/**
 * Many idle workers in one process, for `bench/scale.ts`: raw WebSocket
 * connections to the engine that register functions and otherwise sit idle.
 * Usage: `swarm.ts <engine-url>`; commands on stdin, one per line, each
 * ending with a tag (`#<n>`) that starts its one-line answer on stdout:
 *
 *   connect <n>    open connections until there are n          → `connected <n> ms=<t>`
 *   register <n>   register functions bench::f<i> until there are n, spread
 *                  over the open connections; answered once the engine has
 *                  handled every frame (a ping per connection) → `registered <n> ms=<t>`
 *   unregister <n> unregister functions from the last one down, until there are n → `registered <n> ms=<t>`
 *   disconnect <n> close connections from the last one down, until there are n (their
 *                  functions go with them)                     → `connected <n> ms=<t>`
 *   list <what>    call engine::<what>::list (functions, workers) → `listed <count> ms=<t>`
 *
 * @module
 */
const url = Deno.args[0]!;

class Conn {
  #ws: WebSocket;
  #waiters: ((frame: Record<string, unknown>) => boolean)[] = [];
  readonly ready: Promise<void>;

  constructor(target: string) {
    this.#ws = new WebSocket(target);
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    this.ready = promise;
    this.#ws.onerror = () => reject(new Error(`Cannot connect to ${target}`));
    this.#ws.onmessage = (e) => {
      const frame = JSON.parse(e.data as string);
      if (frame.type === "workerregistered") resolve();
      this.#waiters = this.#waiters.filter((w) => !w(frame));
    };
  }

  send(frame: unknown): void {
    this.#ws.send(JSON.stringify(frame));
  }

  /** Closes the connection; resolves once it is closed. */
  close(): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#ws.onclose = () => resolve();
    this.#ws.close();
    return promise;
  }

  /** Resolves with the first frame `match` accepts. */
  next(match: (frame: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    return new Promise((resolve) =>
      this.#waiters.push((f) => {
        if (!match(f)) return false;
        resolve(f);
        return true;
      })
    );
  }
}

const conns: Conn[] = [];
let functions = 0;

async function connect(n: number): Promise<void> {
  const batch = 50; // a handful of handshakes at a time, as real workers would arrive
  while (conns.length < n) {
    const fresh = Array.from({ length: Math.min(batch, n - conns.length) }, () => new Conn(url));
    conns.push(...fresh);
    await Promise.all(fresh.map((c) => c.ready));
  }
}

async function register(n: number): Promise<void> {
  if (conns.length === 0) await connect(1);
  for (; functions < n; functions++) {
    conns[functions % conns.length]!.send({
      type: "registerfunction",
      id: `bench::f${functions}`,
      description: `Scale benchmark function ${functions}`,
    });
  }
  // A connection's frames are handled in order: its pong means its registrations are in.
  await Promise.all(conns.map((c) => {
    const pong = c.next((f) => f.type === "pong");
    c.send({ type: "ping" });
    return pong;
  }));
}

async function unregister(n: number): Promise<void> {
  for (; functions > n; functions--) {
    const i = functions - 1;
    conns[i % conns.length]!.send({ type: "unregisterfunction", id: `bench::f${i}` });
  }
  await Promise.all(conns.map((c) => {
    const pong = c.next((f) => f.type === "pong");
    c.send({ type: "ping" });
    return pong;
  }));
}

async function disconnect(n: number): Promise<void> {
  const gone = conns.splice(Math.max(n, 0));
  await Promise.all(gone.map((c) => c.close()));
}

async function list(what: string): Promise<number> {
  if (conns.length === 0) await connect(1);
  const conn = conns[0]!;
  const id = crypto.randomUUID();
  const reply = conn.next((f) => f.type === "invocationresult" && f.invocation_id === id);
  conn.send({
    type: "invokefunction",
    invocation_id: id,
    function_id: `engine::${what}::list`,
    data: {},
  });
  const result = (await reply).result as Record<string, unknown[]>;
  return result[what]?.length ?? -1;
}

async function* lines(): AsyncGenerator<string> {
  let buffered = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let i;
    while ((i = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
    }
  }
}

for await (const line of lines()) {
  const words = line.trim().split(/\s+/);
  const tag = words.at(-1)?.startsWith("#") ? words.pop() : "#";
  const [command, arg] = words;
  const t0 = performance.now();
  const ms = () => `ms=${(performance.now() - t0).toFixed(1)}`;
  if (command === "connect") {
    await connect(Number(arg));
    console.log(`${tag} connected ${conns.length} ${ms()}`);
  } else if (command === "register") {
    await register(Number(arg));
    console.log(`${tag} registered ${functions} ${ms()}`);
  } else if (command === "unregister") {
    await unregister(Number(arg));
    console.log(`${tag} registered ${functions} ${ms()}`);
  } else if (command === "disconnect") {
    await disconnect(Number(arg));
    console.log(`${tag} connected ${conns.length} ${ms()}`);
  } else if (command === "list") {
    const count = await list(arg ?? "functions");
    console.log(`${tag} listed ${count} ${ms()}`);
  } else if (command) {
    console.log(`${tag} error unknown command "${command}"`);
  }
}
Deno.exit(0);
