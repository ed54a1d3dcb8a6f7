// Logs: the engine's one log, live, with filters; a trace id leads to its trace.
import {
  api,
  badge,
  dataView,
  errorBox,
  fill,
  h,
  isoTime,
  longText,
  newest,
  stamp,
} from "../ui.js";

export const title = "Logs";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 };
const MAX_ROWS = 1000;
const FLASH_MAX = 50;

export function mount(root, ctx) {
  const q = ctx.query;
  const level = h(
    "select",
    { name: "level", "aria-label": "Level" },
    h("option", { value: "" }, "all levels"),
    Object.keys(LEVELS).map((l) =>
      h("option", { value: l, selected: q.get("level") === l }, `${l}+`)
    ),
  );
  const worker = h("input", {
    name: "worker",
    placeholder: "worker",
    "aria-label": "Worker",
    value: q.get("worker") ?? "",
  });
  const fn = h("input", {
    name: "function",
    placeholder: "function",
    "aria-label": "Function id",
    value: q.get("function_id") ?? "",
  });
  const text = h("input", {
    name: "text",
    type: "search",
    placeholder: "search text",
    "aria-label": "Search text",
    class: "grow",
    value: q.get("text") ?? "",
  });
  const trace = h("input", {
    name: "trace",
    placeholder: "trace id",
    "aria-label": "Trace id",
    class: "mono",
    value: q.get("trace_id") ?? "",
  });
  const paused = h("input", { type: "checkbox" });
  const status = h("span", { class: "muted small" });
  const body = h("tbody");
  const table = h(
    "table",
    { class: "logs", "data-testid": "logs" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Time", "Level", "Source", "Function", "Message", "Trace"].map((c) => h("th", {}, c)),
      ),
    ),
    body,
  );
  fill(
    root,
    h("h1", {}, "Logs"),
    h(
      "p",
      { class: "sub" },
      "Engine events, worker Logger calls, worker output and HTTP warnings, live",
    ),
    h(
      "div",
      { class: "row" },
      level,
      worker,
      fn,
      trace,
      text,
      h("label", { class: "check" }, paused, "pause"),
    ),
    h("div", { class: "row", style: "margin: 8px 0" }, status),
    table,
  );
  // Live entries wait here and go into the table together, a few times a second: one
  // change of the page per batch, not one per entry (thousands a second froze the tab).
  let pending = [];
  let flushTimer;
  let dropped = 0;
  const showStatus = () => {
    const n = body.children.length;
    status.textContent = `${n} ${n === 1 ? "entry" : "entries"}${
      n >= MAX_ROWS ? ` (the newest ${MAX_ROWS})` : ""
    }${dropped ? ` · ${dropped} live events dropped: the browser fell behind` : ""}`;
  };

  const filter = () => ({
    level: level.value,
    worker: worker.value.trim(),
    function_id: fn.value.trim(),
    trace_id: trace.value.trim(),
    text: text.value.trim(),
  });
  const matches = (e, f) => {
    if (f.level && LEVELS[e.level] < LEVELS[f.level]) return false;
    if (f.worker && e.worker !== f.worker && e.source !== f.worker) return false;
    if (f.function_id && e.function !== f.function_id) return false;
    if (f.trace_id && e.traceId !== f.trace_id) return false;
    if (f.text) {
      const hay = `${e.message} ${e.data === undefined ? "" : JSON.stringify(e.data)}`
        .toLowerCase();
      if (!hay.includes(f.text.toLowerCase())) return false;
    }
    return true;
  };
  const row = (e, fresh) =>
    h(
      "tr",
      { class: fresh ? "new" : "" },
      h("td", { title: isoTime(e.time) }, stamp(e.time)),
      h("td", {}, badge(e.level)),
      h("td", {}, e.worker ?? e.source),
      h("td", {}, e.function ?? ""),
      h(
        "td",
        { class: "msg" },
        longText(e.message),
        dataView(e.data),
      ),
      h(
        "td",
        {},
        e.traceId
          ? h(
            "a",
            { href: `/traces/${encodeURIComponent(e.traceId)}`, title: e.traceId },
            e.traceId.slice(0, 8),
          )
          : "",
      ),
    );
  // A read of the log and the live feed overlap: entries written before the engine answered
  // the read may arrive live after it. The live stream repeats the end of what was read, in
  // order, then goes on with new entries: those repeated are counted here by content (entries
  // have no id) and skipped, until the first live entry that is new.
  let repeated; // Map: entry key -> how many of the read entries may still come live
  let reading = false;
  const keyOf = (e) =>
    JSON.stringify([
      e.time,
      e.level,
      e.source,
      e.worker,
      e.function,
      e.traceId,
      e.spanId,
      e.message,
    ]);
  const unseen = (entries) =>
    entries.filter((e) => {
      const n = repeated?.get(keyOf(e));
      if (!n) {
        repeated = undefined;
        return true;
      }
      repeated.set(keyOf(e), n - 1);
      return false;
    });
  const reads = newest();
  const load = async () => {
    const fresh = reads();
    // What arrived live so far is in the log the read answers from.
    pending = [];
    clearTimeout(flushTimer);
    flushTimer = undefined;
    reading = true;
    const f = filter();
    const shown = new URLSearchParams();
    for (const [k, v] of Object.entries(f)) if (v) shown.set(k, v);
    history.replaceState({}, "", `/logs${shown.size ? `?${shown}` : ""}`);
    const params = new URLSearchParams(shown);
    params.set("limit", String(MAX_ROWS));
    try {
      const { logs } = await api(`/logs?${params}`);
      if (!fresh()) return;
      repeated = new Map();
      for (const e of logs) repeated.set(keyOf(e), (repeated.get(keyOf(e)) ?? 0) + 1);
      fill(body, logs.reverse().map((e) => row(e, false)));
      showStatus();
    } catch (e) {
      if (!fresh()) return;
      repeated = undefined;
      fill(body, h("tr", {}, h("td", { colspan: 6 }, errorBox(e))));
    }
    reading = false;
    if (pending.length) flushTimer ??= setTimeout(flush, 0);
  };
  let debounce;
  for (const input of [worker, fn, text, trace]) {
    input.oninput = () => {
      clearTimeout(debounce);
      debounce = setTimeout(load, 250);
    };
  }
  level.onchange = load;
  // What arrived while paused was not kept: resuming reads the log again.
  paused.onchange = () => {
    if (!paused.checked) load();
  };
  const flush = () => {
    flushTimer = undefined;
    const batch = unseen(pending).slice(-MAX_ROWS).reverse();
    pending = [];
    // Flashing new rows helps to spot a few; a thousand flashing at once only costs frames.
    const flash = batch.length <= FLASH_MAX;
    body.prepend(...batch.map((e) => row(e, flash)));
    let extra = body.children.length - MAX_ROWS;
    while (extra-- > 0) body.lastChild.remove();
    showStatus();
  };
  load();
  return {
    reload: load,
    onEvent(name, data) {
      if (name === "dropped") {
        dropped += data.count;
        showStatus();
      }
      if (name !== "log" || paused.checked || !matches(data, filter())) return;
      pending.push(data);
      if (pending.length > MAX_ROWS) pending.splice(0, pending.length - MAX_ROWS);
      // Kept for the answer of a read under way (what it holds is skipped then).
      if (!reading) flushTimer ??= setTimeout(flush, 200);
    },
    unmount() {
      clearTimeout(debounce);
      clearTimeout(flushTimer);
    },
  };
}
