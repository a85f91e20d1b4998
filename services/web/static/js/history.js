// The history: the timeline of events with the points each moved (`GET /games/{id}/timeline`),
// voided events and corrections marked, and the ledger panel of one player.
import { label, lang, t } from "./i18n.js";

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** Badges for a timeline row: voided (by which void), void of, correction, disputed. */
function marks(row) {
  const out = [];
  if (row.voided) out.push(el("span", `${t("voided_by")}${row.voided_by_seq}`, "badge voided"));
  if (row.void_of_seq) out.push(el("span", `${t("void_of")}${row.void_of_seq}`, "badge void"));
  if (row.correction) out.push(el("span", t("correction"), "badge correction"));
  for (const seq of row.disputed_by_seq) out.push(el("span", `${t("corrected_by")}${seq}`, "badge correction"));
  return out;
}

/**
 * Fill `#timeline`, newest event first. Rows carry `data-seq` and `.voided` when voided.
 * `onSeq(seq)` runs when a row is clicked (jump the slider); `onDispute(row)` for its button.
 */
export function renderTimeline(timeline, onSeq, onDispute) {
  const names = Object.fromEntries(timeline.players.map((p) => [p.player_id, p.name]));
  const table = document.getElementById("timeline");
  const head = el("tr");
  for (const key of ["seq", "type", "actor", "moved", "details", ""]) head.append(el("th", key ? t(key) : ""));
  table.tHead.replaceChildren(head);
  const rows = [...timeline.events].reverse().map((row) => {
    const tr = el("tr", null, row.voided ? "voided" : row.correction || row.void_of_seq ? "referee" : "");
    tr.dataset.seq = row.seq;
    tr.dataset.eventId = row.event_id;
    const moved = Object.entries(row.delta).map(([pid, n]) => `${names[pid] ?? pid} ${signed(n)}`).join(", ");
    const details = el("td", null, "details");
    details.append(...marks(row), el("span", row.summary, "summary"));
    const dispute = el("td");
    if (row.seq > 1 && !row.void_of_seq && !row.voided) {
      const button = el("button", t("dispute"), "dispute");
      button.type = "button";
      button.addEventListener("click", (e) => { e.stopPropagation(); onDispute(row); });
      dispute.append(button);
    }
    tr.append(el("td", `#${row.seq}`, "num"), el("td", row.type, "type"), el("td", row.actor), el("td", moved, "moved"), details, dispute);
    tr.addEventListener("click", () => onSeq(row.seq));
    return tr;
  });
  table.tBodies[0].replaceChildren(...rows);
}

/** Show the ledger panel for one player (`GET /games/{id}/players/{pid}/ledger` body). */
export function renderLedger(player, ledger, categories) {
  const panel = document.getElementById("ledger-panel");
  const byKey = Object.fromEntries(categories.map((c) => [c.key, c]));
  document.getElementById("ledger-player").textContent = player.name;
  const table = document.getElementById("ledger");
  const head = el("tr");
  for (const key of ["seq", "type", "resource", "category", "amount", "rule", "note"]) head.append(el("th", t(key)));
  table.tHead.replaceChildren(head);
  table.tBodies[0].replaceChildren(...ledger.entries.map((e) => {
    const tr = el("tr");
    const category = byKey[e.category] ? label(byKey[e.category]) : e.category;
    tr.append(el("td", `#${e.seq}`, "num"), el("td", e.event_type), el("td", e.resource), el("td", category),
      el("td", signed(e.amount), "num"), el("td", e.rule, "rule"), el("td", e.note));
    return tr;
  }));
  document.getElementById("ledger-totals").textContent =
    Object.entries(ledger.totals).map(([r, n]) => `${r}: ${n.toLocaleString(lang)}`).join(" · ");
  panel.hidden = false;
  panel.scrollIntoView({ block: "nearest" });
}
