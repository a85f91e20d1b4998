// The scoreboard page of one game: live standings (SSE `GET /games/{id}/live`), the chart, the
// history with its slider (`/standings?at_seq=N`), the ledger of a clicked total, the dispute
// view and the exports. The game id is the last part of the page's path.
import { t } from "./i18n.js";
import { getJSON, liveStatus, translatePage } from "./page.js";
import { renderStandings } from "./standings.js";
import { renderChart, wireAxisToggle } from "./scorechart.js";
import { renderLedger, renderTimeline } from "./history.js";
import { DisputeView } from "./dispute.js";

const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const api = `/games/${encodeURIComponent(gameId)}`;
const GAME_NAMES = { trickerion: "Trickerion", penumbra: "Penumbra" };

const state = { live: null, shown: null, version: 0, viewSeq: null, replayToken: 0 };
const slider = document.getElementById("slider");

function show(standings) {
  state.shown = standings;
  document.getElementById("title").textContent = `${GAME_NAMES[standings.game] || standings.game} · ${gameId}`;
  document.title = `${gameId} — scoreledger`;
  const badge = document.getElementById("status-badge");
  badge.textContent = t(standings.status);
  badge.className = `badge ${standings.status}`;
  renderStandings(standings, openLedger);
  const replay = state.viewSeq !== null;
  document.getElementById("replay-banner").hidden = !replay;
  document.getElementById("board").classList.toggle("replay", replay);
  if (replay) {
    document.getElementById("replay-text").textContent =
      `${t("viewing_replay")} #${standings.seq} ${t("of")} ${state.version}`;
  }
}

async function openLedger(player) {
  const ledger = await getJSON(`${api}/players/${encodeURIComponent(player.player_id)}/ledger`);
  renderLedger(player, ledger, player.breakdown);
}

/** Move the view to seq N (a replay), or back to live when N is the latest seq. */
async function viewAt(seq) {
  slider.value = seq;
  document.getElementById("slider-value").textContent = `#${seq}`;
  if (seq >= state.version) {
    state.viewSeq = null;
    if (state.live) show(state.live);
    return;
  }
  state.viewSeq = seq;
  const token = ++state.replayToken; // only the newest request may paint
  const standings = await getJSON(`${api}/standings?at_seq=${seq}`);
  if (token === state.replayToken && state.viewSeq === seq) show(standings);
}

let refreshing = null;
let again = false;
/** Reload the timeline and the series (after any change), keeping the slider's place. A change
 * arriving during a reload triggers one more reload, so the last one is never stale. */
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
  const wasLive = state.viewSeq === null;
  state.version = timeline.events.length;
  slider.max = Math.max(1, state.version);
  renderTimeline(timeline, viewAt, (row) => dispute.open(row, state.live || state.shown));
  renderChart(series);
  if (wasLive) {
    slider.value = state.version;
    document.getElementById("slider-value").textContent = `#${state.version}`;
  }
}

const dispute = new DisputeView(gameId, () => refreshHistory());

function wire() {
  translatePage();
  wireAxisToggle();
  slider.addEventListener("input", () => viewAt(Number(slider.value)));
  document.getElementById("back-live").addEventListener("click", () => viewAt(state.version));
  for (const button of document.querySelectorAll(".panel .close")) {
    button.addEventListener("click", () => { button.closest(".panel").hidden = true; });
  }
  document.getElementById("export-csv").href = `${api}/export/scoresheet.csv`;
  document.getElementById("export-jsonl").href = `${api}/export/events.jsonl`;
  document.getElementById("export-bgstats").addEventListener("click", async (e) => {
    e.preventDefault();
    const { link } = await getJSON(`${api}/export/bgstats.json`);
    window.open(link, "_blank", "noopener");
  });
  document.getElementById("export-bgstats").href = `${api}/export/bgstats.json`;
}

wire();
const source = new EventSource(`${api}/live`);
liveStatus(source);
source.addEventListener("standings", (e) => {
  const { standings } = JSON.parse(e.data);
  if (!standings) return;
  state.live = standings;
  if (standings.seq > state.version) state.version = standings.seq;
  if (state.viewSeq === null) show(standings);
  refreshHistory();
});
refreshHistory();
