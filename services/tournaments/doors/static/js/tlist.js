// The tournaments list (`/tournaments`): live, upcoming and finished, newest first, each with
// its room screen, phone view and desk; read from `GET /tournaments` (JSON) and read again
// every 15 s (a list of a few dozen: no feed of its own).
import { t } from "/static/js/i18n.js";
import { translatePage } from "/static/js/page.js";
import { el } from "./tournament.js";

function link(text, href, cls) {
  const a = el("a", text, cls);
  a.href = href;
  return a;
}

function item(row) {
  const li = el("li", null, "tn-item");
  li.dataset.tournament = row.tournament_id;
  const path = `/tournaments/${encodeURIComponent(row.tournament_id)}`;
  const head = el("p", null, "tn-item-head");
  head.append(link(row.title, `/tv${path}`, "tn-item-title"), el("span", ` · ${row.game}`));
  const facts = row.status === "upcoming"
    ? `${row.players} ${t("players").toLowerCase()} · ${row.rounds} ${t("tn_f_rounds").toLowerCase()}`
    : `${t("tn_round")} ${row.rounds_seated} ${t("tn_of")} ${row.rounds} · ${row.players} ${t("players").toLowerCase()}`;
  const about = el("p", facts, "tn-item-facts");
  if (row.winner) about.textContent = `${t("tn_winner")}: ${row.winner.name} · ${facts}`;
  const links = el("p", null, "tn-item-links");
  links.append(link(t("tn_room_screen"), `/tv${path}`), document.createTextNode(" · "),
    link(t("tn_phone_view"), `${path}/me`), document.createTextNode(" · "), link(t("tn_desk"), `${path}/desk`));
  li.append(head, about, links);
  return li;
}

async function paint() {
  const response = await fetch("/tournaments", { headers: { accept: "application/json" }, cache: "no-store" });
  if (!response.ok) return;
  const body = await response.json();
  for (const status of ["live", "upcoming", "finished"]) {
    const list = document.getElementById(`tn-list-${status}`);
    const rows = body[status];
    list.replaceChildren(...(rows.length ? rows.map(item) : [el("li", t("tn_none"), "muted")]));
  }
}

translatePage();
await paint();
setInterval(paint, 15000);
