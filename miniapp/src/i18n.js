// The app's texts are the bot's own Fluent files (estimator/locales/<lang>/miniapp.ftl),
// fetched once from /app/texts.json and formatted here with @fluent/bundle, plural rules
// included: one text system for the chat and the app.
import { FluentBundle, FluentResource } from '@fluent/bundle';

const FALLBACK = 'en';
const bundles = {};
let current = 'ru';

export function pickLanguage(code) {
  return typeof code === 'string' && code.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}

export async function loadTexts() {
  const response = await fetch(`${import.meta.env.BASE_URL}texts.json`);
  if (!response.ok) throw new Error(`texts: HTTP ${response.status}`);
  const sources = await response.json();
  for (const [lang, source] of Object.entries(sources)) {
    // No bidi isolation marks: they would show as junk around numbers and names.
    const bundle = new FluentBundle(lang, { useIsolating: false });
    bundle.addResource(new FluentResource(source));
    bundles[lang] = bundle;
  }
}

export function language() {
  return current;
}

// The app re-renders from its root after setLocale, so every t() call sees the new language.
export function setLocale(lang) {
  current = lang === 'ru' ? 'ru' : 'en';
  document.documentElement.lang = current;
}

export function t(key, vars) {
  for (const lang of [current, FALLBACK]) {
    const bundle = bundles[lang];
    const message = bundle?.getMessage(key);
    if (message?.value) return bundle.formatPattern(message.value, vars);
  }
  return key;
}

export function hasText(key) {
  return [current, FALLBACK].some((lang) => Boolean(bundles[lang]?.getMessage(key)?.value));
}
