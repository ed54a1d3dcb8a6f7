// Workers: who is connected, what they provide, and how busy they are; supervised
// workers (started from the config file) also with status, restarts and recent output.
import {
  api,
  badge,
  duration,
  errorBox,
  fill,
  h,
  newest,
  since,
  throttle,
  tick,
  time,
} from "../ui.js";

export const title = "Workers";

const TAIL = 8;
const COLUMNS = ["Name", "Runtime", "SDK", "PID", "Connected", "Functions", "In flight", "Status"];

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
  // Function lists the operator opened stay open when the table is drawn again (it is, on
  // every change and every queue snapshot), by worker name.
  const opened = new Set();
  // Where the operator scrolled each worker's output, by name: at the end (no entry) it
  // follows new lines; scrolled up it stays put across redraws, which come with every
  // change and queue snapshot.
  const scrolled = new Map();

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
    if (rows.length === 0) {
      fill(list, h("div", { class: "empty" }, "No workers connected"), cliLine(cliConnections));
      return;
    }
    for (const pre of list.querySelectorAll("tr[data-output] pre.output")) {
      // Only the operator's own scrolling changes where a box stays: its end can move between
      // draws without them (a column's text changes, the window narrows), which says nothing.
      if (pre.scrollTop === pre.drawnTop) continue;
      const name = pre.closest("tr").dataset.output;
      const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 2;
      if (atEnd) scrolled.delete(name);
      else scrolled.set(name, pre.scrollTop);
    }
    fill(
      list,
      h(
        "table",
        { class: "workers", "data-testid": "workers" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            COLUMNS.map((c) =>
              h("th", { class: c === "In flight" || c === "PID" ? "num" : "" }, c)
            ),
          ),
        ),
        h("tbody", {}, rows.map((w) => workerRows(w, opened))),
      ),
      cliLine(cliConnections),
    );
    for (const pre of list.querySelectorAll("tr[data-output] pre.output")) {
      // The newest lines are the ones that tell why it stopped: show the end, unless the
      // operator scrolled up to read.
      pre.scrollTop = scrolled.get(pre.closest("tr").dataset.output) ?? pre.scrollHeight;
      pre.drawnTop = pre.scrollTop;
    }
    // The end may move once the new table is laid out for good: a box that follows its output
    // goes there again, unless the operator scrolled it meanwhile.
    requestAnimationFrame(() => {
      for (const pre of list.querySelectorAll("tr[data-output] pre.output")) {
        if (scrolled.has(pre.closest("tr").dataset.output) || pre.scrollTop !== pre.drawnTop) {
          continue;
        }
        pre.scrollTop = pre.scrollHeight;
        pre.drawnTop = pre.scrollTop;
      }
    });
  };
  const refresh = throttle(load, 400);
  // A supervised worker can print thousands of lines a second: its tail is drawn a few
  // times a second, not once per line (once per line froze the tab for tens of seconds).
  const redraw = throttle(draw, 250);
  load();
  return {
    reload: load,
    onEvent(name, data) {
      if (name === "engine" || name === "queues" || name === "dropped") refresh();
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

/** The line below the table that counts the CLI's own connections, or nothing without any. */
function cliLine(n) {
  if (n === 0) return null;
  const one = n === 1;
  return h(
    "p",
    { class: "muted small", "data-testid": "cli-connections" },
    `${n} connection${one ? "" : "s"} of the engine CLI itself (engine logs -f, a command ` +
      `running) ${one ? "is" : "are"} not listed`,
  );
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

function workerRows(w, opened) {
  const fns = w.functions ?? [];
  const status = w.status ?? "connected";
  const main = h(
    "tr",
    { "data-worker": w.name },
    h(
      "td",
      {},
      h("strong", {}, w.name),
      w.description ? h("div", { class: "muted small" }, w.description) : null,
    ),
    h(
      "td",
      {},
      [w.runtime, w.version].filter(Boolean).join(" ") || "–",
      w.os ? h("div", { class: "muted small" }, w.os) : null,
    ),
    h("td", {}, w.sdk ?? "–"),
    h("td", { class: "num mono" }, w.pid ?? "–"),
    w.connected_at_ms
      ? tick("td", { title: time(w.connected_at_ms) }, () => since(w.connected_at_ms))
      : h("td", {}, "not connected"),
    h(
      "td",
      {},
      `${w.function_count}`,
      fns.length
        ? h(
          "details",
          {
            open: opened.has(w.name),
            ontoggle: (e) => {
              if (e.target.open) opened.add(w.name);
              else opened.delete(w.name);
            },
          },
          h("summary", { class: "muted small" }, "list"),
          h("div", { class: "mono small" }, fns.map((f) => h("div", {}, f))),
        )
        : null,
    ),
    h("td", { class: "num" }, String(w.active_invocations ?? 0)),
    h(
      "td",
      {},
      badge(status),
      w.supervisor?.crash_loop ? [" ", badge("crash loop", "error")] : null,
      w.supervisor ? h("div", { class: "muted small" }, `restarts: ${w.restarts}`) : null,
    ),
  );
  // A narrow window stacks the cells, each named by its column (style.css).
  [...main.children].forEach((td, i) => td.setAttribute("data-label", COLUMNS[i]));
  if (!w.supervisor) return main;
  const facts = supervisionFacts(w.supervisor);
  const output = h("pre", { class: "output" }, w.tail.length ? w.tail.join("\n") : "(none yet)");
  return [
    main,
    h(
      "tr",
      { "data-output": w.name },
      h(
        "td",
        { colspan: 8 },
        facts.length
          ? h(
            "div",
            { class: "small", "data-testid": "supervision" },
            facts.map((f) =>
              typeof f.text === "function"
                ? tick("div", f.attrs, f.text)
                : h("div", f.attrs, f.text)
            ),
          )
          : null,
        h("div", { class: "muted small" }, "Recent output"),
        output,
      ),
    ),
  ];
}

/**
 * Why a supervised worker is not running, and what happens next, in words; a text that
 * depends on the time is a function of now, kept current while shown.
 */
export function supervisionFacts(s) {
  const facts = [];
  if (s.error) facts.push({ attrs: { class: "error-text" }, text: s.error });
  if (s.crash_loop) {
    facts.push({
      attrs: { class: "error-text" },
      text: "Crash loop: it keeps exiting soon after it starts",
    });
  }
  const exit = s.last_exit;
  if (exit) {
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    facts.push({
      attrs: { class: exit.code === 0 && !exit.signal ? "muted" : "error-text" },
      text: () =>
        `Last exit: ${how} after ${duration(exit.uptime_ms)} of running, ${since(exit.at_ms)}`,
    });
  }
  if (s.next_start_at_ms) {
    const at = s.next_start_at_ms;
    facts.push({
      attrs: { class: "muted" },
      // Counts down while the page is open; past zero the restart is due (or under way).
      text: (now) =>
        at > now
          ? `Restarting in ${Math.ceil((at - now) / 1000)} s (at ${time(at)})`
          : `Restarting now (due at ${time(at)})`,
    });
  }
  if (s.install_log && s.error) {
    facts.push({ attrs: { class: "muted" }, text: `Install log: ${s.install_log}` });
  }
  return facts;
}
