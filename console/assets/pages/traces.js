// Traces: recent traces; one opens as a waterfall of its spans, with its logs.
import {
  api,
  badge,
  dataView,
  duration,
  errorBox,
  fill,
  h,
  isoTime,
  json,
  longText,
  newest,
  stamp,
  throttle,
} from "../ui.js";

export const title = "Traces";

export function mount(root, ctx) {
  return ctx.rest[0] ? mountTrace(root, ctx.rest[0]) : mountList(root);
}

function mountList(root) {
  const list = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  fill(
    root,
    h("h1", {}, "Traces"),
    h("p", { class: "sub" }, "Recent traces, newest first; open one to see its spans"),
    list,
  );
  const reads = newest();
  const load = async () => {
    const fresh = reads();
    try {
      const { traces } = await api("/traces?limit=200");
      if (!fresh()) return;
      if (traces.length === 0) {
        fill(list, h("div", { class: "empty" }, "No traces yet"));
        return;
      }
      fill(
        list,
        h(
          "table",
          { "data-testid": "traces" },
          h(
            "tr",
            {},
            h("th", {}, "Started"),
            h("th", {}, "Root"),
            h("th", { class: "num" }, "Spans"),
            h("th", { class: "num" }, "Duration"),
            h("th", {}, "Status"),
            h("th", {}, "Trace id"),
          ),
          traces.map((t) =>
            h(
              "tr",
              { "data-trace": t.traceId },
              h("td", { title: isoTime(t.start) }, stamp(t.start)),
              h(
                "td",
                { class: "mono" },
                h("a", { href: `/traces/${encodeURIComponent(t.traceId)}` }, t.rootName),
              ),
              h("td", { class: "num" }, String(t.spanCount)),
              h("td", { class: "num" }, duration(t.durationMs)),
              h("td", {}, badge(t.status)),
              h("td", { class: "mono small muted" }, t.traceId),
            )
          ),
        ),
      );
    } catch (e) {
      if (fresh()) fill(list, errorBox(e));
    }
  };
  const refresh = throttle(load, 500);
  load();
  return {
    reload: load,
    onEvent(name) {
      if (name === "span" || name === "dropped") refresh();
    },
  };
}

function mountTrace(root, traceId) {
  const chart = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const detail = h("div");
  const logs = h("div");
  fill(
    root,
    h("p", { class: "small" }, h("a", { href: "/traces" }, "← all traces")),
    h("h1", {}, "Trace ", h("span", { class: "mono", style: "font-size: 15px" }, traceId)),
    chart,
    detail,
    h(
      "div",
      { class: "row", style: "margin-top: 16px" },
      h("h2", { class: "grow", style: "margin: 0" }, "Logs in this trace"),
      h("a", { href: `/logs?trace_id=${encodeURIComponent(traceId)}` }, "open in Logs"),
    ),
    logs,
  );
  let selected;
  const reads = newest();
  const load = async () => {
    const fresh = reads();
    try {
      const { spans } = await api(`/traces/${encodeURIComponent(traceId)}`);
      if (!fresh()) return;
      drawWaterfall(chart, detail, spans, selected, (s) => (selected = s.spanId));
      const entries = (await api(`/logs?trace_id=${encodeURIComponent(traceId)}&limit=200`)).logs;
      if (!fresh()) return;
      fill(
        logs,
        entries.length === 0 ? h("div", { class: "empty" }, "No logs carry this trace id") : h(
          "table",
          { class: "logs" },
          entries.map((e) =>
            h(
              "tr",
              {},
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
            )
          ),
        ),
      );
    } catch (e) {
      if (fresh()) fill(chart, errorBox(e));
    }
  };
  const refresh = throttle(load, 500);
  load();
  return {
    reload: load,
    onEvent(name, data) {
      if (name === "dropped" || ((name === "span" || name === "log") && data.traceId === traceId)) {
        refresh();
      }
    },
  };
}

/** Orders spans depth-first under their parents; spans whose parent is unknown are roots. */
export function treeOrder(spans) {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map();
  const roots = [];
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    if (s.parentSpanId && ids.has(s.parentSpanId) && s.parentSpanId !== s.spanId) {
      if (!children.has(s.parentSpanId)) children.set(s.parentSpanId, []);
      children.get(s.parentSpanId).push(s);
    } else roots.push(s);
  }
  const out = [];
  const visit = (s, depth) => {
    out.push({ span: s, depth });
    for (const c of children.get(s.spanId) ?? []) visit(c, depth + 1);
  };
  for (const r of roots) visit(r, 0);
  return out;
}

