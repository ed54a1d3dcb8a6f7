// The Workers page's rows, kept by worker and updated cell by cell. The page reads the list
// again on every change; with hundreds of workers coming and going, a table built anew each
// time was thousands of new elements, and it took the focus and the operator's place with it.
import { badge, duration, fill, h, since, stamp, tick, time } from "../ui.js";

export const COLUMNS = [
  "Name",
  "Runtime",
  "SDK",
  "PID",
  "Connected",
  "Functions",
  "In flight",
  "Status",
];
const CELLS = ["name", "runtime", "sdk", "pid", "connected", "functions", "inFlight", "status"];

/**
 * Which row shows a worker: a supervised one by its name (it keeps its row, and its output,
 * across restarts), a connection by its id (several connections may share a name).
 */
export function rowKey(w) {
  return w.supervisor ? `supervised:${w.name}` : `id:${w.id ?? w.name}`;
}

/** The elements of one worker, empty until {@linkcode updateRow} fills them. */
export function workerRow() {
  const cells = {};
  for (const [i, name] of CELLS.entries()) {
    // A narrow window stacks the cells, each named by its column (style.css).
    cells[name] = h("td", { "data-label": COLUMNS[i] });
  }
  cells.pid.className = "num mono";
  cells.inFlight.className = "num";
  const count = document.createTextNode("");
  cells.functions.append(count);
  return {
    main: h("tr", {}, Object.values(cells)),
    cells,
    count,
    /** What each cell shows now, as JSON: a cell is touched only when this changes. */
    shown: {},
    details: undefined,
    /** The supervised worker's output row, its facts and its box. */
    output: undefined,
    facts: undefined,
    pre: undefined,
    /** Whether the output box shows its newest lines (until the operator scrolls up). */
    follow: true,
  };
}

/** Brings the row of `w` up to date, touching only the cells whose text changed. */
export function updateRow(row, w, opened) {
  const paint = (cell, value, draw) => {
    const key = JSON.stringify(value);
    if (row.shown[cell] === key) return;
    row.shown[cell] = key;
    draw(row.cells[cell]);
  };
  if (row.main.dataset.worker !== w.name) row.main.dataset.worker = w.name;
  const project = w.telemetry?.project_name;
  paint("name", [w.name, w.description, project], (td) =>
    fill(
      td,
      h("strong", {}, w.name),
      w.description ? h("div", { class: "muted small" }, w.description) : null,
      project
        ? h("div", { class: "muted small", "data-testid": "project" }, `project ${project}`)
        : null,
    ));
  const about = aboutRuntime(w);
  paint("runtime", [w.runtime, w.version, w.os, about], (td) =>
    fill(
      td,
      [w.runtime, w.version].filter(Boolean).join(" ") || "–",
      w.os ? h("div", { class: "muted small" }, w.os) : null,
      about ? h("div", { class: "muted small", "data-testid": "runtime-about" }, about) : null,
    ));
  paint("sdk", w.sdk, (td) => td.textContent = w.sdk ?? "–");
  paint("pid", w.pid, (td) => td.textContent = w.pid ?? "–");
  paint("connected", w.connected_at_ms, (td) => {
    if (!w.connected_at_ms) {
      td.removeAttribute("title");
      fill(td, "not connected");
      return;
    }
    td.title = stamp(w.connected_at_ms);
    fill(td, tick("span", {}, () => since(w.connected_at_ms)));
  });
  paint("functions", [w.function_count, w.functions], () => showFunctions(row, w, opened));
  setInFlight(row, w.active_invocations ?? 0);
  paint(
    "status",
    [w.status, w.supervisor?.crash_loop, w.supervisor ? w.restarts : null],
    (td) =>
      fill(
        td,
        badge(w.status ?? "connected"),
        w.supervisor?.crash_loop ? [" ", badge("crash loop", "error")] : null,
        w.supervisor ? h("div", { class: "muted small" }, `restarts: ${w.restarts}`) : null,
      ),
  );
  if (w.supervisor) showSupervision(row, w);
  else if (row.output) {
    row.output.remove();
    row.output = row.facts = row.pre = undefined;
  }
}

