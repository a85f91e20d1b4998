// The tournament room screen (`/tv/tournaments/{id}`): the current round's tables with their
// players in seat order (and the live leader of each table's game, when the table is played
// as a scoreledger game), the standings, and a QR code to the phone view
// (`/tournaments/{id}/qr.svg`, drawn by the server). Live over `/tournaments/{id}/live`; the
// leaders follow `/games/live` (one connection for every table: a change of one of the
// round's games refetches that game's standings). A table with a result (reported by hand or
// from its game) shows the result's winner, never the game's live leader; once the tournament
// is finished the tables give way to the podium. The open round's clock counts down in the
// header. Opened from the organiser's desk (the organiser token in this tab's
// `sessionStorage`), each table card also carries the QR code of that table's report form,
// as its printed slip does (`POST /tournaments/{id}/rounds/{n}/slips`).
import { t, tCount } from "/static/js/i18n.js";
import { translatePage } from "/static/js/page.js";
import { base, currentRound, el, follow, namesOf, num, playerName, roundTitle, runClock, showLeagues, statusWord, tid } from "./tournament.js";

const grid = document.getElementById("ttv-tables");
const lines = document.getElementById("ttv-standings");
const leaders = new Map(); // game id -> "Name 45"
let gamesFeed = null;
let watched = new Set(); // the current round's game ids

/** Columns of the tables grid for `n` tables (then rows follow). */
function columns(n) {
  if (n <= 2) return Math.max(n, 1);
  if (n <= 4) return 2;
  if (n <= 6) return 3;
  if (n <= 12) return 4;
  if (n <= 15) return 5;
  return 6;
}

