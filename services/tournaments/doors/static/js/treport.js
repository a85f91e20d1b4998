// A table's report form on its players' phones (`/tournaments/{id}/tables/{n}/report`). The
// link's fragment carries the round and the table's key (`#round=1&key=...`: its game's
// write token), which the browser never sends to a server. One player reports each player's
// place and score; the others confirm; the organiser (or the timer) approves. Live over the
// tournament's SSE. Writes: `POST /tournaments/{id}/tables/{n}/result` with the table's key.
import { t } from "/static/js/i18n.js";
import { translatePage } from "/static/js/page.js";
import { base, el, follow, namesOf, statusWord } from "./tournament.js";

const parts = location.pathname.split("/").filter(Boolean);
const tableNo = Number(parts[parts.indexOf("tables") + 1]);
const fragment = new URLSearchParams(location.hash.slice(1));
const roundNo = Number(fragment.get("round"));
const key = fragment.get("key");
const message = document.getElementById("tn-msg");
let shown = null; // the status last painted: the form is rebuilt only when it changes

function say(text, error = false) {
  message.textContent = text;
  message.classList.toggle("error", error);
}

async function write(body) {
  const response = await fetch(`${base}/tables/${tableNo}/result`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ round: roundNo, ...body }),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    say(`${t("tn_refused")} (${answer.rule || response.status}): ${answer.detail || answer.title || response.statusText}`, true);
    return null;
  }
  return answer;
}

function options(select, players, names) {
  select.replaceChildren(...players.map((pid) => {
    const option = el("option", names[pid] || pid);
    option.value = pid;
    return option;
  }));
}

function paintForm(table, names) {
  const n = table.players.length;
  document.querySelector("#tn-report-rows tbody").replaceChildren(...table.players.map((pid, i) => {
    const tr = el("tr");
    tr.dataset.player = pid;
    const name = names[pid] || pid;
    const place = el("select");
    place.name = `place-${pid}`;
    place.setAttribute("aria-label", `${t("tn_report_place")}: ${name}`);
    for (let p = 1; p <= n; p += 1) {
      const option = el("option", String(p));
      option.value = String(p);
      place.append(option);
    }
    place.value = String(i + 1);
    const score = el("input");
    score.type = "number";
    score.required = true;
    score.min = "0";
    score.max = "100000";
    score.name = `score-${pid}`;
    score.setAttribute("aria-label", `${t("tn_report_score")}: ${name}`);
    const cells = [el("td", name), el("td"), el("td")];
    cells[1].append(place);
    cells[2].append(score);
    tr.append(...cells);
    return tr;
  }));
  options(document.getElementById("tn-report-by"), table.players, names);
}

function paintReported(table, names) {
  const lines = [...(table.approved || table.reported)].sort((a, b) => a.place - b.place);
  document.getElementById("tn-reported-lines").replaceChildren(
    ...lines.map((r) => el("li", `${r.place}. ${names[r.player_id] || r.player_id} — ${r.score}`)));
  document.getElementById("tn-reported-confirmed").textContent = table.confirmed.length
    ? `${t("tn_confirmed_by")}: ${table.confirmed.map((p) => names[p] || p).join(", ")}` : "";
  const open = table.status === "reported";
  document.getElementById("tn-confirm").hidden = !open;
  if (open) options(document.getElementById("tn-confirm-who"), table.players.filter((p) => !table.confirmed.includes(p)), names);
  document.getElementById("tn-reported-state").textContent = table.status === "approved" ? t("tn_report_done") : t("tn_report_wait");
}

async function paint(frame) {
  const tn = frame.tournament;
  const names = namesOf(tn);
  document.getElementById("tn-title").textContent = tn.settings.title;
  const round = tn.rounds.find((r) => r.round === roundNo);
  const table = round?.tables.find((x) => x.table === tableNo);
  document.getElementById("tn-round").textContent = table
    ? `${t("tn_round")} ${roundNo} · ${t("tn_table")} ${tableNo} · ${statusWord(table.status)}` : "";
  document.title = `${t("tn_table")} ${tableNo} · ${tn.settings.title} — scoreledger`;
  if (!key || !table) {
    document.getElementById("tn-no-key").hidden = false;
    return;
  }
  const form = document.getElementById("tn-report");
  const reported = document.getElementById("tn-reported");
  form.hidden = table.status !== "seated";
  reported.hidden = table.status === "seated";
  const state = `${table.status}:${table.confirmed.length}`;
  if (state === shown) return;
  shown = state;
  if (table.status === "seated") paintForm(table, names);
  else paintReported(table, names);
}

document.getElementById("tn-report").addEventListener("submit", async (e) => {
  e.preventDefault();
  const rows = [...document.querySelectorAll("#tn-report-rows tbody tr")];
  const results = rows.map((tr) => ({
    player_id: tr.dataset.player,
    place: Number(tr.querySelector("select").value),
    score: Number(tr.querySelector("input").value),
  }));
  const by = document.getElementById("tn-report-by").value;
  if (await write({ action: "report", results, by })) say(t("tn_report_sent"));
});
document.getElementById("tn-confirm").addEventListener("submit", async (e) => {
  e.preventDefault();
  const select = document.getElementById("tn-confirm-who");
  const who = select.value;
  const name = select.selectedOptions[0]?.textContent || who;
  if (await write({ action: "confirm", player_id: who })) say(`${t("tn_confirmed_msg")} ${name}`);
});
translatePage();
// the language links keep the fragment (the table's key)
for (const a of document.querySelectorAll("[data-lang]")) a.href += location.hash;
follow(paint);
