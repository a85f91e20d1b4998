// The score-over-the-game chart: Chart.js (vendored UMD build, `window.Chart`) configured with
// one line per player from `GET /games/{id}/series`, per event or per turn. No drawing code
// of our own: colours come from Chart.js's built-in Colors plugin.
import { t } from "./i18n.js";
import { unitName } from "./standings.js";

let chart = null;
let axis = "event";
let last = null;

function data(series) {
  const points = axis === "turn" ? series.per_turn : series.per_event;
  const labels = points.map((p) => (axis === "turn" ? `${t("turn")} ${p.turn}` : `#${p.seq}`));
  const datasets = series.players.map((player) => ({
    label: player.name,
    data: points.map((p) => p.totals[player.player_id] ?? 0),
    stepped: axis === "event",
    pointRadius: axis === "turn" ? 3 : 1,
  }));
  return { labels, datasets };
}

/** Draw or update the chart from a series body. */
export function renderChart(series) {
  last = series;
  const canvas = document.getElementById("chart");
  if (!chart) {
    chart = new window.Chart(canvas, {
      type: "line",
      data: data(series),
      options: {
        animation: false,
        maintainAspectRatio: false,
        interaction: { mode: "index", intersect: false },
        scales: { y: { title: { display: true, text: unitName(series.score_unit) } } },
      },
    });
    return;
  }
  chart.data = data(series);
  chart.options.scales.y.title.text = unitName(series.score_unit);
  chart.update();
}

/** Wire the per-event / per-turn toggle buttons (`[data-axis]`). */
export function wireAxisToggle() {
  for (const button of document.querySelectorAll("[data-axis]")) {
    button.addEventListener("click", () => {
      axis = button.dataset.axis;
      for (const b of document.querySelectorAll("[data-axis]")) b.classList.toggle("active", b === button);
      if (last) renderChart(last);
    });
  }
}
