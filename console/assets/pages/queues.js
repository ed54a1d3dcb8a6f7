// Queues: HTTP requests waiting for a slot, calls in flight, durable queues and their
// dead letters.
import { api, badge, errorBox, fill, h } from "../ui.js";
import { deadLetterPanel } from "./dead_letters.js";

export const title = "Queues";

export function mount(root) {
  const body = h("div", {}, h("p", { class: "muted" }, "Loading…"));
  // The durable queues are updated in place, not drawn anew, so an opened list of dead
  // letters (and a confirmation in it) stays as it is while snapshots arrive.
  const durableBox = h("div");
  const durable = durableTable(() => api("/queues").then(draw, () => {}));
  fill(
    root,
    h("h1", {}, "Queues"),
    h("p", { class: "sub" }, "What waits and what runs right now"),
    body,
    h("h2", {}, "Durable queues"),
    durableBox,
  );
  const draw = (q) => {
    const stat = (n, label, id) =>
      h(
        "div",
        { class: "stat", "data-testid": id },
        h("div", { class: "n" }, String(n)),
        h("div", { class: "l" }, label),
      );
    fill(
      body,
      h(
        "div",
        { class: "stats" },
        stat(q.http ? q.http.waiting : "–", "HTTP requests waiting for a slot", "http-waiting"),
        stat(q.http ? q.http.in_flight : "–", "HTTP requests in progress", "http-in-flight"),
        stat(q.invocations.in_flight, "calls in flight", "calls-in-flight"),
      ),
      h(
        "div",
        { class: "split" },
        table("Calls in flight per function", "Function", q.invocations.per_function),
        table("Calls in flight per worker", "Worker", q.invocations.per_worker),
      ),
    );
    const shown = durable.update(q.durable);
    if (durableBox.firstChild !== shown) fill(durableBox, shown);
  };
  api("/queues").then(draw, (e) => fill(body, errorBox(e)));
  return {
    onEvent(name, data) {
      if (name === "queues") draw(data);
    },
  };
}

function table(heading, column, counts) {
  const entries = Object.entries(counts ?? {}).sort((a, b) => b[1] - a[1]);
  return h(
    "div",
    {},
    h("h2", {}, heading),
    entries.length === 0 ? h("div", { class: "empty" }, "Nothing in flight") : h(
      "table",
      {},
      h("tr", {}, h("th", {}, column), h("th", { class: "num" }, "In flight")),
      entries.map(([k, n]) =>
        h("tr", {}, h("td", { class: "mono" }, k), h("td", { class: "num" }, String(n)))
      ),
    ),
  );
}

/** The durable queues' table, kept and updated by `update(snapshot.durable)`. */
function durableTable(changed) {
  const rows = new Map(); // queue name -> its rows and cells
  const table = h(
    "table",
    { "data-testid": "durable-queues" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", {}, "Queue"),
        h("th", { class: "num" }, "Waiting"),
        h("th", { class: "num" }, "In flight"),
        h("th", { class: "num" }, "Dead letters"),
      ),
    ),
  );
  const tbody = h("tbody");
  table.append(tbody);
  const none = h("div", { class: "empty" });

  const rowOf = (name) => {
    const cells = {
      name: h("td", { class: "mono" }),
      depth: h("td", { class: "num" }),
      inFlight: h("td", { class: "num" }),
      dead: h("td", { class: "num" }),
    };
    const toggle = h("button", {
      class: "link",
      type: "button",
      "data-testid": "dl-toggle",
      "aria-expanded": "false",
    });
    const detail = h("tr", { class: "dl-row", "data-dead-letters-of": name, hidden: true });
    const row = {
      tr: h(
        "tr",
        { "data-queue": name },
        cells.name,
        cells.depth,
        cells.inFlight,
        cells.dead,
      ),
      detail,
      cells,
      toggle,
      panel: undefined,
      dead: -1,
      key: "",
    };
    toggle.onclick = () => {
      const open = detail.hidden;
      detail.hidden = !open;
      toggle.setAttribute("aria-expanded", String(open));
      toggle.textContent = open ? "hide" : "inspect";
      if (open && !row.panel) {
        row.panel = deadLetterPanel(name, changed);
        detail.append(h("td", { colspan: 4 }, row.panel.el));
      } else if (open) row.panel.load();
    };
    toggle.textContent = "inspect";
    return row;
  };

  const update = (d) => {
    if (d === null || !d.queues?.length) {
      none.textContent = d === null ? "No queue worker is installed" : "No durable queues yet";
      return none;
    }
    const names = new Set(d.queues.map((q) => q.name));
    for (const [name, row] of rows) {
      if (names.has(name)) continue;
      row.tr.remove();
      row.detail.remove();
      rows.delete(name);
    }
    let before = tbody.firstChild;
    for (const q of d.queues) {
      let row = rows.get(q.name);
      if (!row) rows.set(q.name, row = rowOf(q.name));
      const key = JSON.stringify([q.configured, q.depth, q.in_flight]);
      if (key !== row.key) {
        row.key = key;
        fill(row.cells.name, q.name, q.configured === false ? [" ", badge("ad hoc", "")] : null);
        row.cells.depth.textContent = String(q.depth);
        row.cells.inFlight.textContent = String(q.in_flight);
      }
      if (q.dead_letters !== row.dead) {
        row.dead = q.dead_letters;
        fill(
          row.cells.dead,
          q.dead_letters ? badge(String(q.dead_letters), "error") : "0",
          " ",
          q.dead_letters || row.panel ? row.toggle : null,
        );
        // An opened list follows the count: new failures, or letters redriven elsewhere.
        if (row.panel && !row.detail.hidden) row.panel.load();
      }
      // In name order; rows already in place are not moved (moving would drop focus).
      if (before !== row.tr) tbody.insertBefore(row.tr, before);
      if (row.tr.nextSibling !== row.detail) tbody.insertBefore(row.detail, row.tr.nextSibling);
      before = row.detail.nextSibling;
    }
    return table;
  };
  return { update };
}
