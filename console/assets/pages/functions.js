// Functions: every function with its workers and replicas; invoke one with a JSON payload.
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
  throttle,
  tick,
} from "../ui.js";
import { configView } from "./triggers.js";

export const title = "Functions";

export function mount(root, ctx) {
  // The filter, "show internal" and the selected function live in the URL (?q=&internal=1&fn=),
  // so a reload or a shared link opens the same view.
  const search = h("input", {
    type: "search",
    placeholder: "Filter by id",
    "aria-label": "Filter functions by id",
    class: "grow",
    value: ctx.query.get("q") ?? "",
  });
  const internal = h("input", { type: "checkbox", checked: ctx.query.get("internal") === "1" });
  const list = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  const panel = h("div");
  // The list takes the whole width until a function is selected.
  const layout = h("div", { style: "margin-top: 12px" }, list, panel);
  fill(
    root,
    h("h1", {}, "Functions"),
    h("p", { class: "sub" }, "Every registered function; select one to invoke it"),
    h("div", { class: "row" }, search, h("label", { class: "check" }, internal, "show internal")),
    layout,
  );
  let rows = [];
  let selected = ctx.query.get("fn") ?? undefined;
  const remember = () => {
    const q = new URLSearchParams();
    if (search.value.trim()) q.set("q", search.value.trim());
    if (internal.checked) q.set("internal", "1");
    if (selected) q.set("fn", selected);
    history.replaceState({}, "", `/functions${q.size ? `?${q}` : ""}`);
  };

  // One row per function, kept by id: a change updates the cells that changed, and the
  // calls in flight come from the queue snapshots (about once a second under traffic)
  // without reading the list again (with 1,000 functions, a rebuild each time was
  // ~5,000 new elements a second).
  const byId = new Map(); // function id -> {tr, cells, key, inFlight}
  const tbody = h("tbody");
  const table = h(
    "table",
    { "data-testid": "functions" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", {}, "Function"),
        h("th", {}, "Worker(s)"),
        h("th", { class: "num" }, "Replicas"),
        h("th", { class: "num" }, "In flight"),
      ),
    ),
    tbody,
  );
  const rowOf = (id) => {
    const cells = {
      id: h("td", { class: "mono" }),
      workers: h("td"),
      replicas: h("td", { class: "num" }),
      inFlight: h("td", { class: "num" }),
    };
    const tr = h(
      "tr",
      {
        class: "clickable",
        "data-function": id,
        // One row takes Tab (the selected one, else the first); arrows move between rows,
        // Enter or Space opens one, as a click does.
        tabindex: "-1",
        onclick: () => {
          const f = rows.find((r) => r.function_id === id);
          if (f) select(f);
        },
        onkeydown: (e) => {
          const tr = e.currentTarget;
          const to = e.key === "ArrowDown"
            ? tr.nextElementSibling
            : e.key === "ArrowUp"
            ? tr.previousElementSibling
            : undefined;
          if (to) {
            e.preventDefault();
            tr.tabIndex = -1;
            to.tabIndex = 0;
            to.focus();
          } else if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            tr.click();
          }
        },
      },
      cells.id,
      cells.workers,
      cells.replicas,
      cells.inFlight,
    );
    return { tr, cells, key: "", inFlight: undefined };
  };
  const setInFlight = (row, n) => {
    if (row.inFlight === n) return;
    row.inFlight = n;
    row.cells.inFlight.textContent = String(n);
  };
  const draw = () => {
    const needle = search.value.trim().toLowerCase();
    const shown = rows.filter((f) => f.function_id.toLowerCase().includes(needle));
    if (shown.length === 0) {
      fill(list, h("div", { class: "empty" }, "No functions"));
      return;
    }
    if (list.firstChild !== table) fill(list, table);
    // Gone or filtered out first: removed in place, they do not move the rows after them
    // (moving a row is DOM work, and drops the focus on it).
    const listed = new Set(rows.map((f) => f.function_id));
    const wanted = new Set(shown.map((f) => f.function_id));
    for (const [id, row] of byId) {
      if (!wanted.has(id)) row.tr.remove();
      if (!listed.has(id)) byId.delete(id);
    }
    let before = tbody.firstChild;
    const focusable = shown.some((f) => f.function_id === selected)
      ? selected
      : tbody.querySelector("tr[tabindex='0']")?.dataset.function;
    const tabStop = shown.some((f) => f.function_id === focusable)
      ? focusable
      : shown[0].function_id;
    for (const f of shown) {
      let row = byId.get(f.function_id);
      if (!row) byId.set(f.function_id, row = rowOf(f.function_id));
      const workers = f.workers ?? [f.worker_name];
      const key = JSON.stringify([f.description, workers, f.replicas]);
      if (key !== row.key) {
        row.key = key;
        fill(
          row.cells.id,
          f.function_id,
          f.description ? h("div", { class: "muted small" }, f.description) : null,
        );
        row.cells.workers.textContent = workers.join(", ");
        row.cells.replicas.textContent = String(f.replicas ?? 1);
      }
      setInFlight(row, f.in_flight ?? 0);
      row.tr.classList.toggle("selected", f.function_id === selected);
      row.tr.tabIndex = f.function_id === tabStop ? 0 : -1;
      // In list order; rows already in place stay where they are.
      if (row.tr === before) before = row.tr.nextSibling;
      else tbody.insertBefore(row.tr, before); // a new row, or one whose place changed
    }
  };
  /** Calls in flight from a queue snapshot: only the cells whose count changed. */
  const showInFlight = (perFunction) => {
    for (const f of rows) f.in_flight = perFunction[f.function_id] ?? 0;
    for (const [id, row] of byId) setInFlight(row, perFunction[id] ?? 0);
  };
  // Says so on the open form when the selected function is no longer registered.
  const gone = h("div");
  const showGone = () => {
    if (!panel.firstChild || rows.some((f) => f.function_id === selected)) {
      gone.replaceChildren();
      return;
    }
    fill(
      gone,
      h(
        "div",
        { class: "result error", "data-testid": "function-gone" },
        `${selected} is no longer registered (its worker disconnected or removed it): ` +
          "what this form says about it may be out of date, and invoking it fails until " +
          "it is registered again",
      ),
    );
  };
  // What `engine::functions::info` says of the selected function: schemas, triggers.
  const info = h("div", { "data-testid": "function-info" });
  const infoReads = newest();
  const loadInfo = async () => {
    const f = rows.find((r) => r.function_id === selected);
    if (!f) return;
    const fresh = infoReads();
    let answer;
    try {
      answer = await api(`/functions/info?${new URLSearchParams({ id: f.function_id })}`);
    } catch (e) {
      if (!fresh()) return;
      // An engine without engine::functions::info: what the list says, without the triggers.
      if (e.code === "function_not_found") {
        fill(info, infoView({ ...f, registered_triggers: null }));
      } else if (e.code !== "NOT_FOUND") fill(info, errorBox(e)); // gone: `gone` says so
      return;
    }
    if (fresh()) fill(info, infoView(answer));
  };
  const refreshInfo = throttle(loadInfo, 400);
  const select = (f) => {
    const again = selected === f.function_id && panel.firstChild;
    selected = f.function_id;
    gone.replaceChildren();
    if (!again) info.replaceChildren();
    remember();
    layout.className = "split";
    draw();
    const payload = h("textarea", { "aria-label": "Payload", name: "payload" }, "{}");
    const out = h("div");
    const run = h("button", {}, "Invoke");
    run.onclick = async () => {
      run.disabled = true;
      // The previous answer goes: left on screen it would read as this call's.
      const started = Date.now();
      fill(
        out,
        tick(
          "div",
          { class: "result muted", "data-testid": "invoke-pending" },
          (now) => `Calling ${f.function_id}… (${duration(now - started)})`,
        ),
      );
      try {
        // Nothing typed is an empty object; a typed `null` is sent as null.
        const typed = parseJson(payload.value, "The payload");
        const body = { function_id: f.function_id, payload: typed === undefined ? {} : typed };
        const r = await api("/call", { method: "POST", body });
        fill(
          out,
          h(
            "div",
            { class: `result ${r.error ? "error" : "ok"}`, "data-testid": "invoke-result" },
            h(
              "div",
              { class: "meta" },
              `${r.error ? "Error" : "Result"} · ${duration(r.duration_ms)}`,
            ),
            // A huge result or message shows its start and the rest on request.
            h(
              "pre",
              {},
              longText(r.error ? `${r.error.code}: ${r.error.message}` : json(r.result)),
            ),
            r.error?.stacktrace
              ? h("pre", { class: "stack", "data-testid": "stack" }, r.error.stacktrace)
              : null,
          ),
        );
      } catch (e) {
        fill(out, errorBox(e));
      } finally {
        run.disabled = false;
      }
    };
    fill(
      panel,
      h(
        "div",
        { class: "panel sticky" },
        h("h2", { class: "mono", style: "margin-top: 0" }, f.function_id),
        gone,
        f.description ? h("p", { class: "muted" }, f.description) : null,
        h(
          "p",
          { class: "small", "data-testid": "function-links" },
          "Runs in ",
          (f.workers ?? [f.worker_name]).map((w, i) => [
            i ? ", " : "",
            h("a", { href: `/logs?worker=${encodeURIComponent(w)}` }, w),
          ]),
          " · ",
          h("a", { href: `/logs?${new URLSearchParams({ function_id: f.function_id })}` }, "logs"),
          " · ",
          h(
            "a",
            {
              href: `/logs?${new URLSearchParams({ function_id: f.function_id, level: "error" })}`,
            },
            "errors",
          ),
        ),
        info,
        h("div", { class: "muted small" }, "Payload (JSON)"),
        payload,
        h("div", { class: "row", style: "margin-top: 8px" }, run),
        out,
      ),
    );
    // Below the list in a narrow window: bring the form into view.
    panel.scrollIntoView({ block: "nearest" });
    loadInfo();
  };
  const reads = newest();
  const load = async () => {
    const fresh = reads();
    try {
      const { functions } = await api(`/functions${internal.checked ? "?internal=1" : ""}`);
      if (!fresh()) return;
      rows = functions;
      draw();
      // Opened from a link naming a function: show its form once it is listed.
      const named = !panel.firstChild && rows.find((f) => f.function_id === selected);
      if (named) select(named);
      showGone();
    } catch (e) {
      if (fresh()) fill(list, errorBox(e));
    }
  };
  search.oninput = () => {
    draw();
    remember();
  };
  internal.onchange = () => {
    remember();
    load();
  };
  const refresh = throttle(load, 400);
  load();
  return {
    reload: load,
    onEvent(name, data) {
      // Lost events (the browser fell behind) may have held a change: read again.
      if (name === "dropped" || (name === "engine" && data.type !== "triggers_changed")) refresh();
      // A trigger bound or removed, or the function registered anew, changes its details.
      if ((name === "dropped" || name === "engine") && panel.firstChild) refreshInfo();
      if (name === "queues" && data.invocations) showInFlight(data.invocations.per_function ?? {});
    },
  };
}

