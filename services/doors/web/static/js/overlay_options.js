// The stream overlays' URL parameters, shared by the game's (`overlay.js`) and the tournament's
// (`/static/tournaments/js/tov.js`): `theme=dark|light` (default dark), `scale=0.25..4` (default
// 1), `rows=1..maxRows` (the first N places; default `defaultRows`); `lang=en|ru` is i18n.js's.
// A value out of range falls back to the default or the nearest bound.
const params = new URLSearchParams(location.search);

/** A number parameter clamped to [lo, hi]; `fallback` when absent or not a number. */
function numberParam(name, lo, hi, fallback) {
  const value = Number(params.get(name));
  if (!params.has(name) || !Number.isFinite(value)) return fallback;
  return Math.min(hi, Math.max(lo, value));
}

/** The overlay's `{theme, scale, rows}`, applied to `#overlay` (overlay.css: the theme's class,
 * `--scale`, `data-theme`, `data-rows`). */
export function overlayOptions(maxRows, defaultRows) {
  const options = {
    theme: params.get("theme") === "light" ? "light" : "dark",
    scale: numberParam("scale", 0.25, 4, 1),
    rows: Math.round(numberParam("rows", 1, maxRows, defaultRows)),
  };
  const root = document.getElementById("overlay");
  root.classList.add(options.theme);
  root.style.setProperty("--scale", options.scale);
  root.dataset.theme = options.theme;
  root.dataset.rows = options.rows;
  return options;
}
