// Workers: who is connected, what they provide, and how busy they are; supervised
// workers (started from the config file) also with status, restarts and recent output.
import { api, errorBox, fill, h, newest, throttle } from "../ui.js";
import {
  COLUMNS,
  noteScrolling,
  placeOutput,
  rowKey,
  setInFlight,
  updateRow,
  workerRow,
} from "./worker_rows.js";

export const title = "Workers";

const TAIL = 8;

export function mount(root) {
  const list = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  fill(
    root,
    h("h1", {}, "Workers"),
    h("p", { class: "sub" }, "Connected workers, their functions and calls in flight"),
    list,
  );
  let rows = [];
  // The CLI's own connections (a command running, `engine logs -f`): counted, not listed.
  let cliConnections = 0;
  // Function lists the operator opened, by worker name: open again for a worker that
  // comes back (its row is new then).
  const opened = new Set();
  // One row per worker, kept by rowKey(): a read of the list updates the cells that changed,
  // adds the rows of new workers and removes those of gone ones.
  const byKey = new Map();
  const tbody = h("tbody");
  const table = h(
    "table",
    { class: "workers", "data-testid": "workers" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        COLUMNS.map((c) => h("th", { class: c === "In flight" || c === "PID" ? "num" : "" }, c)),
      ),
    ),
    tbody,
  );
  const cli = h("p", { class: "muted small", "data-testid": "cli-connections" });

  const reads = newest();
  const load = async () => {
    const fresh = reads();
    try {
      const { workers, supervised, cli_connections } = await api("/workers");
      if (!fresh()) return;
      rows = merge(workers, supervised ?? []);
      cliConnections = cli_connections ?? 0;
      draw();
    } catch (e) {
      if (fresh()) fill(list, errorBox(e));
    }
  };
  const draw = () => {
    cli.textContent = cliText(cliConnections);
    if (rows.length === 0) {
      byKey.clear();
      fill(list, h("div", { class: "empty" }, "No workers connected"), cliConnections ? cli : null);
      return;
    }
    if (list.firstChild !== table) fill(list, table);
    if (!cliConnections) cli.remove();
    else if (!cli.isConnected) list.append(cli);
    noteScrolling(byKey.values());
    const wanted = new Map(rows.map((w) => [rowKey(w), w]));
    // Gone rows first: removed in place, they do not move the rows after them.
    for (const [key, row] of byKey) {
      if (wanted.has(key)) continue;
      row.main.remove();
      row.output?.remove();
      byKey.delete(key);
    }
    let before = tbody.firstChild;
    const put = (el) => {
      if (el === before) before = el.nextSibling;
      else tbody.insertBefore(el, before); // a new row, or one whose place changed
    };
    for (const [key, w] of wanted) {
      let row = byKey.get(key);
      if (!row) byKey.set(key, row = workerRow());
      updateRow(row, w, opened);
      put(row.main);
      if (row.output) put(row.output);
    }
    placeOutput([...byKey.values()]);
  };
  /**
   * Calls in flight from a queue snapshot (by worker name), without reading the list again
   * where the names say which row is meant; a name on several rows (replicas), or not on the
   * page yet, is read again.
   */
  const showInFlight = (perWorker) => {
    const named = Map.groupBy(rows, (w) => w.name);
    for (const name of Object.keys(perWorker)) if (!named.has(name)) return refresh();
    for (const [name, ws] of named) {
      const n = perWorker[name] ?? 0;
      if (ws.length > 1) {
        if (ws.reduce((sum, w) => sum + (w.active_invocations ?? 0), 0) !== n) return refresh();
        continue;
      }
      ws[0].active_invocations = n;
      const row = byKey.get(rowKey(ws[0]));
      if (row) setInFlight(row, n);
    }
  };
  const refresh = throttle(load, 400);
  // A supervised worker can print thousands of lines a second: its tail is drawn a few
  // times a second, not once per line (once per line froze the tab for tens of seconds).
  const redraw = throttle(draw, 250);
  load();
  return {
    reload: load,
    onEvent(name, data) {
      if (name === "dropped" || (name === "engine" && data.type !== "triggers_changed")) refresh();
      if (name === "queues") {
        // A supervised worker's status, pid and restarts change without an engine change.
        if (rows.some((w) => w.supervisor)) refresh();
        else if (data.invocations) showInFlight(data.invocations.per_worker ?? {});
      }
      if (name === "log") {
        const row = rows.find((w) => w.supervisor && w.name === (data.worker ?? data.source));
        if (!row) return;
        row.tail.push(data.message);
        if (row.tail.length > TAIL) row.tail.splice(0, row.tail.length - TAIL);
        redraw();
        refresh(); // a supervised worker's lines often mean a change of status
      }
    },
  };
}

/** The line below the table that counts the CLI's own connections. */
function cliText(n) {
  const one = n === 1;
  return `${n} connection${one ? "" : "s"} of the engine CLI itself (engine logs -f, a command ` +
    `running) ${one ? "is" : "are"} not listed`;
}

/** Connected workers, with supervised ones joined by name or pid; supervised ones not connected too. */
function merge(workers, supervised) {
  const rows = workers.map((w) => ({ ...w }));
  for (const s of supervised) {
    const row = rows.find((w) =>
      w.kind !== "builtin" && (w.name === s.name || (s.pid && w.pid === s.pid))
    );
    const facts = {
      supervisor: s,
      status: s.status,
      restarts: s.restarts,
      tail: (s.tail ?? []).slice(-TAIL),
    };
    if (row) Object.assign(row, facts);
    else {
      rows.push({
        name: s.name,
        kind: "supervised",
        runtime: s.kind,
        pid: s.pid,
        function_count: s.function_count ?? 0,
        functions: s.functions ?? [],
        active_invocations: 0,
        description: s.error ?? s.path,
        ...facts,
      });
    }
  }
  const order = (w) => (w.kind === "builtin" ? 1 : 0);
  return rows.sort((a, b) => order(a) - order(b) || a.name.localeCompare(b.name));
}