/**
 * A function's details from `engine::functions::info`: the triggers that call it
 * (`registered_triggers`, null when the engine cannot say) and its declared schemas.
 */
function infoView(f) {
  const triggers = f.registered_triggers;
  return [
    h("div", { class: "muted small" }, "Triggers"),
    triggers === null
      ? h("p", { class: "muted small" }, "Unknown: this engine has no engine::functions::info")
      : triggers.length === 0
      ? h("p", { class: "muted small" }, "No triggers call it: it runs when something calls it")
      : h(
        "ul",
        { class: "bare small" },
        triggers.map((t) => {
          return h(
            "li",
            { "data-testid": "function-trigger" },
            badge(t.trigger_type, ""),
            " ",
            h("span", { class: "mono" }, configView(t, false)),
            " ",
            badge(t.status),
            t.error ? h("div", { class: "error-text" }, t.error) : null,
          );
        }),
      ),
    schemaView("Request", f.request_format),
    schemaView("Response", f.response_format),
  ];
}

function schemaView(what, schema) {
  const name = what.toLowerCase();
  if (schema === null || schema === undefined) {
    return h("p", { class: "muted small" }, `No ${name} schema declared`);
  }
  const text = json(schema);
  return h(
    "details",
    { open: true },
    h("summary", { class: "muted small" }, `${what} schema`),
    // It scrolls in its box; only a huge one shows its start and the rest on request.
    h(
      "pre",
      { class: "schema", "data-testid": `${name}-format` },
      text.length > 20_000 ? longText(text) : text,
    ),
  );
}
