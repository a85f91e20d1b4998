// The not-found page (HTTP 404 for an unknown game, tournament, league or player): its words
// in the page's language; the title is its heading's.
import { t } from "./i18n.js";
import { translatePage } from "./page.js";

translatePage();
document.title = `${t(document.querySelector("h1").dataset.i18n)} — scoreledger`;
