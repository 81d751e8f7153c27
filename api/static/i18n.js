// The pages' words in the page's language (api/i18n.py embeds the messages this page's scripts
// use, from the same catalogs as the server's). Mark every text a person reads with t() or tn():
// `make messages` extracts them (babel.cfg). Placeholders are gettext's: t("Step %(n)s", { n }).

const catalog = JSON.parse(document.getElementById("i18n")?.textContent || "{}");
const messages = catalog.messages || {};

// The page's language, as <html lang> says.
export const LANG = document.documentElement.lang || "en";

function fill(text, params) {
  return text.replace(/%\((\w+)\)s/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

// A message in the page's language, its placeholders filled in.
export function t(message, params = {}) {
  const found = messages[message];
  return fill(typeof found === "string" && found ? found : message, params);
}

// A message whose words depend on the game (a "round" is a "tour" in Vampire Queen's French
// rulebook, a "manche" in Voodoo Prince's): gettext's context, here the game's key.
export function pt(context, message, params = {}) {
  const found = messages[`${context}\u0004${message}`];
  return fill(typeof found === "string" && found ? found : message, params);
}

// A message with a singular and a plural, chosen by `n` as the language counts (French: 0 is
// singular); `n` is also the placeholder %(n)s.
export function tn(singular, plural, n, params = {}) {
  const forms = messages[singular];
  const many = LANG === "fr" ? n > 1 : n !== 1;
  const chosen = Array.isArray(forms) ? forms[many ? 1 : 0] : many ? plural : singular;
  return fill(chosen, { n, ...params });
}

// A time as this viewer's clock shows it, saying which zone ("25.11.2026, 18:57 MEZ").
// (dateStyle and timeStyle cannot be combined with timeZoneName: the fields are named instead.)
const TIME = new Intl.DateTimeFormat(LANG, {
  year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", timeZoneName: "short",
});
export const TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

export function localTime(iso) {
  const when = new Date(iso);
  return Number.isNaN(when.getTime()) ? String(iso) : TIME.format(when);
}

// Every <time datetime> the server wrote in UTC, shown in the viewer's own zone.
export function localTimes(root = document) {
  for (const node of root.querySelectorAll("time[datetime]")) {
    node.textContent = localTime(node.getAttribute("datetime"));
    node.title = `${TIME_ZONE} · ${node.getAttribute("datetime")}`;
  }
}

localTimes();
