// Words of the pages in English and Russian. The language is `?lang=en|ru` if given, else the
// browser's (Russian for any `ru*`), else English. The catalogues are JSON files under
// /static/i18n/: `ui.json` (the pages' own words), `common.json` (events every game shares) and
// one file per game (`<game>.json`: its events, words and tie-break sentence). Category names
// come with the standings (each category carries `en` and `ru`).
const load = async (name) => {
  const response = await fetch(`/static/i18n/${name}.json`);
  return response.ok ? response.json() : { events: {}, words: {}, tie_break: {} };
};
const [UI, COMMON] = await Promise.all([load("ui"), load("common")]);
const games = new Map();

/** The page's language: `?lang=`, else the browser's, else English. */
export function pickLang() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked === "en" || asked === "ru") return asked;
  const browser = (navigator.languages && navigator.languages[0]) || navigator.language || "en";
  return browser.toLowerCase().startsWith("ru") ? "ru" : "en";
}

export const lang = pickLang();
document.documentElement.lang = lang;

/** The interface string `key` in the page's language. */
export function t(key) {
  return UI[lang]?.[key] ?? UI.en[key] ?? key;
}

const plurals = new Intl.PluralRules(lang);

/** The interface string `key` for a count `n`: `key_one`, `key_few`... by the language's plural
 * rule when the catalogue has that form ("1 pt", "2 pts"), else `key`. */
export function tCount(key, n) {
  const form = `${key}_${plurals.select(n)}`;
  return UI[lang]?.[form] ?? UI[lang]?.[key] ?? UI.en[form] ?? UI.en[key] ?? key;
}

/** A category's label in the page's language (the API sends `en` and `ru`). */
export function label(category) {
  return category[lang] || category.en || category.key;
}

/**
 * The ledger's name of category `key` for `resource`. The standings' categories (`byKey`, key ->
 * category) name the score's (Fame / VP) rows; another resource's rows (Coins, Shards) take their
 * own names from the game catalogue's `resource_categories`, else "<resource>: <key>" (never a
 * Fame name on a Coins row).
 */
export function ledgerCategory(resource, key, byKey, catalog, scoreUnit) {
  if (resource === scoreUnit) return byKey[key] ? label(byKey[key]) : key;
  const own = catalog?.resource_categories?.[resource]?.[key];
  if (own) return own[lang] || own.en;
  return `${t(`unit_${resource}`)}: ${word(catalog || {}, key) || key}`;
}

/** Load the catalogue of `game` (trickerion, penumbra, ...) once; resolves to it. */
export async function loadGame(game) {
  if (!game) return { events: {}, words: {}, tie_break: {} };
  if (!games.has(game)) games.set(game, load(game));
  return games.get(game);
}

function pick(entry) {
  return entry ? entry[lang] || entry.en : null;
}

function word(catalog, value) {
  return pick(catalog.words?.[value]) || pick(COMMON.words[value]);
}

/** The score unit's name (Fame / VP; `unit` from standings, or the kernel's `score_unit_label`). */
export function unitName(unit, labels) {
  if (labels && labels[lang]) return labels[lang];
  return t(`unit_${unit}`);
}

const PLAYER_FIELDS = new Set(["player_id", "owner_id", "performer_id", "other_owner_id", "by_player"]);

function show(value, key, ctx, catalog) {
  if (value === null || value === undefined || value === "") return pick(COMMON.words.none);
  if (Array.isArray(value)) {
    return value.map((v) => (typeof v === "object" ? v.name || v.player_id || JSON.stringify(v) : show(v, key, ctx, catalog))).join(", ");
  }
  if (typeof value === "object") return Object.entries(value).map(([k, n]) => `${k}×${n}`).join(", ");
  if (PLAYER_FIELDS.has(key) || ctx.names[value]) return ctx.names[value] ?? String(value);
  if (typeof value === "string") return word(catalog, value) || value;
  return String(value);
}

function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "0";
}

/**
 * One event in words: `row` is a `/timeline` row (type, payload, void_of_seq), `ctx` holds
 * `names` (player id -> name), `categories` (key -> label) and the game's `catalog`.
 */
export function describe(row, ctx) {
  const catalog = ctx.catalog || { events: {} };
  const template = pick(catalog.events?.[row.type]) || pick(COMMON.events[row.type]);
  const data = { ...(row.payload || {}) };
  if (!template) return row.type;
  const derived = {
    voided_seq: row.void_of_seq ?? "?",
    changes: ["fame", "coins", "shards"].filter((k) => data[k]).map((k) => `${signed(data[k])} ${word(catalog, k)}`).join(", "),
  };
  if (row.type === "game.score_corrected") {
    derived.amount = signed(data.amount);
    derived.category = ctx.categories?.[data.category] || data.category;
  }
  if (row.type === "game.turn_started" && !data.initiative_order) data.initiative_order = null;
  return template.replace(/\{(\w+)\}/g, (_, key) => (key in derived ? String(derived[key]) : show(data[key], key, ctx, catalog)));
}

/**
 * The tie-break in words, built from the standings (who tied, on what) and the game's
 * catalogue; never the domain's English note. Empty when first place is not tied.
 */
export function tieBreakText(s, catalog) {
  const top = s.players.filter((p) => p.rank === 1);
  if (top.length < 2) return "";
  const names = top.map((p) => p.name);
  const who = names.length > 1 ? `${names.slice(0, -1).join(", ")} ${pick(COMMON.tie_break.and)} ${names.at(-1)}` : names[0];
  const tied = pick(COMMON.tie_break.tied).replace("{who}", who).replace("{best}", top[0].total)
    .replace("{unit}", unitName(s.score_unit, s.score_unit_label));
  if (s.status !== "final") return tied;
  const winner = s.winner ? s.players.find((p) => p.player_id === s.winner)?.name : null;
  const decision = pick(catalog?.tie_break?.[winner ? "single" : "shared"]);
  return decision ? `${tied}; ${decision.replace("{winner}", winner ?? "")}` : tied;
}
