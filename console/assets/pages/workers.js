// Workers: who is connected, what they provide, and how busy they are.
import { api, badge, errorBox, fill, h, since, throttle, time } from "../ui.js";

export const title = "Workers";

const SUPERVISED = ["restarts", "exit_code", "output"];

export function mount(root) {
  const list = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  fill(
    root,
    h("h1", {}, "Workers"),
    h("p", { class: "sub" }, "Connected workers, their functions and calls in flight"),
    list,
  );
  let rows = [];
  const recent = new Map(); // worker name -> last log lines

  const load = async () => {
    try {
      rows = (await api("/workers")).workers;
      for (const w of rows.filter(isSupervised)) {
        if (!recent.has(w.name)) {
          const { logs } = await api(`/logs?worker=${encodeURIComponent(w.name)}&limit=5`);
          recent.set(w.name, logs);
        }
      }
      draw();
    } catch (e) {
      fill(list, errorBox(e));
    }
  };
  const draw = () => {
    if (rows.length === 0) {
      fill(list, h("div", { class: "empty" }, "No workers connected"));
      return;
    }
    rows.sort((
      a,
      b,
    ) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === "builtin" ? 1 : -1));
    fill(
      list,
      h(
        "table",
        { "data-testid": "workers" },
        h(
          "tr",
          {},
          ["Name", "Runtime", "SDK", "PID", "Connected", "Functions", "In flight", "Status"].map((
            c,
          ) => h("th", { class: c === "In flight" || c === "PID" ? "num" : "" }, c)),
        ),
        rows.map((w) => workerRows(w, recent.get(w.name))),
      ),
    );
  };
  const refresh = throttle(load, 400);
  load();
  return {
    onEvent(name, data) {
      if (name === "engine" || name === "queues") refresh();
      if (name === "log" && recent.has(data.worker ?? data.source)) {
        const lines = recent.get(data.worker ?? data.source);
        lines.push(data);
        if (lines.length > 5) lines.shift();
        draw();
      }
    },
  };
}

function isSupervised(w) {
  return SUPERVISED.some((k) => k in w);
}

function workerRows(w, recent) {
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
    h("td", { title: time(w.connected_at_ms) }, since(w.connected_at_ms)),
    h(
      "td",
      {},
      `${w.function_count}`,
      fns.length
        ? h(
          "details",
          {},
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
      "restarts" in w ? h("div", { class: "muted small" }, `restarts: ${w.restarts}`) : null,
    ),
  );
  if (!isSupervised(w)) return main;
  const lines = Array.isArray(w.output)
    ? w.output
    : (recent ?? []).map((l) => `${time(l.time)} ${l.message}`);
  return [
    main,
    h(
      "tr",
      {},
      h(
        "td",
        { colspan: 8 },
        h("div", { class: "muted small" }, "Recent output"),
        h("pre", { class: "output" }, lines.length ? lines.join("\n") : "(none yet)"),
      ),
    ),
  ];
}
