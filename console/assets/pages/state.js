// State: scopes, keys and values of the state worker; edit and delete a value.
import { api, errorBox, fill, h, json, newest, parseJson, short, throttle } from "../ui.js";

export const title = "State";

export function mount(root, ctx) {
  const groups = h("div", { class: "groups panel", "data-testid": "state-groups" });
  const entries = h("div");
  const editor = h("div");
  fill(
    root,
    h("h1", {}, "State"),
    h("p", { class: "sub" }, "Values of the state worker by scope; changes show up live"),
    h(
      "div",
      { class: "state-grid" },
      groups,
      h("div", {}, entries, editor),
    ),
  );
  const scope = ctx.rest[0];
  let rows = [];

  const groupReads = newest();
  const loadGroups = async () => {
    const fresh = groupReads();
    try {
      const list = (await api("/state")).groups;
      if (!fresh()) return;
      if (scope && !list.includes(scope)) list.push(scope);
      fill(
        groups,
        h("div", { class: "muted small", style: "margin-bottom: 6px" }, "Scopes"),
        list.length === 0 ? h("div", { class: "muted" }, "No values stored yet") : null,
        list.sort().map((g) =>
          h("a", {
            href: `/state/${encodeURIComponent(g)}`,
            class: g === scope ? "on" : "",
            "data-scope": g,
          }, g)
        ),
      );
    } catch (e) {
      if (fresh()) fill(groups, errorBox(e));
    }
  };
  const entryReads = newest();
  const loadEntries = async () => {
    const fresh = entryReads();
    if (!scope) {
      fill(entries, h("div", { class: "empty" }, "Select a scope"));
      return;
    }
    try {
      const { entries: answer } = await api(`/state/${encodeURIComponent(scope)}`);
      if (!fresh()) return;
      rows = answer;
      drawEntries();
    } catch (e) {
      if (fresh()) fill(entries, errorBox(e));
    }
  };
  const drawEntries = () => {
    fill(
      entries,
      h(
        "div",
        { class: "row", style: "margin-bottom: 8px" },
        h("h2", { class: "mono grow", style: "margin: 0" }, scope),
        h("button", { class: "plain", onclick: () => edit("", null, true) }, "Add value"),
      ),
      rows.length === 0 ? h("div", { class: "empty" }, "No values in this scope") : h(
        "table",
        { "data-testid": "state-entries" },
        h("tr", {}, h("th", {}, "Key"), h("th", {}, "Value"), h("th", {}, "")),
        rows.map((r) =>
          h(
            "tr",
            { "data-key": r.key },
            h("td", { class: "mono" }, r.key),
            h("td", { class: "mono" }, short(r.value, 140)),
            h(
              "td",
              { style: "white-space: nowrap" },
              h("button", { class: "plain", onclick: () => edit(r.key, r.value, false) }, "Edit"),
              " ",
              deleteButton(r.key),
            ),
          )
        ),
      ),
    );
  };
  const deleteButton = (key) => {
    const b = h("button", { class: "danger" }, "Delete");
    b.onclick = async () => {
      if (b.dataset.armed !== "1") {
        b.dataset.armed = "1";
        b.textContent = "Confirm delete";
        return;
      }
      try {
        await api(`/state/${encodeURIComponent(scope)}/${encodeURIComponent(key)}`, {
          method: "DELETE",
        });
        fill(editor);
        reload();
      } catch (e) {
        fill(editor, errorBox(e));
      }
    };
    return b;
  };
  const edit = (key, value, isNew) => {
    const keyInput = h("input", {
      name: "key",
      value: key,
      class: "mono",
      disabled: !isNew,
      placeholder: "key",
    });
    const text = h(
      "textarea",
      { name: "value", "aria-label": "Value", style: "min-height: 160px" },
      isNew ? "" : json(value),
    );
    const out = h("div");
    const save = h("button", {}, "Save");
    save.onclick = async () => {
      try {
        const k = keyInput.value.trim();
        if (!k) throw new Error("The key is empty");
        const parsed = parseJson(text.value, "The value");
        if (parsed === undefined) {
          throw new Error('The value is empty: write JSON, e.g. "text" or {}');
        }
        await api(`/state/${encodeURIComponent(scope)}/${encodeURIComponent(k)}`, {
          method: "PUT",
          body: { value: parsed },
        });
        fill(out, h("div", { class: "result ok", "data-testid": "state-saved" }, `Saved ${k}`));
        reload();
      } catch (e) {
        fill(out, errorBox(e));
      }
    };
    fill(
      editor,
      h(
        "div",
        { class: "panel", "data-testid": "state-editor" },
        h(
          "h2",
          { style: "margin-top: 0" },
          isNew ? "New value" : h("span", {}, "Edit ", h("span", { class: "mono" }, key)),
        ),
        isNew ? h("div", { class: "row", style: "margin-bottom: 8px" }, keyInput) : null,
        h("div", { class: "muted small" }, "Value (JSON)"),
        text,
        h(
          "div",
          { class: "row", style: "margin-top: 8px" },
          save,
          h("button", { class: "plain", onclick: () => fill(editor) }, "Cancel"),
        ),
        out,
      ),
    );
  };
  const reload = throttle(() => {
    loadGroups();
    loadEntries();
  }, 300);
  reload();
  return {
    reload,
    onEvent(name, data) {
      if (name === "state" || name === "dropped") reload();
      if (name === "engine" && data.type === "triggers_changed") loadGroups();
    },
  };
}
