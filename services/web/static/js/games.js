// The games list page: `GET /games` once, then live updates from `GET /games/live` (SSE).
import { lang, t } from "./i18n.js";
import { translatePage, liveStatus } from "./page.js";

const games = new Map(); // game_id -> summary
const ORDER = { in_progress: 0, pending: 1, final: 2 };

function render() {
  const rows = [...games.values()].sort((a, b) =>
    ORDER[a.status] - ORDER[b.status] || (b.updated_at || "").localeCompare(a.updated_at || ""));
  const body = document.querySelector("#games tbody");
  body.replaceChildren(...rows.map((g) => {
    const tr = document.createElement("tr");
    tr.dataset.game = g.game_id;
    const link = document.createElement("a");
    link.href = `/games/${encodeURIComponent(g.game_id)}?lang=${lang}`;
    link.textContent = g.game_id;
    const cells = [link, g.game || "", t(g.status), String(g.seq), g.updated_at ? new Date(g.updated_at).toLocaleString(lang) : ""];
    cells.forEach((value, i) => {
      const td = document.createElement("td");
      if (i === 3) td.className = "num";
      if (i === 2) td.className = `status ${g.status}`;
      td.append(value);
      tr.append(td);
    });
    return tr;
  }));
  document.getElementById("empty").hidden = rows.length > 0;
}

translatePage();
const source = new EventSource("/games/live");
liveStatus(source);
source.addEventListener("games", (e) => { // sent on every (re)connect: the whole list
  games.clear();
  for (const g of JSON.parse(e.data).games) games.set(g.game_id, g);
  render();
});
source.addEventListener("game", (e) => {
  const { summary } = JSON.parse(e.data);
  games.set(summary.game_id, { ...games.get(summary.game_id), ...summary });
  render();
});
