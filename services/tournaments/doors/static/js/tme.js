// A player's phone view of a tournament (`/tournaments/{id}/me?player=`): their table and seat
// in the current round, the players at that table in seat order, their standing (place, points
// and why, in words: "round 1, table 3"), and the standings; without `?player=` (or with an
// unknown one) a list to pick from. Live over `/tournaments/{id}/live`. Once the tournament
// is finished: the player's final place, in a sentence. Once a league holds the tournament, the
// names open the players' pages there, and the player's own page is linked.
import { t, tCount } from "/static/js/i18n.js";
import { translatePage } from "/static/js/page.js";
import { currentRound, el, follow, namesOf, num, playerHref, playerLeagueTitle, playerName, roundTitle, showLeagues, statusWord } from "./tournament.js";

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
    ? `${line.place} ${t("tn_of")} ${frame.standings.players.length} · ${num(line.points)} ${tCount("tn_pts", line.points)}${line.dropped ? ` · ${t("tn_dropped")}` : ""}`
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
  paintRecord(player);
  const change = new URL(location.href);
  change.searchParams.delete("player");
  document.getElementById("tn-me-change").href = change.pathname + change.search;
}

/** The tables behind the deciding figure, in words ("round 1, table 3; round 2 (bye)"). The
 * live frame keeps figures lean (values only), so they are read from the tail of the
 * standings' own sentence, `explain` ("…: R1 T3, R2 bye"); none when it has no such tail. */
function tablesOf(line) {
  const tail = /: (R\d+ (?:T\d+|bye)(?:, R\d+ (?:T\d+|bye))*)$/.exec(line.explain || "");
  if (!tail) return "";
  return tail[1].split(", ").map((part) => {
    const [round, table] = part.slice(1).split(" ");
    const words = table === "bye" ? t("tn_why_bye") : t("tn_why_table").replace("{table}", table.slice(1));
    return words.replace("{round}", round);
  }).join("; ");
}

/** Why the player stands where they do, in words a player reads (EN and RU alike): place,
 * the figure that decided it, and the tables behind that figure (`tablesOf`). */
function explain(line) {
  const fill = (key, criterion, value) => t(key).replace("{name}", line.name)
    .replace("{place}", String(line.place)).replace("{criterion}", criterion).replace("{value}", value);
  if (line.decided_by === "seed") return `${fill("tn_why_seed", "", String(line.seed))}.`;
  const said = line.decided_by === null || line.decided_by === "points"
    ? fill("tn_why_points", "", num(line.points))
    : fill("tn_why_tie_break", t(`tn_tb_${line.decided_by}`), num(line.tie_breaks[line.decided_by] ?? 0));
  const tables = tablesOf(line);
  return tables ? `${said} (${t("tn_why_from").replace("{tables}", tables)}).` : `${said}.`;
}

/** The link to the player's own page in the league holding the tournament (games, places,
 * rating over time); hidden while no league holds it. */
function paintRecord(player) {
  const href = playerHref(player.player_id);
  document.getElementById("tn-me-record").hidden = !href;
  if (!href) return;
  const a = document.getElementById("tn-me-record-link");
  a.href = href;
  a.textContent = t("tn_my_record").replace("{league}", playerLeagueTitle());
}

function paintStandings(standings) {
  document.getElementById("tn-standings").replaceChildren(...standings.players.map((p) => {
    const li = el("li", null, [p.player_id === me ? "me" : "", p.dropped ? "dropped" : ""].join(" ").trim());
    li.dataset.player = p.player_id;
    li.append(el("span", `${p.place}.`, "tn-place"), playerName(p.player_id, p.name, "tn-name"), el("span", `${num(p.points)} ${tCount("tn_pts", p.points)}`, "tn-pts"));
    return li;
  }));
}

let lastFrame = null; // repainted once a league holding the tournament links the names

async function paint(frame) {
  lastFrame = frame;
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
showLeagues("tn-leagues", () => lastFrame && paint(lastFrame));
follow(paint);
