// The not-found page (HTTP 404 for an unknown game): its words in the page's language.
import { t } from "./i18n.js";
import { translatePage } from "./page.js";

translatePage();
document.title = `${t("not_found")} — scoreledger`;
