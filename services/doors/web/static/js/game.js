// The scoreboard page of one game: live standings (SSE `GET /games/{id}/live`, compact frames
// expanded), the chart with its cursor, the history in words, replay (slider, step buttons,
// keyboard: every panel at the chosen seq), the ledger of a clicked total, the dispute view
// and the exports. The game id is the last part of the page's path.
import { lang, loadGame, t, tieBreakText } from "./i18n.js";
import { expandFrame, gameTitle, getJSON, liveStatus, translatePage } from "./page.js";
import { renderStandings } from "./standings.js";
import { renderChart, setCursor, wireAxisToggle } from "./scorechart.js";
import { renderLedger, renderTimeline } from "./history.js";
import { DisputeView } from "./dispute.js";
import { colorMap } from "./colors.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const api = `/games/${encodeURIComponent(gameId)}`;
const state = {
  live: null, shown: null, version: 0, viewSeq: null, replayToken: 0, showZero: false,
  timeline: null, ctx: { names: {}, colors: {}, categories: {}, catalog: null, game: null, rows: new Map() },
  ledgerPlayer: null,
};
const slider = document.getElementById("slider");

function corrected() {
  const out = new Set();
  for (const row of state.timeline?.events || []) {
    if (row.correction && !row.voided && (state.viewSeq === null || row.seq <= state.viewSeq)) out.add(row.payload.player_id);
  }
  return out;
}

function resultText(s) {
  const names = Object.fromEntries(s.players.map((p) => [p.player_id, p.name]));
  const tie = tieBreakText(s, state.ctx.catalog);
  if (s.status !== "final") return tie ? `${t("tie_break")}: ${tie}` : "";
  const head = s.winner ? `${t("winner")}: ${names[s.winner]}` : `${t("shared_first")}: ${s.winners.map((w) => names[w]).join(", ")}`;
  return tie ? `${head}. ${t("tie_break")}: ${tie}` : head;
}

async function show(standings) {
  state.shown = standings;
  if (!state.ctx.catalog || state.ctx.game !== standings.game) {
    state.ctx.game = standings.game;
    state.ctx.catalog = await loadGame(standings.game);
  }
  state.ctx.names = Object.fromEntries(standings.players.map((p) => [p.player_id, p.name]));
  state.ctx.colors = colorMap(standings.players);
  state.ctx.categories = Object.fromEntries((standings.players[0]?.breakdown || []).map((c) => [c.key, c[lang] || c.en]));
  document.getElementById("title").textContent = `${gameTitle(standings)} · ${gameId}`;
  document.title = `${gameId} — scoreledger`;
  const replay = state.viewSeq !== null;
  const badge = document.getElementById("status-badge");
  const status = replay ? "replay" : standings.status;
  badge.textContent = t(status);
  badge.className = `badge ${status}`;
  renderStandings(standings, { onTotal: openLedger, showZero: state.showZero, corrected: corrected() });
  document.getElementById("result").textContent = resultText(standings);
  document.getElementById("replay-text").hidden = !replay;
  document.getElementById("back-live").hidden = !replay;
  document.getElementById("board").classList.toggle("replay", replay);
  if (replay) document.getElementById("replay-text").textContent = `${t("viewing_replay")} #${standings.seq} ${t("of")} ${state.version}`;
}

async function openLedger(player) {
  state.ledgerPlayer = player;
  const at = state.viewSeq ?? state.version;
  const ledger = await getJSON(`${api}/replay/ledger/${encodeURIComponent(player.player_id)}?at_seq=${at}`);
  renderLedger(player, ledger, player.breakdown, state.ctx, (state.shown || state.live)?.score_unit);
}

function paintTimeline() {
  if (!state.timeline) return;
  renderTimeline(state.timeline, state.ctx, state.viewSeq, viewAt, (row) => dispute.open(row, state.live || state.shown, state.ctx));
}

/** Move every panel to seq N (a replay), or back to live when N is the latest seq. */
async function viewAt(seq) {
  seq = Math.max(1, Math.min(seq, state.version || 1));
  slider.value = seq;
  document.getElementById("slider-value").textContent = `#${seq}`;
  const token = ++state.replayToken; // only the newest request may paint
  if (seq >= state.version) {
    state.viewSeq = null;
    setCursor(null);
    if (state.live) await show(state.live);
  } else {
    state.viewSeq = seq;
    setCursor(seq);
    const standings = await getJSON(`${api}/standings?at_seq=${seq}`);
    if (token !== state.replayToken || state.viewSeq !== seq) return;
    await show(standings);
  }
  paintTimeline();
  keepBoardInView();
  if (state.ledgerPlayer && !document.getElementById("ledger-panel").hidden) await openLedger(state.ledgerPlayer);
}

