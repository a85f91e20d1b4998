// The stream overlay (`/overlay/games/{id}`): the live standings of one game on a transparent
// page, for stream software's browser source (OBS). Read-only: it only follows the game's SSE
// (`/games/{id}/live`, the scoreboard's stream, compact frames expanded). URL parameters
// (overlay_options.js): `theme=dark|light`, `scale=0.25..4`, `lang=en|ru`, `rows=1..6` (the
// first N places; default all).
import { loadGame, t, unitName } from "./i18n.js";
import { el, expandFrame, gameTitle } from "./page.js";
import { overlayOptions } from "./overlay_options.js";
import { colorMap } from "./colors.js";
import { place } from "./standings.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
export const options = overlayOptions(6, 6);

async function paint(s) {
  await loadGame(s.game);
  document.getElementById("ov-game").textContent = gameTitle(s);
  document.getElementById("ov-status").textContent = t(s.status);
  const colors = colorMap(s.players);
  const unit = unitName(s.score_unit, s.score_unit_label);
  document.getElementById("ov-players").replaceChildren(...s.players.slice(0, options.rows).map((p) => {
    const li = el("li", null, "ov-player");
    li.dataset.player = p.player_id;
    li.style.setProperty("--pc", colors[p.player_id]);
    const total = el("span", String(p.total), "ov-total");
    total.setAttribute("aria-label", `${p.name}: ${p.total} ${unit}`);
    const prov = el("span", p.provisional ? `${t("if_ended")}: ${p.provisional.total}` : unit, "ov-prov");
    li.append(el("span", place(p.rank, s.players), "ov-rank"), el("span", p.name, "ov-name"), total, prov);
    return li;
  }));
}

let live = null;
const source = new EventSource(`/games/${encodeURIComponent(gameId)}/live`);
source.addEventListener("standings", async (e) => {
  const s = expandFrame(JSON.parse(e.data), live);
  if (!s) return;
  live = s;
  await paint(s);
});
