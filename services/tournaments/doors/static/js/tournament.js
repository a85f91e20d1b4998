// Shared by the tournament pages (room screen, phone view, organiser's desk, overlay): the
// tournament id from the URL, the live feed (`/tournaments/{id}/live`, one `tournament` event
// per change: `{seq, tournament, standings}`), and small helpers over a frame.
import { lang, t } from "/static/js/i18n.js";
import { el, liveStatus } from "/static/js/page.js";

export { el }; // the pages import it from here with the tournament helpers

/** The tournament id: the path segment after `tournaments` (`/tv/tournaments/{id}`,
 * `/tournaments/{id}/me`, `/tournaments/{id}/desk`, `/overlay/tournaments/{id}`). */
export function tournamentId() {
  const parts = location.pathname.split("/").filter(Boolean);
  return decodeURIComponent(parts[parts.indexOf("tournaments") + 1]);
}

export const tid = tournamentId();
export const base = `/tournaments/${encodeURIComponent(tid)}`;

/** Call `paint(frame)` with every frame of the tournament's SSE (the browser resumes after a
 * dropped connection with `Last-Event-ID`). Returns the EventSource. */
export function follow(paint) {
  const source = new EventSource(`${base}/live`);
  liveStatus(source);
  source.addEventListener("tournament", async (e) => {
    await paint(JSON.parse(e.data));
  });
  return source;
}

/** The last seated round (or null). */
export function currentRound(tournament) {
  return tournament.rounds.at(-1) || null;
}

/** player id -> name. */
export function namesOf(tournament) {
  return Object.fromEntries(tournament.players.map((p) => [p.player_id, p.name]));
}

/** A table status (`seated`, `reported`, `approved`, `disputed`) in words. */
export function statusWord(status) {
  return t(`tn_status_${status}`);
}

/** A number of points without a needless ".0" (placement points may be fractions). */
export function num(value) {
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0$/, "");
}

/** "Round 2 of 5" (or "No round seated yet"). */
export function roundTitle(tournament) {
  const round = currentRound(tournament);
  if (!round) return t("tn_not_seated");
  return `${t("tn_round")} ${round.round} ${t("tn_of")} ${tournament.settings.rounds}`;
}

/** The round's clock in words: "Time left 12:05", "Time is up", or "" (no clock running). */
export function clockText(round, now = Date.now()) {
  if (!round || !round.timer || round.closed) return "";
  const left = Math.ceil((Date.parse(round.timer.ends_at) - now) / 1000);
  if (left <= 0) return t("tn_time_up");
  const mm = Math.floor(left / 60);
  const ss = String(left % 60).padStart(2, "0");
  return `${t("tn_time_left")} ${mm}:${ss}`;
}

/** Count `node` down each second from the round `get()` returns (the latest frame's). */
export function runClock(node, get) {
  const tick = () => {
    const text = clockText(get());
    if (node.textContent !== text) node.textContent = text;
    node.hidden = !text;
  };
  tick();
  return setInterval(tick, 1000);
}

// The leagues holding the tournament (an index kept at each addition), linked once at load in
// the element `id` (hidden until there is one), its list in the element `${id}-list`.
// The first of them keeps the players' pages (`playerName`); `found()` runs once it is known,
// so a page painted before can link its names.
export async function showLeagues(id, found) {
  const response = await fetch(`${base}/leagues`);
  if (!response.ok) return;
  const held = (await response.json()).leagues;
  if (!held.length) return;
  playerLeague = held[0];
  const list = document.getElementById(`${id}-list`);
  held.forEach((league, i) => {
    const a = el("a", league.title);
    a.href = league.page;
    list.append(...(i ? [", ", a] : [a]));
  });
  document.getElementById(id).hidden = false;
  if (found) found();
}

let playerLeague = null; // {league_id, title} of the first league holding the tournament

/** The player's page in the league holding the tournament (null: no league holds it). */
export function playerHref(pid) {
  if (!playerLeague) return null;
  return `/players/${encodeURIComponent(pid)}?league=${encodeURIComponent(playerLeague.league_id)}&lang=${lang}`;
}

/** The league's title whose player pages `playerHref` opens (null: none). */
export function playerLeagueTitle() {
  return playerLeague ? playerLeague.title : null;
}

/** A player's name (class `cls`): a link to their page in the tournament's league once one
 * holds it (their games, places and rating there), else plain text. */
export function playerName(pid, name, cls) {
  const href = playerHref(pid);
  if (!href) return el("span", name, cls);
  const a = el("a", name, cls);
  a.href = href;
  return a;
}
