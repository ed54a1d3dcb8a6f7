// Functions: every function with its workers and replicas; invoke one with a JSON payload.
import { api, duration, errorBox, fill, h, json, parseJson, throttle } from "../ui.js";

export const title = "Functions";

export function mount(root, ctx) {
  // The filter, "show internal" and the selected function live in the URL (?q=&internal=1&fn=),
  // so a reload or a shared link opens the same view.
  const search = h("input", {
    type: "search",
    placeholder: "Filter by id",
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

  const draw = () => {
    const needle = search.value.trim().toLowerCase();
    const shown = rows.filter((f) => f.function_id.toLowerCase().includes(needle));
    if (shown.length === 0) {
      fill(list, h("div", { class: "empty" }, "No functions"));
      return;
    }
    fill(
      list,
      h(
        "table",
        { "data-testid": "functions" },
        h(
          "tr",
          {},
          h("th", {}, "Function"),
          h("th", {}, "Worker(s)"),
          h("th", { class: "num" }, "Replicas"),
          h("th", { class: "num" }, "In flight"),
        ),
        shown.map((f) =>
          h(
            "tr",
            {
              class: `clickable${f.function_id === selected ? " selected" : ""}`,
              "data-function": f.function_id,
              onclick: () => select(f),
            },
            h(
              "td",
              { class: "mono" },
              f.function_id,
              f.description ? h("div", { class: "muted small" }, f.description) : null,
            ),
            h("td", {}, (f.workers ?? [f.worker_name]).join(", ")),
            h("td", { class: "num" }, String(f.replicas ?? 1)),
            h("td", { class: "num" }, String(f.in_flight ?? 0)),
          )
        ),
      ),
    );
  };
  const select = (f) => {
    selected = f.function_id;
    remember();
    layout.className = "split";
    draw();
    const payload = h("textarea", { "aria-label": "Payload", name: "payload" }, "{}");
    const out = h("div");
    const run = h("button", {}, "Invoke");
    run.onclick = async () => {
      run.disabled = true;
      try {
        const body = {
          function_id: f.function_id,
          payload: parseJson(payload.value, "The payload") ?? {},
        };
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
            h("pre", {}, r.error ? `${r.error.code}: ${r.error.message}` : json(r.result)),
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
        h("div", { class: "muted small" }, "Payload (JSON)"),
        payload,
        h("div", { class: "row", style: "margin-top: 8px" }, run),
        out,
      ),
    );
    // Below the list in a narrow window: bring the form into view.
    panel.scrollIntoView({ block: "nearest" });
  };
  const load = async () => {
    try {
      rows = (await api(`/functions${internal.checked ? "?internal=1" : ""}`)).functions;
      draw();
      // Opened from a link naming a function: show its form once it is listed.
      const named = !panel.firstChild && rows.find((f) => f.function_id === selected);
      if (named) select(named);
    } catch (e) {
      fill(list, errorBox(e));
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
    onEvent(name, data) {
      if (name === "engine" && data.type !== "triggers_changed") refresh();
      if (name === "queues") refresh();
    },
  };
}
