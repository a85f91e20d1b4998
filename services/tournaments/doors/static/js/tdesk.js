// The organiser's desk (`/tournaments/{id}/desk`): seat the next round, see which tables of
// the current round have not reported, approve a reported (or disputed) result, drop a
// player. Writes go to the tournament's ingest routes with the organiser token, which is
// entered once and kept in this tab's `sessionStorage` (gone when the tab closes: a shared
// laptop at a venue keeps no organiser token). The page repaints from the tournament's SSE;
// each write's outcome (or the refusal's rule and message) is announced under the buttons.
// Once the tournament is finished the desk names the winner, offers the standings' exports
// and no longer offers drops. Each table of the current round gets its phone link (the
// table's report form, its key, the table game's token, in the fragment), from
// `POST /tournaments/{id}/rounds/{n}/games` with the organiser token. The desk checks players
// in, starts the open round's clock (counted down here and on the room screen) and prints the
// round's pairings and result slips, each slip with the QR code of its table's report form
// (`POST /tournaments/{id}/rounds/{n}/slips`: the table's key only in that answer's body).
import { t } from "/static/js/i18n.js";
import { translatePage } from "/static/js/page.js";
import { base, currentRound, el, follow, namesOf, num, playerName, roundTitle, runClock, showLeagues, statusWord, tid } from "./tournament.js";

const KEY = `scoreledger.organiser.${tid}`;
const tokenInput = document.getElementById("tn-token");
const message = document.getElementById("tn-msg");


function say(text, error = false) {
  message.textContent = text;
  message.classList.toggle("error", error);
}

/** One write with the organiser token; resolves to the JSON answer, or null after saying
 * why it was refused. */
async function write(method, url, body) {
  const token = sessionStorage.getItem(KEY) || tokenInput.value.trim();
  const headers = { authorization: `Bearer ${token}` };
  if (body) headers["content-type"] = "application/json";
  const response = await fetch(url, { method, headers, body: body ? JSON.stringify(body) : undefined });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    say(`${t("tn_refused")} (${answer.rule || response.status}): ${answer.detail || answer.title || response.statusText}`, true);
    return null;
  }
  return answer;
}

function resultText(results, names) {
  if (!results) return "—";
  return [...results].sort((a, b) => a.place - b.place).map((r) => `${r.place}. ${names[r.player_id] || r.player_id} (${r.score})`).join(", ");
}

function paintTables(tn) {
  const names = namesOf(tn);
  const round = currentRound(tn);
  const tables = round ? round.tables : [];
  const missing = tables.filter((x) => x.status === "seated").map((x) => x.table);
  document.getElementById("tn-missing").textContent = !round ? "" : missing.length
    ? `${t("tn_not_reported")}: ${missing.map((n) => `${t("tn_table")} ${n}`).join(", ")}`
    : t("tn_all_reported");
  document.querySelector("#tn-tables tbody").replaceChildren(...tables.map((x) => {
    const tr = el("tr");
    tr.dataset.table = x.table;
    tr.dataset.status = x.status;
    const action = el("td");
    if (x.status === "reported" || x.status === "disputed") {
      const button = el("button", t("tn_approve"));
      button.type = "button";
      button.setAttribute("aria-label", `${t("tn_approve")}: ${t("tn_table")} ${x.table}`);
      button.addEventListener("click", async () => {
        const done = await write("POST", `${base}/tables/${x.table}/result`, { action: "approve", round: round.round, by: "organiser" });
        if (done) say(`${t("tn_approved_msg")} ${x.table}`);
      });
      action.append(button);
    }
    tr.append(el("td", String(x.table)), el("td", x.players.map((p) => names[p] || p).join(", ")),
      el("td", statusWord(x.status), "tn-status"), el("td", resultText(x.approved || x.reported, names)), action);
    return tr;
  }));
}

let linked = 0; // the round whose phone links are shown

