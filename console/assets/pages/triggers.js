// Triggers: every trigger by type with its config; HTTP triggers can be tried from a form.
import {
  api,
  badge,
  duration,
  errorBox,
  fill,
  h,
  json,
  longText,
  newest,
  parseJson,
  short,
  throttle,
  tick,
} from "../ui.js";

export const title = "Triggers";

export function mount(root, ctx) {
  const tabs = h("div", { class: "tabs" });
  const internal = h("input", { type: "checkbox", checked: ctx.query.get("internal") === "1" });
  const list = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  // What the type shown is and which worker provides it.
  const about = h("div");
  const form = h("div");
  fill(
    root,
    h("h1", {}, "Triggers"),
    h("p", { class: "sub" }, "Registered triggers by type; send a request to an HTTP route"),
    h("div", { class: "row" }, tabs, h("label", { class: "check" }, internal, "show internal")),
    about,
    list,
    form,
  );
  let data = { triggers: [], types: [] };
  // The type shown and "show internal" live in the URL (?type=&internal=1): a reload keeps them.
  let tab = ctx.query.get("type") ?? "all";
  const remember = () => {
    const q = new URLSearchParams();
    if (tab !== "all") q.set("type", tab);
    if (internal.checked) q.set("internal", "1");
    history.replaceState({}, "", `/triggers${q.size ? `?${q}` : ""}`);
  };

  // One row per trigger, kept by id: a change (every worker that connects or leaves may
  // bring one) touches the rows that changed; the table was built anew each time, and the
  // focus on a row's Try button went with it.
  const byId = new Map(); // trigger id -> {tr, key}
  const tbody = h("tbody");
  const table = h(
    "table",
    { "data-testid": "triggers" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Type", "Route / config", "Function", "Worker", "Status", ""].map((c) => h("th", {}, c)),
      ),
    ),
    tbody,
  );
  // The tab buttons, kept by type id like the rows: a focused tab keeps the focus.
  const tabOf = new Map(); // type id -> its button
  const showTabs = (wanted, typeOf) => {
    const ids = new Set(wanted.map(([id]) => id));
    for (const [id, button] of tabOf) {
      if (ids.has(id)) continue;
      button.remove();
      tabOf.delete(id);
    }
    let before = tabs.firstChild;
    for (const [id, n] of wanted) {
      let button = tabOf.get(id);
      if (!button) {
        button = h("button", {
          "data-type": id,
          onclick: () => {
            tab = id;
            remember();
            draw();
          },
        });
        tabOf.set(id, button);
      }
      const on = tab === id ? "on" : "";
      if (button.className !== on) button.className = on;
      const title = typeOf(id)?.description ?? "";
      if (button.title !== title) button.title = title;
      const text = `${id} (${n})`;
      if (button.textContent !== text) button.textContent = text;
      if (button === before) before = button.nextSibling;
      else tabs.insertBefore(button, before);
    }
  };
  const draw = () => {
    const counts = {};
    const triggers = data.triggers.filter((t) => internal.checked || !t.internal);
    for (const t of triggers) counts[t.trigger_type] = (counts[t.trigger_type] ?? 0) + 1;
    const types = [...new Set([...data.types.map((t) => t.id), ...Object.keys(counts)])].sort();
    const typeOf = (id) => data.types.find((t) => t.id === id);
    showTabs([["all", triggers.length], ...types.map((t) => [t, counts[t] ?? 0])], typeOf);
    const shown = triggers.filter((t) => tab === "all" || t.trigger_type === tab);
    // Drawn again only when the type or what it says changed: a schema the operator opened
    // stays open while triggers come and go.
    const type = typeOf(tab);
    const aboutKey = JSON.stringify([tab, type ?? null]);
    if (about.dataset.key !== aboutKey) {
      about.dataset.key = aboutKey;
      fill(about, tab === "all" ? null : typeView(tab, type));
    }
    if (shown.length === 0) {
      fill(
        list,
        h("div", { class: "empty" }, tab === "all" ? "No triggers" : "No triggers of this type"),
      );
      return;
    }
    if (list.firstChild !== table) fill(list, table);
    // Gone or filtered out first: removed in place, they do not move the rows after them.
    const listed = new Set(data.triggers.map((t) => t.id));
    const wanted = new Set(shown.map((t) => t.id));
    for (const [id, row] of byId) {
      if (!wanted.has(id)) row.tr.remove();
      if (!listed.has(id)) byId.delete(id);
    }
    let before = tbody.firstChild;
    for (const t of shown) {
      let row = byId.get(t.id);
      if (!row) byId.set(t.id, row = { tr: h("tr", { "data-trigger": t.id }), key: "" });
      const key = JSON.stringify([
        t.trigger_type,
        t.config,
        t.config_summary,
        t.function_id,
        t.worker_name,
        t.status,
        t.error,
      ]);
      if (key !== row.key) {
        row.key = key;
        fill(row.tr, triggerCells(t, form));
      }
      if (row.tr === before) before = row.tr.nextSibling;
      else tbody.insertBefore(row.tr, before);
    }
  };
  const reads = newest();
  const load = async () => {
    const fresh = reads();
    try {
      const answer = await api("/triggers");
      if (!fresh()) return;
      data = answer;
      draw();
    } catch (e) {
      if (fresh()) fill(list, errorBox(e));
    }
  };
  internal.onchange = () => {
    remember();
    draw();
  };
  // Workers coming and going bring a change each: read at most every 400 ms.
  const refresh = throttle(load, 400);
  load();
  return {
    reload: load,
    onEvent(name, event) {
      // Lost events (the browser fell behind) may have held a change: read again.
      if (name === "dropped" || (name === "engine" && event.type === "triggers_changed")) {
        refresh();
      }
    },
  };
}

