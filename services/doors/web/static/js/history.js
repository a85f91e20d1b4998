// The history: every event in words, newest first (`GET /games/{id}/timeline`, described with
// the game's catalogue), the points it moved, voids and corrections marked, events after the
// replayed seq dimmed; and the ledger panel of one player at the chosen seq.
import { describe, lang, ledgerCategory, t } from "./i18n.js";
import { el } from "./page.js";

function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0";
}

function marks(row) {
  const out = [];
  if (row.voided) out.push(el("span", `${t("voided_by")}${row.voided_by_seq}`, "badge voided"));
  if (row.void_of_seq) out.push(el("span", `${t("void_of")}${row.void_of_seq}`, "badge void"));
  if (row.correction) out.push(el("span", t("correction"), "badge correction"));
  for (const seq of row.disputed_by_seq) out.push(el("span", `${t("corrected_by")}${seq}`, "badge correction"));
  return out;
}

/** "Turn 3" / "Round 3" / "Setup" for a row's turn in this game. */
export function turnName(turn, game) {
  if (!turn) return t("setup");
  return `${t(game === "penumbra" ? "round" : "turn")} ${turn}`;
}

/**
 * Fill `#timeline`, newest first. Rows carry `data-seq`, `.voided` when voided and `.after`
 * when after `viewSeq`. `onSeq(seq)` runs when a row is clicked; `onDispute(row)` for its button.
 */
export function renderTimeline(timeline, ctx, viewSeq, onSeq, onDispute) {
  const table = document.getElementById("timeline");
  const head = el("tr");
  for (const key of ["seq", "what", "moved", ""]) {
    const th = el("th", key ? t(key) : "");
    th.scope = "col";
    head.append(th);
  }
  table.tHead.replaceChildren(head);
  const rows = [...timeline.events].reverse().map((row) => {
    const cls = [row.voided ? "voided" : row.correction || row.void_of_seq ? "referee" : "", viewSeq !== null && row.seq > viewSeq ? "after" : "", row.seq === viewSeq ? "current" : ""];
    const tr = el("tr", null, cls.filter(Boolean).join(" "));
    tr.dataset.seq = row.seq;
    tr.dataset.eventId = row.event_id;
    tr.dataset.type = row.type;
    const what = el("td", null, "what");
    what.append(el("span", describe(row, ctx), "summary"), el("span", ` · ${turnName(row.turn, ctx.game)}`, "muted turn"), ...marks(row));
    const moved = el("td", null, "moved");
    const entries = Object.entries(row.delta);
    if (!entries.length) moved.append(el("span", "—", "muted"));
    for (const [pid, n] of entries) {
      const chip = el("span", `${ctx.names[pid] ?? pid} ${signed(n)}`, "chip");
      chip.style.setProperty("--pc", ctx.colors[pid] || "#888");
      moved.append(chip);
    }
    const dispute = el("td", null, "actions");
    if (row.seq > 1 && !row.void_of_seq && !row.voided) {
      const button = el("button", t("dispute"), "dispute");
      button.type = "button";
      button.setAttribute("aria-label", `${t("dispute")} #${row.seq}`);
      button.addEventListener("click", (e) => { e.stopPropagation(); onDispute(row); });
      dispute.append(button);
    }
    const seq = el("td", null, "num");
    const jump = el("button", `#${row.seq}`, "link seq-link");
    jump.type = "button";
    jump.setAttribute("aria-label", `${t("replay_at")} ${row.seq}`);
    jump.addEventListener("click", (e) => { e.stopPropagation(); onSeq(row.seq); });
    seq.append(jump);
    tr.append(seq, what, moved, dispute);
    return tr;
  });
  table.tBodies[0].replaceChildren(...rows);
}

/** The ticker: the last `n` events in words (newest first) into `list`. */
export function renderTicker(list, timeline, ctx, n = 5) {
  list.replaceChildren(...[...timeline.events].slice(-n).reverse().map((row) => {
    const li = el("li", null, row.voided ? "voided" : "");
    li.append(el("span", describe(row, ctx), "summary"));
    for (const [pid, d] of Object.entries(row.delta)) {
      const chip = el("span", `${ctx.names[pid] ?? pid} ${signed(d)}`, "chip");
      chip.style.setProperty("--pc", ctx.colors[pid] || "#888");
      li.append(chip);
    }
    return li;
  }));
}

/** Show the ledger panel of one player (`/games/{id}/replay/ledger/{pid}?at_seq=` body) after
 * event `ledger.seq`, headed in words; `ctx.rows` maps seq -> timeline row, so each line names
 * its event in words; `scoreUnit` (fame / vp) is the resource the standings' categories name. */
export function renderLedger(player, ledger, categories, ctx, scoreUnit) {
  const panel = document.getElementById("ledger-panel");
  const byKey = Object.fromEntries(categories.map((c) => [c.key, c]));
  document.getElementById("ledger-player").textContent = `${player.name}, ${t("after_event")} ${ledger.seq}`;
  const table = document.getElementById("ledger");
  const head = el("tr");
  for (const key of ["seq", "what", "resource", "category", "amount"]) {
    const th = el("th", t(key));
    th.scope = "col";
    head.append(th);
  }
  table.tHead.replaceChildren(head);
  table.tBodies[0].replaceChildren(...ledger.entries.map((e) => {
    const tr = el("tr");
    tr.dataset.seq = e.seq;
    tr.dataset.resource = e.resource;
    const row = ctx.rows.get(e.seq);
    const category = ledgerCategory(e.resource, e.category, byKey, ctx.catalog, scoreUnit);
    const what = el("td", row ? describe(row, ctx) : e.event_type);
    what.title = e.rule;
    tr.append(el("td", `#${e.seq}`, "num"), what, el("td", t(`unit_${e.resource}`)), el("td", category), el("td", signed(e.amount), "num"));
    return tr;
  }));
  document.getElementById("ledger-totals").textContent =
    Object.entries(ledger.totals).map(([r, n]) => `${t(`unit_${r}`)}: ${n.toLocaleString(lang)}`).join(" · ");
  panel.hidden = false;
  panel.scrollIntoView({ block: "nearest" });
}