/** While scrubbing, the standings stay on screen (sticky beside the history on wide screens;
 * brought back into view on narrow ones). */
function keepBoardInView() {
  const board = document.getElementById("board").getBoundingClientRect();
  if (board.bottom < 80 || board.top > innerHeight - 80) document.getElementById("board").scrollIntoView({ block: "start" });
}

let refreshing = null;
let again = false;
/** Reload the timeline and the series (after any change), keeping the replay's place. */
function refreshHistory() {
  if (refreshing) { again = true; return refreshing; }
  refreshing = (async () => {
    try {
      do { again = false; await loadHistory(); } while (again);
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

async function loadHistory() {
  const [timeline, series] = await Promise.all([getJSON(`${api}/timeline`), getJSON(`${api}/series`)]);
  state.timeline = timeline;
  state.ctx.rows = new Map(timeline.events.map((r) => [r.seq, r]));
  state.version = Math.max(state.version, timeline.events.length);
  slider.max = Math.max(1, state.version);
  if (state.viewSeq === null) {
    slider.value = state.version;
    document.getElementById("slider-value").textContent = `#${state.version}`;
  }
  series.game = state.ctx.game;
  renderChart(series, state.ctx.colors);
  setCursor(state.viewSeq);
  paintTimeline();
  if (state.shown) await show(state.shown); // corrected marks follow the timeline
}

const dispute = new DisputeView(gameId, () => refreshHistory());

function step(delta) {
  const current = state.viewSeq ?? state.version;
  return viewAt(current + delta);
}

function wire() {
  translatePage();
  wireAxisToggle();
  document.getElementById("tv-link").href = `/tv/${encodeURIComponent(gameId)}?lang=${lang}`;
  slider.addEventListener("input", () => viewAt(Number(slider.value)));
  document.getElementById("back-live").addEventListener("click", () => viewAt(state.version));
  document.getElementById("step-back").addEventListener("click", () => step(-1));
  document.getElementById("step-forward").addEventListener("click", () => step(1));
  document.getElementById("step-first").addEventListener("click", () => viewAt(1));
  document.getElementById("step-last").addEventListener("click", () => viewAt(state.version));
  document.addEventListener("keydown", (e) => {
    if (e.target.closest("input:not([type=range]), select, textarea") || e.altKey || e.ctrlKey || e.metaKey) return;
    const moves = { ArrowLeft: () => step(-1), ArrowRight: () => step(1), Home: () => viewAt(1), End: () => viewAt(state.version) };
    if (!moves[e.key]) return;
    e.preventDefault();
    moves[e.key]();
  });
  document.getElementById("zero-toggle").addEventListener("click", () => {
    state.showZero = !state.showZero;
    if (state.shown) show(state.shown);
  });
  for (const button of document.querySelectorAll(".panel .close")) {
    button.addEventListener("click", () => { button.closest(".panel").hidden = true; });
  }
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  document.getElementById("export-csv").href = `${api}/export/scoresheet.csv?lang=${lang}&bom=true&tz=${encodeURIComponent(tz)}`;
  document.getElementById("export-jsonl").href = `${api}/export/events.jsonl`;
  const bgstats = document.getElementById("export-bgstats");
  bgstats.href = `${api}/export/bgstats.json?tz=${encodeURIComponent(tz)}`;
  bgstats.addEventListener("click", async (e) => {
    e.preventDefault();
    const message = document.getElementById("export-message");
    try {
      const { link } = await getJSON(bgstats.href);
      message.hidden = true;
      window.open(link, "_blank", "noopener");
    } catch (error) {
      message.hidden = false;
      message.textContent = `${error.status}: ${error.message}`;
    }
  });
}

function notFound() {
  document.getElementById("not-found").hidden = false;
  for (const id of ["board", "chart-section", "history"]) document.getElementById(id).hidden = true;
  document.title = `${t("not_found")} — scoreledger`;
  translatePage();
}

async function start() {
  wire();
  try {
    state.live = await getJSON(`${api}/standings`);
  } catch (error) {
    if (error.status === 404) return notFound();
  }
  if (state.live) {
    state.version = state.live.seq;
    await show(state.live);
  }
  const source = new EventSource(`${api}/live`);
  liveStatus(source);
  source.addEventListener("standings", async (e) => {
    const standings = expandFrame(JSON.parse(e.data), state.live);
    if (!standings) return;
    state.live = standings;
    if (standings.seq > state.version) state.version = standings.seq;
    if (state.viewSeq === null) await show(standings);
    refreshHistory();
  });
  refreshHistory();
}

start();
