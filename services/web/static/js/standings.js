// Renders a standings body (`GET /games/{id}/standings`, also pushed over SSE) as the
// scoreboard table: place (shared places marked), player, total, one column per category,
// and the provisional "if the game ended now" column during play, marked as such.
import { label, t } from "./i18n.js";

function cell(tag, text, attrs = {}) {
  const el = document.createElement(tag);
  if (text !== undefined && text !== null) el.textContent = text;
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") el.className = v; else el.setAttribute(k, v);
  }
  return el;
}

/** Words for the place: "1", or "1 (shared)" when another player has the same rank. */
function place(rank, players) {
  const shared = players.filter((p) => p.rank === rank).length > 1;
  return shared ? `${rank} (${t("shared")})` : String(rank);
}

/** The unit's display name (Fame / VP) in the page's language. */
export function unitName(unit) {
  return t(`unit_${unit}`);
}

/** The result line: the winner or shared first place and the tie-break in words. */
function resultText(s) {
  const names = Object.fromEntries(s.players.map((p) => [p.player_id, p.name]));
  if (s.status !== "final") {
    const leaders = s.players.filter((p) => p.rank === 1);
    if (leaders.length > 1 && s.tie_break) return `${t("tie_break")}: ${s.tie_break}`;
    return "";
  }
  const head = s.winner ? `${t("winner")}: ${names[s.winner]}` : `${t("shared_first")}: ${s.winners.map((w) => names[w]).join(", ")}`;
  return s.tie_break ? `${head}. ${t("tie_break")}: ${s.tie_break}` : head;
}

/**
 * Fill `#standings` from `s`; `onTotal(player)` runs when a total is clicked (the ledger).
 * Rows carry `data-player`; cells carry `data-cat` (category key), `.total`, `.provisional`.
 */
export function renderStandings(s, onTotal) {
  const table = document.getElementById("standings");
  const categories = s.players.length ? s.players[0].breakdown : [];
  const hasProvisional = s.players.some((p) => p.provisional);
  const unit = unitName(s.score_unit);
  const head = cell("tr");
  head.append(cell("th", t("rank")), cell("th", t("player")), cell("th", `${t("total")} (${unit})`, { class: "num" }));
  for (const c of categories) {
    head.append(cell("th", label(c), { class: `num${c.endgame ? " endgame" : ""}`, "data-cat": c.key, title: c.key }));
  }
  if (hasProvisional) head.append(cell("th", `${t("provisional")}*`, { class: "num provisional" }));
  table.tHead.replaceChildren(head);

  table.tBodies[0].replaceChildren(...s.players.map((p) => {
    const tr = cell("tr", null, { "data-player": p.player_id, class: p.rank === 1 ? "leader" : "" });
    tr.append(cell("td", place(p.rank, s.players), { class: "rank" }), cell("td", p.name, { class: "name" }));
    const total = cell("td", null, { class: "num total" });
    const button = cell("button", String(p.total), { type: "button", class: "link", title: t("ledger") });
    button.addEventListener("click", () => onTotal(p));
    total.append(button);
    tr.append(total);
    for (const c of p.breakdown) tr.append(cell("td", String(c.points), { class: "num", "data-cat": c.key }));
    if (hasProvisional) {
      const prov = p.provisional;
      const td = cell("td", prov ? String(prov.total) : "", { class: "num provisional" });
      if (prov) td.title = prov.categories.map((c) => `${label(c)}: ${c.points >= 0 ? "+" : ""}${c.points}`).join("\n");
      tr.append(td);
    }
    return tr;
  }));
  document.getElementById("result").textContent = resultText(s);
  const note = document.getElementById("provisional-note");
  note.hidden = !hasProvisional;
  note.textContent = `* ${t("provisional_note")}`;
}