/**
 * What a worker said of itself beyond its runtime, where it said it: the framework and
 * language of its telemetry (the npm iii-sdk sends them) and its isolation
 * (`$III_ISOLATION`), each named: "framework iii-node · language en-US · isolation docker".
 */
export function aboutRuntime(w) {
  const t = w.telemetry ?? {};
  return [
    ["framework", t.framework],
    ["language", t.language],
    ["isolation", w.isolation],
  ].filter(([, v]) => typeof v === "string" && v !== "").map(([k, v]) => `${k} ${v}`).join(" · ");
}

/** The calls in flight of a row, touched only when the count changed. */
export function setInFlight(row, n) {
  const key = String(n);
  if (row.shown.inFlight === key) return;
  row.shown.inFlight = key;
  row.cells.inFlight.textContent = key;
}

/** The function count and, on request, the list: the list keeps its element (and so its state). */
function showFunctions(row, w, opened) {
  const fns = w.functions ?? [];
  row.count.textContent = `${w.function_count}`;
  if (fns.length === 0) {
    row.details?.remove();
    row.details = undefined;
    return;
  }
  if (!row.details) {
    row.details = h(
      "details",
      {
        open: opened.has(w.name),
        ontoggle: (e) => {
          const name = row.main.dataset.worker;
          if (e.target.open) opened.add(name);
          else opened.delete(name);
        },
      },
      h("summary", { class: "muted small" }, "list"),
      h("div", { class: "mono small" }),
    );
    row.cells.functions.append(row.details);
  }
  fill(row.details.lastChild, fns.map((f) => h("div", {}, f)));
}

/** The row below a supervised worker: why it is not running, what comes next, its output. */
function showSupervision(row, w) {
  if (!row.output) {
    row.facts = h("div", { class: "small", "data-testid": "supervision" });
    row.pre = h("pre", { class: "output" });
    row.output = h(
      "tr",
      {},
      h(
        "td",
        { colspan: COLUMNS.length },
        row.facts,
        h("div", { class: "muted small" }, "Recent output"),
        row.pre,
      ),
    );
  }
  if (row.output.dataset.output !== w.name) row.output.dataset.output = w.name;
  const { tail: _, ...facts } = w.supervisor;
  const key = JSON.stringify(facts);
  if (row.shown.facts !== key) {
    row.shown.facts = key;
    const shown = supervisionFacts(w.supervisor);
    row.facts.hidden = shown.length === 0;
    fill(
      row.facts,
      shown.map((f) =>
        typeof f.text === "function" ? tick("div", f.attrs, f.text) : h("div", f.attrs, f.text)
      ),
    );
  }
  const text = w.tail.length ? w.tail.join("\n") : "(none yet)";
  if (row.pre.textContent !== text) row.pre.textContent = text;
}

const atEnd = (pre) => pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 2;

/**
 * Before the rows change: a box the operator scrolled since it was last placed follows new
 * lines only if they scrolled it to its end. Only their own scrolling counts: the end can move
 * between draws without it (a column's text changes, the window narrows), which says nothing.
 */
export function noteScrolling(rows) {
  for (const row of rows) {
    const pre = row.pre;
    if (pre?.isConnected && pre.drawnTop !== undefined && pre.scrollTop !== pre.drawnTop) {
      row.follow = atEnd(pre);
    }
  }
}

/**
 * After the rows changed: a box that follows shows its newest lines (the ones that tell why
 * a worker stopped); one the operator scrolled up stays where it is.
 */
export function placeOutput(rows) {
  for (const row of rows) {
    const pre = row.pre;
    if (!pre?.isConnected) continue;
    if (row.follow) pre.scrollTop = pre.scrollHeight;
    pre.drawnTop = pre.scrollTop;
  }
  // The end may move once the table is laid out for good: a box that follows goes there
  // again, unless the operator scrolled it meanwhile.
  requestAnimationFrame(() => {
    for (const row of rows) {
      const pre = row.pre;
      if (!pre?.isConnected || !row.follow || pre.scrollTop !== pre.drawnTop) continue;
      pre.scrollTop = pre.scrollHeight;
      pre.drawnTop = pre.scrollTop;
    }
  });
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