function tableCard(table, names, points) {
  const li = el("li", null, `ttv-table ${table.status}`);
  li.dataset.table = table.table;
  if (table.game_id) li.dataset.game = table.game_id;
  const card = el("article", null, "ttv-card");
  const head = el("h3");
  head.append(el("span", `${t("tn_table")} ${table.table}`), el("span", statusWord(table.status), "ttv-status"));
  const seats = el("ol", null, "ttv-seats");
  table.players.forEach((pid, i) => {
    const row = el("li");
    row.dataset.player = pid;
    // "Seat 1 Gleb 4 pts": a bare "1 Gleb 4" read as a place and a score
    row.append(el("span", `${t("tn_seat_no")} ${i + 1}`, "ttv-seat-no"), el("span", names[pid] || pid, "ttv-pname"),
      el("span", `${num(points[pid] ?? 0)} ${tCount("tn_pts", points[pid] ?? 0)}`, "ttv-pts"));
    seats.append(row);
  });
  const leader = el("p", lineOf(table, names), "ttv-leader");
  card.append(head, seats, leader);
  const qr = tableQrs.get(table.table);
  if (qr && table.status === "seated") {
    const img = el("img", null, "ttv-table-qr");
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(qr)}`;
    img.alt = `${t("tn_report_qr")} ${table.table}`;
    card.classList.add("with-qr");
    card.append(img);
  }
  li.append(card);
  return li;
}

/** A table's line under its seats: the result's winner once a result is in ("won: Ada 45"),
 * else the live leader of its game (when it has one). */
function lineOf(table, names) {
  const result = table.approved || table.reported;
  if (result) {
    const first = result.filter((r) => r.place === 1);
    return `${t("tn_won")}: ${first.map((r) => names[r.player_id] || r.player_id).join(", ")} ${first[0]?.score ?? ""}`.trim();
  }
  return table.game_id ? leaders.get(table.game_id) || "" : "";
}

/** The finished tournament's podium (the standings' first three) and its winner. */
function paintPodium(tn, standings) {
  const podium = document.getElementById("ttv-podium");
  const done = tn.status === "finished";
  podium.hidden = !done;
  grid.hidden = done;
  if (!done) return;
  document.getElementById("ttv-winner").textContent = tn.winner ? tn.winner.name : "";
  document.getElementById("ttv-podium-list").replaceChildren(...standings.players.slice(0, 3).map((p) => {
    const li = el("li", null, `ttv-step ttv-step-${p.place}`);
    li.dataset.player = p.player_id;
    li.append(el("span", `${p.place}`, "ttv-place"), playerName(p.player_id, p.name, "ttv-pname"),
      el("span", `${num(p.points)} ${tCount("tn_pts", p.points)}`, "ttv-pts"));
    return li;
  }));
}

function paintStandings(standings) {
  const n = standings.players.length;
  const scols = n > 12 ? 2 : 1;
  lines.style.setProperty("--scols", scols);
  lines.style.setProperty("--lines", Math.max(8, Math.ceil(n / scols)));
  lines.replaceChildren(...standings.players.map((p) => {
    const li = el("li", null, p.dropped ? "dropped" : "");
    li.dataset.player = p.player_id;
    li.append(el("span", `${p.place}.`, "ttv-place"), playerName(p.player_id, p.name, "ttv-pname"),
      el("span", `${num(p.points)} ${tCount("tn_pts", p.points)}`, "ttv-pts"));
    if (p.dropped) li.title = t("tn_dropped");
    return li;
  }));
}

const tableQrs = new Map(); // table number -> its report form's QR code (SVG), this round's
let qrRound = 0;
let latest = null; // the latest frame's current round (the clock reads it)

/** The current round's table QR codes, fetched once per round with the organiser token
 * this tab holds (none: no table codes on this screen). */
async function fetchTableQrs(round) {
  const token = sessionStorage.getItem(`scoreledger.organiser.${tid}`);
  if (!token || !round || round.closed || qrRound === round.round) return false;
  qrRound = round.round;
  const response = await fetch(`${base}/rounds/${round.round}/slips`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) return false;
  tableQrs.clear();
  for (const slip of (await response.json()).tables) if (slip.qr_svg) tableQrs.set(slip.table, slip.qr_svg);
  return true;
}

let lastFrame = null; // repainted once a league holding the tournament links the names

async function paint(frame) {
  lastFrame = frame;
  const tn = frame.tournament;
  latest = tn.status === "finished" ? null : currentRound(tn);
  if (await fetchTableQrs(latest)) return paint(frame);
  document.getElementById("ttv-title").textContent = tn.settings.title;
  document.title = `${tn.settings.title} — scoreledger`;
  document.getElementById("ttv-round").textContent = tn.status === "finished" ? t("tn_finished") : roundTitle(tn);
  const round = currentRound(tn);
  const names = namesOf(tn);
  const points = Object.fromEntries(frame.standings.players.map((p) => [p.player_id, p.points]));
  const tables = round ? round.tables : [];
  const cols = columns(tables.length);
  grid.style.setProperty("--cols", cols);
  grid.style.setProperty("--rows", Math.max(1, Math.ceil(tables.length / cols)));
  grid.replaceChildren(...tables.map((table) => tableCard(table, names, points)));
  const empty = document.getElementById("ttv-empty");
  empty.hidden = tables.length > 0 || tn.status === "finished";
  empty.textContent = t("tn_not_seated");
  paintStandings(frame.standings);
  paintPodium(tn, frame.standings);
  watchGames(tables.map((table) => table.game_id).filter(Boolean));
}

/** The leader of game `gameId` in words ("Ada 45", shared leads joined), into its card. */
async function refreshLeader(gameId) {
  const response = await fetch(`/games/${encodeURIComponent(gameId)}/standings`);
  if (!response.ok) return;
  const s = await response.json();
  const top = s.players.filter((p) => p.rank === 1);
  // nobody leads while everyone is level (a game not scored yet)
  const text = top.length && top.length < s.players.length
    ? `${t("tn_leads")}: ${top.map((p) => p.name).join(", ")} ${top[0].total}` : "";
  leaders.set(gameId, text);
  const node = grid.querySelector(`.ttv-table.seated[data-game="${CSS.escape(gameId)}"] .ttv-leader`);
  if (node) node.textContent = text;
}

function watchGames(ids) {
  const next = new Set(ids);
  const added = ids.filter((id) => !watched.has(id));
  watched = next;
  added.forEach(refreshLeader);
  if (!next.size || gamesFeed) return;
  gamesFeed = new EventSource("/games/live?limit=1");
  gamesFeed.addEventListener("game", (e) => {
    const id = JSON.parse(e.data).change?.game_id;
    if (watched.has(id)) refreshLeader(id);
  });
}

function showQr() {
  const phone = new URL(`${base}/me`, location.origin).href;
  const img = document.getElementById("ttv-qr-code");
  img.src = `${base}/qr.svg`;
  img.alt = `${t("tn_qr")}: ${phone}`;
  img.dataset.url = phone;
  document.getElementById("ttv-qr").hidden = false;
}

translatePage();
showQr();
showLeagues("ttv-leagues", () => {
  if (!lastFrame) return;
  paintStandings(lastFrame.standings);
  paintPodium(lastFrame.tournament, lastFrame.standings);
});
runClock(document.getElementById("ttv-clock"), () => latest);
document.title = `${tid} — scoreledger`;
follow(paint);
