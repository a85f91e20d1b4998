// A player's phone view of a tournament (`/tournaments/{id}/me?player=`): their table and seat
// in the current round, the players at that table in seat order, their standing (place, points
// and why, in the standings' own words), and the standings; without `?player=` (or with an
// unknown one) a list to pick from. Live over `/tournaments/{id}/live`. Once the tournament
// is finished: the player's final place, in a sentence.
import { lang, t } from "./i18n.js";
import { translatePage } from "./page.js";
import { currentRound, el, follow, namesOf, num, roundTitle, statusWord } from "./tournament.js";

const params = new URLSearchParams(location.search);
const me = params.get("player");

function link(pid) {
  const url = new URL(location.href);
  url.searchParams.set("player", pid);
  return url.pathname + url.search;
}

function paintPick(tn) {
  document.getElementById("tn-pick").hidden = false;
  document.getElementById("tn-me").hidden = true;
  document.getElementById("tn-pick-list").replaceChildren(...tn.players.map((p) => {
    const li = el("li");
    const a = el("a", p.name);
    a.href = link(p.player_id);
    li.append(a);
    return li;
  }));
}

function paintMe(frame, player) {
  const tn = frame.tournament;
  const names = namesOf(tn);
  document.getElementById("tn-pick").hidden = true;
  document.getElementById("tn-me").hidden = false;
  document.getElementById("tn-me-name").textContent = player.name;
  const round = currentRound(tn);
  const table = round?.tables.find((x) => x.players.includes(player.player_id));
  const tableText = document.getElementById("tn-me-table");
  const seatText = document.getElementById("tn-me-seat");
  const mates = document.getElementById("tn-me-mates");
  if (table) {
    tableText.textContent = `${t("tn_table")} ${table.table} · ${statusWord(table.status)}`;
    const seat = table.players.indexOf(player.player_id) + 1;
    seatText.textContent = `${seat} ${t("tn_of")} ${table.players.length}`;
    mates.replaceChildren(...table.players.map((pid) => el("li", names[pid] || pid, pid === player.player_id ? "me" : "")));
  } else {
    const bye = round?.byes.includes(player.player_id);
    tableText.textContent = !round ? t("tn_not_seated") : bye ? t("tn_bye") : t("tn_not_playing");
    seatText.textContent = "—";
    mates.replaceChildren();
  }
  const line = frame.standings.players.find((p) => p.player_id === player.player_id);
  const standing = document.getElementById("tn-me-standing");
  standing.textContent = line
    ? `${line.place} ${t("tn_of")} ${frame.standings.players.length} · ${num(line.points)} ${t("tn_pts")}${line.dropped ? ` · ${t("tn_dropped")}` : ""}`
    : "—";
  document.getElementById("tn-me-explain").textContent = line ? explain(line) : "";
  const finished = tn.status === "finished";
  document.getElementById("tn-me-standing-label").textContent = t(finished ? "tn_final_place" : "tn_my_standing");
  if (finished && line) {
    tableText.textContent = t("tn_finished");
    seatText.textContent = "—";
    mates.replaceChildren();
    const count = String(frame.standings.players.length);
    document.getElementById("tn-me-explain").textContent = t("tn_final_explain").replace("{name}", line.name)
      .replace("{place}", String(line.place)).replace("{count}", count).replace("{value}", num(line.points))
      + " " + explain(line);
  }
  const change = new URL(location.href);
  change.searchParams.delete("player");
  document.getElementById("tn-me-change").href = change.pathname + change.search;
}

/** Why the player stands where they do. English: the standings' own sentence (it names the
 * tables behind the figure); other languages: built here from `decided_by` and the figure. */
function explain(line) {
  if (lang === "en") return line.explain;
  const fill = (key, criterion, value) => t(key).replace("{name}", line.name).replace("{place}", line.place)
    .replace("{criterion}", criterion).replace("{value}", value);
  if (line.decided_by === null) return fill("tn_explain_first", "", num(line.points));
  if (line.decided_by === "seed") return fill("tn_explain_seed", "", String(line.seed));
  const value = line.decided_by === "points" ? line.points : line.tie_breaks[line.decided_by];
  return fill("tn_explain", t(`tn_tb_${line.decided_by}`), num(value ?? 0));
}

function paintStandings(standings) {
  document.getElementById("tn-standings").replaceChildren(...standings.players.map((p) => {
    const li = el("li", null, [p.player_id === me ? "me" : "", p.dropped ? "dropped" : ""].join(" ").trim());
    li.dataset.player = p.player_id;
    li.append(el("span", `${p.place}.`, "tn-place"), el("span", p.name, "tn-name"), el("span", `${num(p.points)} ${t("tn_pts")}`, "tn-pts"));
    return li;
  }));
}

async function paint(frame) {
  const tn = frame.tournament;
  document.getElementById("tn-title").textContent = tn.settings.title;
  document.getElementById("tn-round").textContent = tn.status === "finished" ? t("tn_finished") : roundTitle(tn);
  const player = tn.players.find((p) => p.player_id === me);
  document.title = `${player ? `${player.name} · ` : ""}${tn.settings.title} — scoreledger`;
  if (player) paintMe(frame, player);
  else paintPick(tn);
  paintStandings(frame.standings);
}

translatePage();
follow(paint);
