// Small helpers shared by both pages: static labels and the live-connection indicator.
import { lang, t } from "./i18n.js";

/** Fill every `[data-i18n=key]` element with its string; mark the active language link. */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const a of root.querySelectorAll("[data-lang]")) {
    const url = new URL(location.href);
    url.searchParams.set("lang", a.dataset.lang);
    a.href = url.pathname + url.search;
    a.classList.toggle("active", a.dataset.lang === lang);
  }
}

/** Show an EventSource's state in `#live-status`. */
export function liveStatus(source) {
  const el = document.getElementById("live-status");
  const show = (ok) => {
    el.textContent = `● ${t("connection")}: ${t(ok ? "connected" : "reconnecting")}`;
    el.classList.toggle("ok", ok);
  };
  source.addEventListener("open", () => show(true));
  source.addEventListener("error", () => show(false));
}

/** `fetch` JSON; throws an Error carrying `status` and the body on a non-2xx answer. */
export async function getJSON(url, options) {
  const response = await fetch(url, options);
  const text = await response.text();
  const body = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = new Error(body?.message || body?.detail?.message || response.statusText);
    error.status = response.status;
    error.body = body;
    throw error;
  }
  return body;
}
