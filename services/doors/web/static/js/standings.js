// The standings of the scoreboard page: a table with categories as rows and players as
// columns (totals first, the provisional "if the game ended now" beside them, zero rows hidden
// unless asked), and on a phone a card per player with the breakdown folded. Corrected totals
// carry a mark. Player colours: colors.js.
import { label, t, unitName } from "./i18n.js";
import { colorMap } from "./colors.js";

function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k === "style") node.style.cssText = v; else node.setAttribute(k, v);
  }
  return node;
}

/** "1", or "1 (shared)" when another player has the same rank. */
export function place(rank, players) {
  const shared = players.filter((p) => p.rank === rank).length > 1;
  return shared ? `${rank} (${t("shared")})` : String(rank);
}

/** Player ids whose total includes a referee's correction (a `correction` category or
 * corrections in the timeline, `corrected`). */
export function correctedIds(s, corrected = new Set()) {
  const out = new Set(corrected);
  for (const p of s.players) if (p.breakdown.some((c) => c.key === "correction" && c.points)) out.add(p.player_id);
  return out;
}

function totalButton(p, onTotal, marked) {
  const button = el("button", String(p.total), { type: "button", class: "link total-value", "aria-label": `${t("ledger")} ${p.name}: ${p.total}` });
  button.addEventListener("click", () => onTotal(p));
  const wrap = el("span", null, { class: "total-wrap" });
  wrap.append(button);
  if (marked) wrap.append(el("span", "✎", { class: "corrected-mark", title: t("corrected"), "aria-label": t("corrected"), role: "img" }));
  return wrap;
}

/**
 * Fill `#standings` (table) and `#cards` (phone) from `s`. `opts.onTotal(player)` opens the
 * ledger; `opts.showZero` shows all-zero categories; `opts.corrected` a set of player ids.
 * Columns carry `data-player`; rows `data-cat` (category key); totals `.total-value`.
 */
export function renderStandings(s, opts) {
  const colors = colorMap(s.players);
  const marked = correctedIds(s, opts.corrected);
  const categories = s.players.length ? s.players[0].breakdown : [];
  const hasProvisional = s.players.some((p) => p.provisional);
  const unit = unitName(s.score_unit, s.score_unit_label);
  const nonZero = (c) => s.players.some((p) => p.breakdown.find((b) => b.key === c.key)?.points);
  const shown = categories.filter((c) => opts.showZero || nonZero(c));

  const table = document.getElementById("standings");
  const head = el("tr");
  head.append(el("th", t("category"), { scope: "col" }));
  for (const p of s.players) {
    const th = el("th", null, { scope: "col", class: "player", "data-player": p.player_id, style: `--pc:${colors[p.player_id]}` });
    th.append(el("span", place(p.rank, s.players), { class: "rank" }), el("span", p.name, { class: "name" }));
    head.append(th);
  }
  table.tHead.replaceChildren(head);
  const rows = [];
  const total = el("tr", null, { class: "total-row" });
  total.append(el("th", `${t("total")} (${unit})`, { scope: "row" }));
  for (const p of s.players) {
    const td = el("td", null, { class: "num total", "data-player": p.player_id });
    td.append(totalButton(p, opts.onTotal, marked.has(p.player_id)));
    total.append(td);
  }
  rows.push(total);
  if (hasProvisional) {
    const prov = el("tr", null, { class: "provisional" });
    prov.append(el("th", `${t("provisional")}*`, { scope: "row" }));
    for (const p of s.players) prov.append(el("td", p.provisional ? String(p.provisional.total) : "", { class: "num", "data-player": p.player_id }));
    rows.push(prov);
  }
  for (const c of shown) {
    const tr = el("tr", null, { "data-cat": c.key, class: c.endgame ? "endgame" : "" });
    tr.append(el("th", label(c), { scope: "row" }));
    for (const p of s.players) tr.append(el("td", String(p.breakdown.find((b) => b.key === c.key)?.points ?? 0), { class: "num", "data-player": p.player_id }));
    rows.push(tr);
  }
  table.tBodies[0].replaceChildren(...rows);
  const toggle = document.getElementById("zero-toggle");
  const hidden = categories.length - categories.filter(nonZero).length;
  toggle.hidden = hidden === 0;
  toggle.textContent = `${t(opts.showZero ? "hide_zero" : "show_zero")} (${hidden})`;
  toggle.setAttribute("aria-pressed", String(Boolean(opts.showZero)));

  document.getElementById("cards").replaceChildren(...s.players.map((p) => {
    const card = el("article", null, { class: "player-card", "data-player": p.player_id, style: `--pc:${colors[p.player_id]}` });
    const top = el("div", null, { class: "card-top" });
    top.append(el("span", place(p.rank, s.players), { class: "rank" }), el("span", p.name, { class: "name" }));
    const big = el("div", null, { class: "card-total" });
    big.append(totalButton(p, opts.onTotal, marked.has(p.player_id)), el("span", unit, { class: "unit" }));
    if (p.provisional) big.append(el("span", `${t("if_ended")}: ${p.provisional.total}`, { class: "card-prov" }));
    const fold = el("details");
    fold.append(el("summary", t("breakdown")));
    const list = el("dl");
    for (const c of p.breakdown.filter((b) => opts.showZero || b.points)) list.append(el("dt", label(c)), el("dd", String(c.points)));
    fold.append(list);
    card.append(top, big, fold);
    return card;
  }));
  const note = document.getElementById("provisional-note");
  note.hidden = !hasProvisional;
  note.textContent = `* ${t("provisional_note")}`;
}
