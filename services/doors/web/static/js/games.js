// The games list page: `GET /board/games?page=N` (players, leader and score, turn or round,
// status with `stale`), reloaded when `GET /games/live` (SSE) reports a change; paged.
import { lang, t } from "./i18n.js";
import { el, getJSON, liveStatus, translatePage } from "./page.js";
import { colorMap } from "./colors.js";
import { turnName } from "./history.js";

const params = new URLSearchParams(location.search);
let page = Math.max(1, Number(params.get("page")) || 1);
let pages = 1;
const GAME_NAMES = { trickerion: "Trickerion", penumbra: "Penumbra" };

function cell(label, ...children) {
  const td = el("td");
  td.dataset.label = t(label);
  td.append(...children);
  return td;
}

async function load() {
  const board = await getJSON(`/board/games?page=${page}&per_page=20`);
  pages = board.pages;
  const body = document.querySelector("#games tbody");
  body.replaceChildren(...board.games.map((g) => {
    const tr = el("tr");
    tr.dataset.game = g.game_id;
    tr.dataset.status = g.status;
    const link = el("a", g.game_id);
    link.href = `/games/${encodeURIComponent(g.game_id)}?lang=${lang}`;
    const what = el("span", ` ${GAME_NAMES[g.game] || g.game || ""}`, "muted");
    const colors = colorMap(g.players);
    const players = el("span", null, "players");
    for (const p of g.players) {
      const chip = el("span", p.name, `chip${g.leader.includes(p.player_id) ? " lead" : ""}`);
      chip.style.setProperty("--pc", colors[p.player_id]);
      players.append(chip);
    }
    const unit = g.score_unit ? t(`unit_${g.score_unit}`) : "";
    const leaders = g.players.filter((p) => g.leader.includes(p.player_id));
    const leader = leaders.length ? `${leaders.map((p) => p.name).join(", ")} — ${leaders[0].total} ${unit}` : "—";
    const status = el("span", t(g.status), `status ${g.status}`);
    const turn = g.turn === null || g.turn === undefined ? "—" : turnName(g.turn, g.game);
    const when = g.last_event_at || g.updated_at;
    tr.append(cell("game", link, what), cell("players", players), cell("leader", el("span", leader, "leader")),
      cell("turn_or_round", el("span", turn)), cell("status", status),
      cell("updated", el("span", when ? new Date(when).toLocaleString(lang) : "")));
    return tr;
  }));
  document.getElementById("empty").hidden = board.total > 0;
  document.getElementById("page-of").textContent = `${t("page")} ${board.page} ${t("of")} ${board.pages}`;
  document.getElementById("prev-page").disabled = page <= 1;
  document.getElementById("next-page").disabled = page >= pages;
}

function go(to) {
  page = Math.min(Math.max(1, to), pages);
  const url = new URL(location.href);
  url.searchParams.set("page", page);
  history.replaceState(null, "", url);
  load();
}

let timer = null;
function soon() { // many changes in a burst: one reload
  clearTimeout(timer);
  timer = setTimeout(load, 300);
}

translatePage();
document.getElementById("tv-link").href = `/tv?lang=${lang}`;
document.getElementById("prev-page").addEventListener("click", () => go(page - 1));
document.getElementById("next-page").addEventListener("click", () => go(page + 1));
await load();
const source = new EventSource("/games/live");
liveStatus(source);
source.addEventListener("game", soon);