/** The current round's phone links, fetched once per round (the organiser token needed). */
async function paintLinks(tn) {
  const round = currentRound(tn);
  const box = document.getElementById("tn-links");
  if (!round || tn.status === "finished") {
    box.hidden = true;
    return;
  }
  if (linked === round.round || !(sessionStorage.getItem(KEY) || tokenInput.value.trim())) return;
  linked = round.round;
  const answer = await write("POST", `${base}/rounds/${round.round}/games`);
  if (!answer) {
    linked = 0;
    return;
  }
  document.getElementById("tn-links-list").replaceChildren(...answer.games.filter((g) => g.token).map((g) => {
    const li = el("li");
    const a = el("a", `${t("tn_table")} ${g.table}: ${t("tn_phone_link")}`);
    a.href = `${base}/tables/${g.table}/report#round=${g.round}&key=${encodeURIComponent(g.token)}`;
    a.dataset.table = g.table;
    li.append(a);
    return li;
  }));
  box.hidden = false;
}

/** The check-in cell's content: a "Check in" button, or "Checked in". */
function checkInCell(p, checked) {
  if (checked.has(p.player_id)) return el("span", t("tn_checked_in"), "tn-checked");
  const button = el("button", t("tn_check_in"));
  button.type = "button";
  button.setAttribute("aria-label", `${t("tn_check_in")}: ${p.name}`);
  button.addEventListener("click", async () => {
    const done = await write("POST", `${base}/players/${encodeURIComponent(p.player_id)}/check-in`);
    if (done) say(`${t("tn_checked_in_msg")} ${p.name}`);
  });
  return button;
}

function paintPlayers(frame) {
  const tn = frame.tournament;
  const dropped = new Set(tn.players.filter((p) => p.dropped_after !== null).map((p) => p.player_id));
  const checked = new Set(tn.players.filter((p) => p.checked_in).map((p) => p.player_id));
  const finished = tn.status === "finished";
  document.querySelector("#tn-players tbody").replaceChildren(...frame.standings.players.map((p) => {
    const tr = el("tr");
    tr.dataset.player = p.player_id;
    const action = el("td");
    if (finished) {
      action.textContent = dropped.has(p.player_id) ? t("tn_dropped") : "—";
    } else if (!dropped.has(p.player_id)) {
      action.append(checkInCell(p, checked), " ");
      const button = el("button", t("tn_drop"));
      button.type = "button";
      button.setAttribute("aria-label", `${t("tn_drop")}: ${p.name}`);
      button.addEventListener("click", async () => {
        if (!confirm(t("tn_confirm_drop").replace("{name}", p.name))) return;
        const done = await write("DELETE", `${base}/players/${encodeURIComponent(p.player_id)}`);
        if (done) say(`${t("tn_dropped_msg")} ${p.name}`);
      });
      action.append(button);
    } else {
      action.textContent = t("tn_dropped");
    }
    const name = el("td");
    name.append(playerName(p.player_id, p.name));
    tr.append(el("td", String(p.place)), name, el("td", num(p.points)), action);
    return tr;
  }));
}

let currentRoundNo = 0; // the last seated round's number (its slips print)

let lastFrame = null; // repainted once a league holding the tournament links the names

async function paint(frame) {
  lastFrame = frame;
  const tn = frame.tournament;
  currentRoundNo = currentRound(tn)?.round || 0;
  document.getElementById("tn-title").textContent = tn.settings.title;
  document.title = `${t("tn_desk")}: ${tn.settings.title} — scoreledger`;
  document.getElementById("tn-round").textContent = roundTitle(tn);
  const wait = tn.settings.auto_approve_after_s;
  document.getElementById("tn-auto").textContent = wait === null
    ? t("tn_auto_off") : t("tn_auto_after").replace("{n}", num(Math.round((wait / 60) * 100) / 100));
  // every round seated: nothing left to seat, even while the last round's tables are reported
  const done = tn.rounds.length >= tn.settings.rounds;
  document.getElementById("tn-seat").disabled = Boolean(done);
  if (done) document.getElementById("tn-missing").textContent = t("tn_all_rounds");
  known = tn.players.map((p) => p.player_id);
  const finished = tn.status === "finished";
  document.getElementById("tn-end").hidden = !finished;
  document.getElementById("tn-add-form").hidden = finished;
  if (finished) {
    document.getElementById("tn-round").textContent = t("tn_finished");
    document.getElementById("tn-missing").textContent = "";
    document.getElementById("tn-winner").textContent = tn.winner ? tn.winner.name : "";
  }
  const round = currentRound(tn);
  openRound = round && !round.closed && !finished ? round : null;
  document.getElementById("tn-timer-form").hidden = !openRound;
  document.getElementById("tn-print").hidden = !round || finished;
  paintTables(tn);
  paintPlayers(frame);
  await paintLinks(tn);
}

