// The form that creates a tournament (`/tournaments/new`): `POST /tournaments` without a
// token (the service generates the organiser token and answers it once), then one
// `POST /tournaments/{id}/players` per name with that token (ids p01, p02, ... in the order
// typed), then the organiser's desk, which shows the token once. The token is kept in this
// tab's `sessionStorage` only, as the desk keeps it. A refusal is said with its rule.
import { t } from "/static/js/i18n.js";
import { translatePage } from "/static/js/page.js";

const form = document.getElementById("tn-new-form");
const message = document.getElementById("tn-msg");
const MAX_PLAYERS = 500;

function say(text, error = false) {
  message.textContent = text;
  message.classList.toggle("error", error);
}

/** A tournament id from the title: its ASCII letters and digits, then 6 random hex digits
 * (two clubs' "Friday cup" never collide). */
function newId(title) {
  const slug = title.normalize("NFKD").replace(/[^A-Za-z0-9]+/g, "-").replace(/^-+|-+$/g, "").toLowerCase().slice(0, 40);
  const suffix = [...crypto.getRandomValues(new Uint8Array(3))].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${slug || "t"}-${suffix}`;
}

async function post(url, body, token) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const field = answer.errors?.[0]?.field || answer.field || "";
    throw new Error(`${t("tn_refused")} (${answer.rule || response.status}${field ? `, ${field}` : ""}): ${answer.detail || answer.title || response.statusText}`);
  }
  return answer;
}

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  const data = new FormData(form);
  const names = String(data.get("players")).split("\n").map((n) => n.trim()).filter(Boolean);
  if (names.length > MAX_PLAYERS) return say(`${t("tn_refused")}: ${MAX_PLAYERS}+ ${t("players").toLowerCase()}`, true);
  const auto = String(data.get("auto")).trim();
  const tid = newId(String(data.get("title")));
  const settings = {
    tournament_id: tid,
    title: String(data.get("title")).trim(),
    game: data.get("game"),
    rounds: Number(data.get("rounds")),
    scoring: data.get("scoring"),
    tie_breaks: data.getAll("tie_break"),
    remainder: data.get("remainder"),
    auto_approve_after_s: auto === "" ? null : Math.round(Number(auto) * 60),
  };
  const button = document.getElementById("tn-f-create");
  button.disabled = true;
  say(t("tn_creating"));
  let token = null;
  try {
    token = (await post("/tournaments", settings)).organiser_token;
    sessionStorage.setItem(`scoreledger.organiser.${tid}`, token);
    sessionStorage.setItem(`scoreledger.organiser.new.${tid}`, "1");
    const base = `/tournaments/${encodeURIComponent(tid)}`;
    for (const [i, name] of names.entries()) {
      await post(`${base}/players`, { player_id: `p${String(i + 1).padStart(2, "0")}`, name }, token);
    }
    location.assign(`${base}/desk${location.search}`);
  } catch (error) {
    say(error.message, true);
    button.disabled = false;
    if (token) location.assign(`/tournaments/${encodeURIComponent(tid)}/desk${location.search}`);
  }
});

translatePage();