/** The JSON Schemas a trigger type may declare, with what each describes. */
const FORMATS = [
  ["trigger_request_format", "Trigger config"],
  ["call_request_format", "Call payload"],
  ["call_response_format", "Call response"],
];

/**
 * What a trigger type is, which worker provides it, and the JSON Schemas it declared (each
 * collapsed, as indented JSON): what a trigger's config must hold and what its function gets.
 */
function typeView(id, type) {
  if (!type) {
    return h(
      "p",
      { class: "muted small", "data-testid": "trigger-type" },
      `No worker provides ${id} now: its triggers wait for one`,
    );
  }
  const schemas = FORMATS.filter(([field]) => type[field] !== undefined && type[field] !== null);
  return [
    h(
      "p",
      { class: "muted small", "data-testid": "trigger-type" },
      `${type.description} · provided by ${type.worker_name}`,
    ),
    schemas.length === 0
      ? h("p", { class: "muted small", "data-testid": "no-schemas" }, "No schemas declared")
      : h(
        "div",
        { class: "schemas" },
        schemas.map(([field, what]) => {
          const text = json(type[field]);
          return h(
            "details",
            { "data-schema": field },
            h("summary", { class: "muted small" }, `${what} schema (${field})`),
            h("pre", { class: "schema" }, text.length > 20_000 ? longText(text) : text),
          );
        }),
      ),
  ];
}

/**
 * A trigger's config: an HTTP route as method and path, any other as the engine's few-word
 * `config_summary` (`scope "orders", key "42"`, `level warn`) that opens to the whole config
 * (unless `whole` is false: the summary alone, for a line of text).
 */
export function configView(t, whole = true) {
  const http = t.trigger_type === "http" ? httpRoute(t.config) : undefined;
  if (http) return [badge(http.method, "method"), " ", http.path];
  const summary = t.config_summary ?? short(t.config ?? {}, 90);
  const config = t.config ?? {};
  if (!whole || typeof config !== "object" || Object.keys(config).length === 0) {
    return summary || "–";
  }
  return h(
    "details",
    { class: "config" },
    h("summary", {}, summary),
    h("pre", { class: "schema" }, json(config)),
  );
}

