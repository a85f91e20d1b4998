// The kiosk (TV) view: `/tv/{game}` shows one game, `/tv` cycles through the live games
// (`?every=` seconds each, default 20). Full width, dark, big totals, the player's colour, the
// provisional "if the game ended now" beside each total, rank changes animated (FLIP), a
// changed total flashes, a ticker of as many of the last events as fit the screen, and a QR
// code that opens the game's phone view (`/games/{id}/qr.svg`, drawn by the server).
import { label, loadGame, t, tieBreakText, unitName } from "./i18n.js";
import { el, expandFrame, gameTitle, getJSON, liveStatus, translatePage } from "./page.js";
import { colorMap } from "./colors.js";
import { renderTicker, turnName } from "./history.js";
import { place } from "./standings.js";

const parts = location.pathname.split("/").filter(Boolean);
const fixedGame = parts.length > 1 ? decodeURIComponent(parts[1]) : null;
const every = Math.max(5, Number(new URLSearchParams(location.search).get("every")) || 20) * 1000;
const list = document.getElementById("tv-players");
const reduced = matchMedia("(prefers-reduced-motion: reduce)").matches;
let current = null; // { gameId, source, live, totals }

/** Re-render the players in rank order, animating moves from their previous places. */
function renderPlayers(s, previousTotals) {
  const before = new Map([...list.children].map((li) => [li.dataset.player, li.getBoundingClientRect().top]));
  const colors = colorMap(s.players);
  const unit = unitName(s.score_unit, s.score_unit_label);
  list.style.setProperty("--n", s.players.length);
  const items = s.players.map((p) => {
    const li = el("li", null, "tv-player");
    li.dataset.player = p.player_id;
    li.dataset.rank = p.rank;
    li.style.setProperty("--pc", colors[p.player_id]);
    const total = el("span", String(p.total), "tv-total");
    total.setAttribute("aria-label", `${p.name}: ${p.total} ${unit}`);
    if (previousTotals && previousTotals[p.player_id] !== undefined && previousTotals[p.player_id] !== p.total) total.classList.add("bump");
    const side = el("span", null, "tv-side");
    side.append(el("span", unit, "tv-unit"));
    if (p.provisional) side.append(el("span", `${t("if_ended")}: ${p.provisional.total}`, "tv-prov"));
    li.append(el("span", place(p.rank, s.players), "tv-rank"), el("span", p.name, "tv-name"), total, side);
    return li;
  });
  list.replaceChildren(...items);
  if (reduced) return;
  for (const li of items) {
    const was = before.get(li.dataset.player);
    if (was === undefined) continue;
    const dy = was - li.getBoundingClientRect().top;
    if (dy) li.animate([{ transform: `translateY(${dy}px)` }, { transform: "none" }], { duration: 600, easing: "ease-out" });
  }
}

async function paint(s) {
  const catalog = await loadGame(s.game);
  const previous = current.totals;
  current.totals = Object.fromEntries(s.players.map((p) => [p.player_id, p.total]));
  document.getElementById("tv-game").textContent = gameTitle(s);
  document.getElementById("tv-id").textContent = `\u00a0· ${current.gameId}`;
  document.getElementById("tv-title").title = `${gameTitle(s)} · ${current.gameId}`;
  document.title = `${current.gameId} — scoreledger TV`;
  const badge = document.getElementById("tv-status");
  badge.textContent = t(s.status);
  badge.className = `badge ${s.status}`;
  renderPlayers(s, previous);
  const tie = tieBreakText(s, catalog);
  const names = Object.fromEntries(s.players.map((p) => [p.player_id, p.name]));
  const head = s.status === "final" ? (s.winner ? `${t("winner")}: ${names[s.winner]}` : `${t("shared_first")}: ${s.winners.map((w) => names[w]).join(", ")}`) : "";
  document.getElementById("tv-result").textContent = [head, tie && `${t("tie_break")}: ${tie}`].filter(Boolean).join(". ");
  const timeline = await getJSON(`/games/${encodeURIComponent(current.gameId)}/timeline`);
  const categories = Object.fromEntries((s.players[0]?.breakdown || []).map((c) => [c.key, label(c)]));
  const ctx = { names, colors: colorMap(s.players), catalog, game: s.game, categories };
  lastTicker = { timeline, ctx };
  paintTicker();
  const last = timeline.events.at(-1);
  document.getElementById("tv-turn").textContent = last ? turnName(last.turn, s.game) : "";
}

let lastTicker = null; // { timeline, ctx } of the last paint, repainted on a resize

function paintTicker() {
  if (!lastTicker) return;
  const ticker = document.getElementById("tv-events");
  renderTicker(ticker, lastTicker.timeline, lastTicker.ctx, 8);
  fitTicker(ticker);
}
addEventListener("resize", paintTicker);

/** Drop the oldest shown events until the ticker fits the height left for it (no scroll). */
function fitTicker(ticker) {
  if (matchMedia("(max-width: 640px)").matches) return;
  while (ticker.children.length > 1 && ticker.scrollHeight > ticker.clientHeight + 1) ticker.lastElementChild.remove();
}

/** Point the QR code at the phone view of `gameId` (its URL also as the image's text): the URL
 * the server encoded (`X-QR-URL`: the public address when one is configured), else this page's
 * origin. */
async function showQr(gameId) {
  const src = `/games/${encodeURIComponent(gameId)}/qr.svg`;
  let phone = new URL(`/games/${encodeURIComponent(gameId)}`, location.origin).href;
  try {
    const response = await fetch(src); // cached (max-age): the image below reuses it
    phone = (response.ok && response.headers.get("X-QR-URL")) || phone;
  } catch {
    // the image's own load will show the failure; the caption keeps this origin's URL
  }
  if (current?.gameId !== gameId) return; // the kiosk moved on meanwhile
  const img = document.getElementById("tv-qr-code");
  img.src = src;
  img.alt = `${t("qr_follow")}: ${phone}`;
  img.dataset.url = phone;
  document.getElementById("tv-qr").hidden = false;
}

function follow(gameId) {
  if (current?.source) current.source.close();
  current = { gameId, source: new EventSource(`/games/${encodeURIComponent(gameId)}/live`), live: null, totals: null };
  list.replaceChildren();
  showQr(gameId);
  const mine = current;
  liveStatus(mine.source);
  mine.source.addEventListener("standings", async (e) => {
    const s = expandFrame(JSON.parse(e.data), mine.live);
    if (!s || mine !== current) return;
    mine.live = s;
    await paint(s);
  });
}

async function cycle() {
  const board = await getJSON("/board/games?per_page=50");
  const live = board.games.filter((g) => g.status === "in_progress");
  const pool = live.length ? live : board.games.filter((g) => g.status === "final").slice(0, 1);
  const empty = document.getElementById("tv-empty");
  empty.hidden = pool.length > 0;
  empty.textContent = t("no_live_games");
  if (!pool.length) return;
  const at = pool.findIndex((g) => g.game_id === current?.gameId);
  const next = pool[(at + 1) % pool.length];
  if (next.game_id !== current?.gameId) follow(next.game_id);
}

translatePage();
if (fixedGame) {
  follow(fixedGame);
} else {
  await cycle();
  setInterval(cycle, every);
}
