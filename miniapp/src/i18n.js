// Looks texts up: the server's texts from /app/api/me first, then the built-in dictionary.
import { TEXTS } from './texts.js';

export function pickLanguage(code) {
  return typeof code === 'string' && code.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}

// The app re-renders from its root after setLocale, so every t() call sees the new texts.
let current = { language: 'ru', server: {} };

export function language() {
  return current.language;
}

export function setLocale(language, server = {}) {
  const lang = language === 'ru' ? 'ru' : 'en';
  document.documentElement.lang = lang;
  current = { language: lang, server: server && typeof server === 'object' ? server : {} };
}

const PLACEABLE = /\{\s*\$([A-Za-z0-9_-]+)\s*\}/g;

export function t(key, vars) {
  const pattern = current.server[key] ?? TEXTS[current.language][key] ?? key;
  if (!vars) return pattern;
  return pattern.replace(PLACEABLE, (whole, name) => (name in vars ? String(vars[name]) : whole));
}