/** The cells of a trigger's row; an HTTP trigger's has a button that fills the request form. */
function triggerCells(t, form) {
  const http = t.trigger_type === "http" ? httpRoute(t.config) : undefined;
  return [
    h("td", {}, badge(t.trigger_type, "")),
    h("td", { class: "mono" }, configView(t)),
    h("td", { class: "mono" }, t.function_id),
    h("td", {}, t.worker_name),
    h(
      "td",
      {},
      badge(t.status),
      t.error ? h("div", { class: "error-text small" }, t.error) : null,
    ),
    h(
      "td",
      {},
      http ? h("button", { class: "plain", onclick: () => tryRoute(form, http) }, "Try") : null,
    ),
  ];
}

/** An HTTP trigger's method and path, from its config. */
export function httpRoute(config) {
  const path = config?.api_path ?? "/";
  return {
    method: String(config?.http_method ?? "GET").toUpperCase(),
    path: path.startsWith("/") ? path : `/${path}`,
  };
}

function tryRoute(root, route) {
  const method = h(
    "select",
    { name: "method" },
    ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"].map((m) =>
      h("option", { value: m, selected: m === route.method }, m)
    ),
  );
  const path = h("input", { name: "path", value: route.path, class: "grow mono" });
  const headers = h(
    "textarea",
    { name: "headers", "aria-label": "Headers" },
    '{\n  "content-type": "application/json"\n}',
  );
  const body = h(
    "textarea",
    { name: "body", "aria-label": "Body" },
    route.method === "GET" ? "" : "{}",
  );
  const out = h("div");
  const send = h("button", {}, "Send request");
  send.onclick = async () => {
    send.disabled = true;
    // The previous response goes: left on screen it would read as this request's.
    const started = Date.now();
    fill(
      out,
      tick(
        "div",
        { class: "result muted", "data-testid": "http-pending" },
        (now) => `Sending ${method.value} ${path.value}… (${duration(now - started)})`,
      ),
    );
    try {
      const parsed = parseJson(headers.value, "The headers field") ?? {};
      const r = await api("/http", {
        method: "POST",
        body: { method: method.value, path: path.value, headers: parsed, body: body.value },
      });
      if (r.error) throw new Error(r.error.message);
      let text = r.body;
      try {
        text = json(JSON.parse(r.body));
      } catch { /* not JSON: shown as is */ }
      fill(
        out,
        h(
          "div",
          { class: `result ${r.status < 400 ? "ok" : "error"}`, "data-testid": "http-result" },
          h("div", { class: "meta" }, `HTTP ${r.status} · ${duration(r.duration_ms)}`),
          h(
            "details",
            {},
            h("summary", { class: "small muted" }, "headers"),
            h("pre", {}, r.headers.map(([k, v]) => `${k}: ${v}`).join("\n")),
          ),
          // A huge body shows its start and the rest on request.
          text === ""
            ? h("div", { class: "muted small" }, "(empty body)")
            : h("pre", {}, longText(text)),
        ),
      );
    } catch (e) {
      fill(out, errorBox(e));
    } finally {
      send.disabled = false;
    }
  };
  fill(
    root,
    h(
      "div",
      { class: "panel", "data-testid": "http-form" },
      h("h2", { style: "margin-top: 0" }, "Send a request"),
      h("div", { class: "row" }, method, path),
      h(
        "div",
        { class: "split", style: "margin-top: 8px" },
        h("div", {}, h("div", { class: "muted small" }, "Headers (JSON)"), headers),
        h("div", {}, h("div", { class: "muted small" }, "Body"), body),
      ),
      h("div", { class: "row", style: "margin-top: 8px" }, send),
      out,
    ),
  );
  path.focus();
}