function drawWaterfall(chart, detail, spans, selected, onSelect) {
  if (spans.length === 0) {
    fill(
      chart,
      h("div", { class: "empty" }, "This trace has no spans (it may have left the store)"),
    );
    return;
  }
  const t0 = Math.min(...spans.map((s) => s.start));
  const t1 = Math.max(...spans.map((s) => s.start + s.durationMs));
  const total = Math.max(t1 - t0, 0.001);
  const status = spans.some((s) => s.status === "error") ? "error" : "ok";
  const rows = treeOrder(spans);
  const show = (s) => {
    onSelect(s);
    for (const el of chart.querySelectorAll(".wf-row")) {
      el.classList.toggle("selected", el.dataset.span === s.spanId);
    }
    fill(detail, spanDetail(s));
  };
  fill(
    chart,
    h(
      "p",
      { class: "sub" },
      badge(status),
      ` ${spans.length} spans · ${duration(total)} · started ${stamp(t0)}`,
    ),
    h(
      "div",
      { class: "waterfall", "data-testid": "waterfall" },
      h(
        "div",
        { class: "wf-head" },
        h("div", {}, "Span"),
        h("div", {}, "Timeline"),
        h("div", { style: "text-align: right" }, "Duration"),
      ),
      rows.map(({ span: s, depth }) => {
        const left = ((s.start - t0) / total) * 100;
        const width = Math.max((s.durationMs / total) * 100, 0.4);
        return h(
          "div",
          {
            class: `wf-row${s.spanId === selected ? " selected" : ""}`,
            "data-span": s.spanId,
            "data-name": s.name,
            onclick: () => show(s),
          },
          h(
            "div",
            { class: "wf-name", style: `padding-left: ${depth * 18}px`, title: s.name },
            depth ? "└ " : "",
            h("span", { class: "mono" }, s.name),
            h(
              "span",
              { class: "kind" },
              [s.kind, isAsync(s) ? "async" : "", s.worker].filter(Boolean).join(" · "),
            ),
          ),
          h(
            "div",
            { class: "wf-track" },
            h("div", {
              class: `wf-bar ${s.kind}${s.status === "error" ? " error" : ""}${
                isAsync(s) ? " async" : ""
              }`,
              style: `left: ${Math.min(left, 99.6)}%; width: ${width}%`,
            }),
          ),
          h("div", { class: "wf-dur" }, duration(s.durationMs)),
        );
      }),
    ),
  );
  const current = spans.find((s) => s.spanId === selected) ?? firstShown(rows);
  if (current.spanId !== rows[0].span.spanId) {
    for (const el of chart.querySelectorAll(".wf-row")) {
      el.classList.toggle("selected", el.dataset.span === current.spanId);
    }
  }
  fill(detail, spanDetail(current));
}

/**
 * The span a trace opens on: where a failed trace's error started (the deepest
 * failed span, whose error carries the function's message and stack), else the root.
 */
export function firstShown(rows) {
  let origin;
  for (const { span, depth } of rows) {
    if (span.status === "error" && (!origin || depth > origin.depth)) origin = { span, depth };
  }
  return (origin ?? rows[0]).span;
}

/**
 * Whether the span's call was one its caller did not wait for (a void call, a
 * state trigger's call, a queue delivery): it may start after its parent ended
 * or outlast it. The engine marks it with `engine.call.async`.
 */
export function isAsync(s) {
  return s.attributes?.["engine.call.async"] === true;
}

function spanDetail(s) {
  const fields = [
    ["Name", s.name],
    ["Kind", isAsync(s) ? `${s.kind} (async: the caller did not wait for it)` : s.kind],
    ["Function", s.functionId ?? "–"],
    ["Worker", s.worker ?? "–"],
    ["Start", `${new Date(s.start).toISOString()}`],
    ["Duration", duration(s.durationMs)],
    ["Status", badge(s.status)],
    ["Span id", s.spanId],
    ["Parent", s.parentSpanId ?? "–"],
  ];
  if (s.error) {
    fields.push([
      "Error",
      h("span", { class: "error-text" }, `${s.error.code}: ${s.error.message}`),
    ]);
    if (s.error.stacktrace) {
      fields.push([
        "Stack",
        h("pre", { class: "stack", "data-testid": "stack" }, s.error.stacktrace),
      ]);
    }
  }
  if (s.functionId) {
    const q = new URLSearchParams({ function_id: s.functionId, level: "error" });
    fields.push(["Errors", h("a", { href: `/logs?${q}` }, `error logs of ${s.functionId}`)]);
  }
  return h(
    "div",
    { class: "panel", "data-testid": "span-detail" },
    h(
      "dl",
      { class: "kv" },
      fields.map(([k, v]) => [h("dt", {}, k), h("dd", { class: "mono" }, v)]),
    ),
    s.attributes && Object.keys(s.attributes).length
      ? [h("h2", {}, "Attributes"), h("pre", {}, json(s.attributes))]
      : null,
  );
}
