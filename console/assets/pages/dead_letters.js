// A durable queue's dead letters on the Queues page: the newest ones with their function,
// attempts, last error and payload (as text, cut when long), and redrive / discard of one
// or all, each after a confirmation (all: only the letters that failed before the operator
// confirmed; later failures are kept). The panel is built once per queue and kept across the
// page's redraws, and its letters are kept by id across its reads, so a confirmation, an
// opened stack or a whole payload survives the next snapshot and the next failure.
import { api, errorBox, fill, h, json, longText, since, stamp, tick } from "../ui.js";

const PAGE = 20;
/** The most one read of the console's API lists (console/dead_letters.ts LIST_MAX). */
const LIST_MAX = 10_000;

/** The panel of `queue`; `changed()` after an action, to refresh the page's counts. */
export function deadLetterPanel(queue, changed) {
  const path = `/queues/${encodeURIComponent(queue)}`;
  let limit = PAGE;
  let loading = false;
  let again = false;
  const head = h("div", { class: "muted small", "data-testid": "dl-summary" }, "Loading…");
  const confirmBox = h("div", { "data-testid": "dl-confirm", hidden: true });
  const outcome = h("div", { "data-testid": "dl-outcome" });
  const list = h("div", { class: "dl-list", "data-testid": "dl-list" });
  const more = h("div");
  const redriveAll = h("button", { class: "plain", type: "button" }, "Redrive all");
  const discardAll = h("button", { class: "danger", type: "button" }, "Discard all");
  const el = h(
    "div",
    { class: "dl-panel", "data-dead-letters": queue },
    h("div", { class: "row" }, h("div", { class: "grow" }, head), redriveAll, discardAll),
    confirmBox,
    outcome,
    list,
    more,
  );

  /** Asks before `run`; `what` says what will happen, `label` is the button's. */
  const confirm = (what, label, kind, run) => {
    const yes = h("button", { class: kind, type: "button", "data-testid": "dl-yes" }, label);
    const no = h("button", { class: "plain", type: "button" }, "Cancel");
    no.onclick = () => (confirmBox.hidden = true);
    yes.onclick = async () => {
      yes.disabled = no.disabled = true;
      try {
        fill(outcome, h("div", { class: "result ok" }, await run()));
      } catch (e) {
        fill(outcome, errorBox(e));
      } finally {
        confirmBox.hidden = true;
        changed();
        load();
      }
    };
    fill(confirmBox, h("div", { class: "confirm" }, h("span", {}, what), " ", yes, " ", no));
    confirmBox.hidden = false;
    // Asked from a letter far down the list: bring the question into view.
    confirmBox.scrollIntoView({ block: "nearest" });
    yes.focus();
  };
  const plural = (n, one) => `${n.toLocaleString("en-US")} ${one}${n === 1 ? "" : "s"}`;
  const post = (action, body) => api(`${path}/${action}`, { method: "POST", body });

  // "All" is the letters that failed before the operator confirmed: the cut-off is the moment
  // of the click on the confirmation's button, and letters failing after it are kept.
  redriveAll.onclick = () =>
    confirm(
      `Redrive every dead letter of ${queue}? They go back to the queue and are delivered ` +
        "again; letters failing after you confirm stay here.",
      "Redrive all",
      "",
      async () => {
        const r = await post("redrive", { all: true, failed_before_ms: Date.now() });
        return `Redrove ${plural(r.redriven, "dead letter")} of ${queue}: back in the queue`;
      },
    );
  discardAll.onclick = () =>
    confirm(
      `Discard every dead letter of ${queue}? They are deleted for good; letters failing ` +
        "after you confirm are kept.",
      "Discard all",
      "danger",
      async () => {
        const r = await post("discard", { all: true, failed_before_ms: Date.now() });
        return `Discarded ${plural(r.discarded, "dead letter")} of ${queue}`;
      },
    );

  // One element per letter, kept by id: a change of the count (one more failure, a redrive
  // elsewhere) adds and removes letters and leaves the others be. The list was built anew
  // each time, up to 10,000 letters, and closed a stack or a payload the operator had opened.
  const byId = new Map(); // letter id -> {el, key}
  const showLetters = (letters) => {
    const wanted = new Map(letters.map((d) => [d.id, d]));
    // Gone ones first: removed in place, they do not move the letters after them.
    for (const [id, kept] of byId) {
      if (wanted.has(id)) continue;
      kept.el.remove();
      byId.delete(id);
    }
    // An error shown in the list before goes.
    for (const child of [...list.children]) if (!child.matches(".dead-letter")) child.remove();
    let before = list.firstChild;
    for (const d of letters) {
      // A letter redriven and failing again may keep its id: what it says then is new.
      const key = JSON.stringify([d.function_id, d.failed_at_ms, d.attempts, d.last_error]);
      let kept = byId.get(d.id);
      if (kept && kept.key !== key) {
        if (kept.el === before) before = kept.el.nextSibling;
        kept.el.remove();
        kept = undefined;
      }
      if (!kept) byId.set(d.id, kept = { el: item(d), key });
      if (kept.el === before) before = kept.el.nextSibling;
      else list.insertBefore(kept.el, before); // a new letter, or one whose place changed
    }
  };

  const item = (d) => {
    const error = d.last_error;
    const redrive = h("button", { class: "plain small-btn", type: "button" }, "Redrive");
    const discard = h("button", { class: "danger small-btn", type: "button" }, "Discard");
    const name = `${d.id} (${d.function_id})`;
    redrive.onclick = () =>
      confirm(`Redrive dead letter ${name}?`, "Redrive", "", async () => {
        await post("redrive", { id: d.id });
        return `Redrove dead letter ${d.id}: back in the queue`;
      });
    discard.onclick = () =>
      confirm(
        `Discard dead letter ${name}? It is deleted for good.`,
        "Discard",
        "danger",
        async () => {
          await post("discard", { id: d.id });
          return `Discarded dead letter ${d.id}`;
        },
      );
    return h(
      "div",
      { class: "dead-letter", "data-id": d.id },
      h(
        "div",
        { class: "row dl-head" },
        h("span", { class: "mono" }, d.function_id),
        tick(
          "span",
          { class: "muted small", title: stamp(d.failed_at_ms) },
          () => `failed ${since(d.failed_at_ms)}`,
        ),
        h("span", { class: "muted small" }, `after ${plural(d.attempts, "attempt")}`),
        h("span", { class: "mono muted small dl-id", title: "id" }, d.id),
        redrive,
        discard,
      ),
      h(
        "pre",
        { class: "error-text", "data-testid": "dl-error" },
        error ? longText(`${error.code}: ${error.message}`) : "(no error recorded)",
      ),
      error?.stacktrace
        ? h(
          "details",
          {},
          h("summary", { class: "muted small" }, "stack"),
          h("pre", { class: "stack" }, error.stacktrace),
        )
        : null,
      h("div", { class: "muted small" }, "Payload"),
      h("pre", { class: "dl-data", "data-testid": "dl-data" }, longText(json(d.data))),
    );
  };

  const moreButton = h("button", {
    class: "plain",
    type: "button",
    "data-testid": "dl-more",
    onclick: () => {
      limit = Math.min(limit + PAGE * 5, LIST_MAX);
      load();
    },
  }, "Show more");
  const moreNote = h(
    "p",
    { class: "muted small" },
    `The newest ${LIST_MAX.toLocaleString("en-US")} are listed here; ` +
      "redrive all and discard all take the older ones too.",
  );

  const load = () => {
    // One read at a time; a change meanwhile reads again once it is done.
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    api(`${path}/dead-letters?limit=${limit}`).then((r) => {
      const n = r.dead_letters.length;
      fill(
        head,
        r.total === 0 ? "No dead letters" : `${plural(r.total, "dead letter")}` +
          (n < r.total ? `; the newest ${n.toLocaleString("en-US")} shown` : "") +
          ", newest first",
      );
      redriveAll.disabled = discardAll.disabled = r.total === 0;
      showLetters(r.dead_letters);
      // The button is kept too: one clicked keeps the focus.
      const below = r.next_cursor === undefined ? null : limit < LIST_MAX ? moreButton : moreNote;
      if (more.firstChild !== below) fill(more, below);
    }, (e) => {
      byId.clear();
      fill(list, errorBox(e));
    }).finally(() => {
      loading = false;
      if (again) {
        again = false;
        load();
      }
    });
  };
  load();
  return { el, load };
}