let openRound = null; // the latest frame's open round (its clock counts down here)

/** The round's slips, one per table: its players with a place and score to fill in, and
 * the QR code of the table's report form. */
function slipOf(slip, round) {
  const li = el("li", null, "tn-slip");
  li.dataset.table = slip.table;
  li.append(el("h3", `${t("tn_table")} ${slip.table} · ${t("tn_round")} ${round}`));
  const list = el("ol", null, "tn-slip-players");
  slip.players.forEach((name, i) => {
    const row = el("li");
    row.append(el("span", `${t("tn_seat_no")} ${i + 1}: ${name}`), el("span", `${t("tn_slip_place")} ____  ${t("tn_slip_score")} ______`, "tn-slip-blank"));
    list.append(row);
  });
  li.append(list);
  if (slip.qr_svg) {
    const figure = el("figure", null, "tn-slip-qr");
    const img = el("img");
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(slip.qr_svg)}`;
    img.alt = `${t("tn_report_qr")} ${slip.table}`;
    figure.append(img, el("figcaption", t("tn_slip_scan")));
    li.append(figure);
  }
  return li;
}

async function showSlips() {
  const round = currentRoundNo;
  if (!round) return false;
  const answer = await write("POST", `${base}/rounds/${round}/slips`);
  if (!answer) return false;
  document.getElementById("tn-slips-list").replaceChildren(...answer.tables.map((s) => slipOf(s, answer.round)));
  document.getElementById("tn-slips").hidden = false;
  return true;
}

document.getElementById("tn-token-form").addEventListener("submit", (e) => {
  e.preventDefault();
  sessionStorage.setItem(KEY, tokenInput.value.trim());
  say(t("tn_token_set"));
});
// Add a player by name (a registration before round 1, a late join after): the next free id.
let known = [];
document.getElementById("tn-add-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const input = document.getElementById("tn-add-name");
  const name = input.value.trim();
  if (!name) return;
  let n = known.length + 1;
  const id = () => `p${String(n).padStart(2, "0")}`;
  while (known.includes(id())) n += 1;
  const done = await write("POST", `${base}/players`, { player_id: id(), name });
  if (done) {
    known = [...known, id()];
    input.value = "";
    say(`${t("tn_added_msg")} ${name}`);
  }
});
document.getElementById("tn-timer-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  if (!openRound) return;
  const minutes = Number(document.getElementById("tn-timer-min").value);
  const done = await write("POST", `${base}/rounds/${openRound.round}/timer`, { minutes });
  if (done) say(`${t("tn_timer_started")} ${minutes} ${t("tn_minutes")}`);
});
document.getElementById("tn-print").addEventListener("click", async () => {
  if (await showSlips()) window.print();
});
runClock(document.getElementById("tn-clock"), () => openRound);
document.getElementById("tn-seat").addEventListener("click", async () => {
  const seated = await write("POST", `${base}/rounds`);
  if (seated) say(`${t("tn_seated_round")} ${seated.round}: ${seated.tables.length} ${t("tn_tables").toLowerCase()}`);
});
// What the organiser already typed while the page was loading stays.
if (!tokenInput.value) tokenInput.value = sessionStorage.getItem(KEY) || "";
// Just created from /tournaments/new: the token in clear this once (a reload hides it).
if (sessionStorage.getItem(`scoreledger.organiser.new.${tid}`)) {
  sessionStorage.removeItem(`scoreledger.organiser.new.${tid}`);
  document.getElementById("tn-token-shown").textContent = tokenInput.value;
  document.getElementById("tn-token-once").hidden = false;
}
document.getElementById("tn-tv-link").href = `/tv${base}`;
document.getElementById("tn-me-link").href = `${base}/me`;
document.getElementById("tn-export-csv").href = `${base}/standings.csv`;
document.getElementById("tn-export-json").href = `${base}/standings`;
translatePage();
showLeagues("tn-leagues", () => lastFrame && paintPlayers(lastFrame));
follow(paint);
