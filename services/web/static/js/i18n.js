// Interface strings in English and Russian. The language is `?lang=en|ru` if given, else the
// browser's language (Russian for any `ru*`), else English. Category names come from the API
// (each category carries its `en` and `ru` label); only the page's own words live here.

const STRINGS = {
  en: {
    games: "Games", game: "Game", status: "Status", seq: "Seq", events: "Events", updated: "Updated",
    in_progress: "live", final: "final", pending: "pending", no_games: "No games yet.",
    rank: "Place", player: "Player", total: "Total", provisional: "If the game ended now",
    provisional_note: "Provisional: end-game categories scored as if the game ended now; not final.",
    shared: "shared", winner: "Winner", shared_first: "Shared first place", tie_break: "Tie-break",
    chart: "Score over the game", per_event: "per event", per_turn: "per turn", turn: "Turn",
    history: "History", replay_at: "Standings at seq", live_view: "Back to live",
    viewing_replay: "Replay: the standings after event", of: "of",
    type: "Event", actor: "Actor", moved: "Points moved", details: "Details",
    voided: "voided", voided_by: "voided by #", void_of: "voids #", correction: "correction",
    corrected_by: "disputed; correction #", dispute: "Dispute",
    ledger: "Ledger of", amount: "Amount", category: "Category", rule: "Rule", note: "Note",
    resource: "Resource", close: "Close",
    dispute_title: "Dispute of event #", with_event: "With the event", without_event: "Without the event",
    cannot_void: "This event cannot be voided", reason: "Reason", referee: "Referee",
    token: "Write token", void_it: "Void this event", correct_it: "Record a correction",
    points: "Points", saved: "Recorded as event #", exports: "Export", scoresheet: "Score sheet (CSV)",
    bgstats: "BG Stats play", jsonl: "Event log (JSONL)", connection: "live updates",
    connected: "connected", reconnecting: "reconnecting…", result: "Result", unit_fame: "Fame", unit_vp: "VP",
  },
  ru: {
    games: "Партии", game: "Игра", status: "Статус", seq: "№", events: "Событий", updated: "Обновлено",
    in_progress: "идёт", final: "завершена", pending: "ожидает", no_games: "Партий пока нет.",
    rank: "Место", player: "Игрок", total: "Итого", provisional: "Если бы игра закончилась сейчас",
    provisional_note: "Предварительно: финальные категории посчитаны так, будто игра закончилась сейчас.",
    shared: "делят", winner: "Победитель", shared_first: "Первое место делят", tie_break: "Тай-брейк",
    chart: "Очки по ходу игры", per_event: "по событиям", per_turn: "по ходам", turn: "Ход",
    history: "История", replay_at: "Положение после события №", live_view: "Вернуться к текущему",
    viewing_replay: "Повтор: положение после события", of: "из",
    type: "Событие", actor: "Кто внёс", moved: "Изменение очков", details: "Подробности",
    voided: "отменено", voided_by: "отменено событием №", void_of: "отменяет №", correction: "поправка",
    corrected_by: "оспорено; поправка №", dispute: "Оспорить",
    ledger: "Журнал очков:", amount: "Очки", category: "Категория", rule: "Правило", note: "Примечание",
    resource: "Ресурс", close: "Закрыть",
    dispute_title: "Спор о событии №", with_event: "С событием", without_event: "Без события",
    cannot_void: "Это событие нельзя отменить", reason: "Причина", referee: "Судья",
    token: "Ключ записи", void_it: "Отменить событие", correct_it: "Внести поправку",
    points: "Очки", saved: "Записано как событие №", exports: "Экспорт", scoresheet: "Протокол (CSV)",
    bgstats: "Партия для BG Stats", jsonl: "Журнал событий (JSONL)", connection: "обновления",
    connected: "на связи", reconnecting: "переподключение…", result: "Итог", unit_fame: "Слава", unit_vp: "ПО",
  },
};

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
  return STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
}

/** A category's label in the page's language (the API sends `en` and `ru`). */
export function label(category) {
  return category[lang] || category.en || category.key;
}
