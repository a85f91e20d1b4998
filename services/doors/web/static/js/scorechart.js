// The score-over-the-game chart: Chart.js (vendored UMD build, `window.Chart`), one line per
// player in the player's colour (colors.js), per event or per turn ("Setup", "Turn N" /
// "Round N"), and a cursor: a vertical line at the replayed seq.
import { t, unitName } from "./i18n.js";
import { turnName } from "./history.js";

let chart = null;
let axis = "event";
let last = null;
let colors = {};
let cursorSeq = null;

/** Index of the point to mark for `seq` on the current axis (the last point at or before). */
function cursorIndex(points) {
  if (cursorSeq === null) return null;
  let index = null;
  points.forEach((p, i) => { if (p.seq <= cursorSeq) index = i; });
  return index;
}

const cursorPlugin = {
  id: "seqCursor",
  afterDatasetsDraw(c) {
    const index = c.$cursorIndex;
    if (index === null || index === undefined) return;
    const x = c.scales.x.getPixelForValue(index);
    const { top, bottom } = c.chartArea;
    const ctx = c.ctx;
    ctx.save();
    ctx.strokeStyle = getComputedStyle(c.canvas).getPropertyValue("--cursor") || "#6a3fa0";
    ctx.lineWidth = 2;
    ctx.setLineDash([6, 4]);
    ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, bottom); ctx.stroke();
    ctx.restore();
  },
};

function data(series) {
  const points = axis === "turn" ? series.per_turn : series.per_event;
  const labels = points.map((p) => (axis === "turn" ? turnName(p.turn, series.game) : `#${p.seq}`));
  const datasets = series.players.map((player) => ({
    label: player.name,
    data: points.map((p) => p.totals[player.player_id] ?? 0),
    stepped: axis === "event",
    pointRadius: axis === "turn" ? 3 : 0,
    borderColor: colors[player.player_id],
    backgroundColor: colors[player.player_id],
    borderWidth: 3,
  }));
  return { labels, datasets, points };
}

/** Draw or update the chart from a series body; `playerColors` maps player id -> colour. */
export function renderChart(series, playerColors = colors) {
  last = series;
  colors = playerColors;
  const canvas = document.getElementById("chart");
  const { labels, datasets, points } = data(series);
  if (!chart) {
    chart = new window.Chart(canvas, {
      type: "line",
      data: { labels, datasets },
      plugins: [cursorPlugin],
      options: {
        animation: false,
        maintainAspectRatio: false,
        interaction: { mode: "index", intersect: false },
        scales: { y: { title: { display: true, text: unitName(series.score_unit) } } },
      },
    });
  } else {
    chart.data = { labels, datasets };
    chart.options.scales.y.title.text = unitName(series.score_unit);
  }
  chart.$cursorIndex = cursorIndex(points);
  chart.update();
}

/** Put the cursor at `seq` (null: none, the live view). */
export function setCursor(seq) {
  cursorSeq = seq;
  if (chart && last) {
    chart.$cursorIndex = cursorIndex(axis === "turn" ? last.per_turn : last.per_event);
    chart.update("none");
  }
}

/** The chart's cursor position as a seq (for tests and the page). */
export function cursor() {
  return cursorSeq;
}

/** Wire the per-event / per-turn toggle buttons (`[data-axis]`). */
export function wireAxisToggle() {
  for (const button of document.querySelectorAll("[data-axis]")) {
    button.addEventListener("click", () => {
      axis = button.dataset.axis;
      for (const b of document.querySelectorAll("[data-axis]")) {
        b.classList.toggle("active", b === button);
        b.setAttribute("aria-pressed", String(b === button));
      }
      if (last) renderChart(last);
    });
  }
  document.getElementById("chart").setAttribute("aria-label", t("chart_label"));
}
