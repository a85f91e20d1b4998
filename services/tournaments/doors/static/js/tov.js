// The tournament's stream overlay (`/overlay/tournaments/{id}`): the standings on a transparent
// page for stream software, read-only, live over `/tournaments/{id}/live`. The game overlay's
// parameters and classes (overlay_options.js, overlay.css): `theme=dark|light`,
// `scale=0.25..4`, `lang=en|ru`, and `rows=1..32` (the first N places; default 8).
import { t, tCount } from "/static/js/i18n.js";
import { overlayOptions } from "/static/js/overlay_options.js";
import { el, follow, num, roundTitle } from "./tournament.js";

const options = overlayOptions(32, 8);

follow(async (frame) => {
  const tn = frame.tournament;
  document.getElementById("ov-game").textContent = tn.settings.title;
  document.getElementById("ov-status").textContent = roundTitle(tn);
  document.getElementById("ov-players").replaceChildren(...frame.standings.players.slice(0, options.rows).map((p) => {
    const li = el("li", null, "ov-player");
    li.dataset.player = p.player_id;
    li.style.setProperty("--pc", "#56b4e9");
    const total = el("span", num(p.points), "ov-total");
    total.setAttribute("aria-label", `${p.name}: ${num(p.points)} ${tCount("tn_pts", p.points)}`);
    li.append(el("span", String(p.place), "ov-rank"), el("span", p.name, "ov-name"), total, el("span", tCount("tn_pts", p.points), "ov-prov"));
    return li;
  }));
});
