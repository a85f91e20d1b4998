// Small helpers shared by the pages: an element helper, static labels, the live-connection
// indicator, JSON fetches, the game's title, and the expansion of compact live frames.
import { lang, t } from "./i18n.js";

/** A small element helper: `el("li", "text", "class")`. */
export function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

/** Fill every `[data-i18n=key]` element with its string (and `[data-i18n-label]` aria-labels);
 * point the language links at this page in each language. */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const a of root.querySelectorAll("[data-lang]")) {
    const url = new URL(location.href);
    url.searchParams.set("lang", a.dataset.lang);
    a.href = url.pathname + url.search;
    a.classList.toggle("active", a.dataset.lang === lang);
    if (a.dataset.lang === lang) a.setAttribute("aria-current", "true");
  }
}

/** Show an EventSource's state in `#live-status`. */
export function liveStatus(source) {
  const el = document.getElementById("live-status");
  if (!el) return;
  const show = (ok) => {
    el.textContent = `● ${t("connection")}: ${t(ok ? "connected" : "reconnecting")}`;
    el.classList.toggle("ok", ok);
  };
  source.addEventListener("open", () => show(true));
  source.addEventListener("error", () => show(false));
}

/** A busy server's answers a read waits out and asks again: 429 (this client's replays at
 * their limit) and 503 (the replay queue full or past its deadline, Redis busy). */
const RETRY_STATUSES = new Set([429, 503]);
/** At most this many asks of one read, waiting at most `maxWaitS` between two. */
export const RETRY = { attempts: 6, maxWaitS: 30 };

/** Seconds to wait before asking again after `response`: its `Retry-After` (seconds or an HTTP
 * date), else 1, 2, 4 ... by `attempt`; at most `RETRY.maxWaitS`. */
export function retryAfterS(response, attempt) {
  const header = response.headers.get("Retry-After");
  let seconds = header === null ? NaN : Number(header);
  if (header !== null && !Number.isFinite(seconds)) seconds = (Date.parse(header) - Date.now()) / 1000;
  if (!Number.isFinite(seconds) || seconds < 0) seconds = 2 ** attempt;
  return Math.min(seconds, RETRY.maxWaitS);
}

/** `fetch` JSON; throws an Error carrying `status` and the body on a non-2xx answer. A read
 * (GET) answered 429 or 503 is asked again after the answer's `Retry-After` (up to
 * `RETRY.attempts` asks); a write is never repeated here. */
export async function getJSON(url, options) {
  const method = (options?.method || "GET").toUpperCase();
  let response;
  for (let attempt = 0; ; attempt++) {
    response = await fetch(url, options);
    const again = RETRY_STATUSES.has(response.status) && method === "GET" && attempt + 1 < RETRY.attempts;
    if (!again) break;
    await new Promise((resolve) => setTimeout(resolve, retryAfterS(response, attempt) * 1000));
  }
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch { body = { message: text.slice(0, 200) }; }
  if (!response.ok) {
    const error = new Error(body?.message || body?.detail?.message || body?.detail || response.statusText);
    error.status = response.status;
    error.body = body;
    throw error;
  }
  return body;
}

const GAME_NAMES = { trickerion: "Trickerion", penumbra: "Penumbra" };

/** The game's display title: the kernel's `title` field when the standings carry it. */
export function gameTitle(s) {
  const title = s.title;
  if (title && typeof title === "object") return title[lang] || title.en;
  return title || GAME_NAMES[s.game] || s.game;
}

/**
 * A live frame's standings in the full shape: a compact frame (`compact: true`, players with
 * `points` for non-zero categories only) is expanded with the labels of `previous` (the last
 * full standings); a full frame is returned as is.
 */
export function expandFrame(frame, previous) {
  if (!frame.compact || !frame.standings) return frame.standings;
  const s = frame.standings;
  const labels = previous?.players?.[0]?.breakdown || [];
  const known = new Set(labels.map((c) => c.key));
  const breakdown = (points) => {
    const extra = Object.keys(points).filter((k) => !known.has(k)).map((key) => ({ key, en: key, ru: key, endgame: false }));
    return [...labels, ...extra].map((c) => ({ ...c, points: points[c.key] || 0 }));
  };
  return {
    ...previous,
    ...s,
    players: s.players.map((p) => ({
      ...p,
      breakdown: breakdown(p.points),
      provisional: p.provisional ? { total: p.provisional.total, categories: breakdown(p.provisional.points).filter((c) => c.endgame || p.provisional.points[c.key]) } : null,
    })),
  };
}
