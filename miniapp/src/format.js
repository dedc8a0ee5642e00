// Numbers, dates and ages the way the pages show them.
import { language, t } from './i18n.js';

function locale() {
  return language() === 'ru' ? 'ru-RU' : 'en-US';
}

export function amount(value) {
  if (value == null || !Number.isFinite(value)) return '—';
  const digits = Math.abs(value) < 100 ? 1 : 0;
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: digits }).format(value);
}

export function rub(value) {
  return value == null || !Number.isFinite(value) ? '—' : `${amount(value)} ₽`;
}

export function number(value) {
  if (value == null || !Number.isFinite(value)) return '—';
  return new Intl.NumberFormat(locale(), { maximumFractionDigits: 1 }).format(value);
}

export function dayMonth(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const dd = String(date.getDate()).padStart(2, '0');
  const mm = String(date.getMonth() + 1).padStart(2, '0');
  return `${dd}.${mm}`;
}

export function dateTime(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const hh = String(date.getHours()).padStart(2, '0');
  const mi = String(date.getMinutes()).padStart(2, '0');
  return `${dayMonth(iso)} ${hh}:${mi}`;
}

// 14:05 on the reader's clock; 12.05 14:05 when it was another day.
export function clock(iso, now = Date.now()) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  const today = new Date(now);
  const sameDay = date.toDateString() === today.toDateString();
  const time = `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`;
  return sameDay ? time : `${dayMonth(iso)} ${time}`;
}

export function ago(iso, now = Date.now()) {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '—';
  const minutes = Math.max(0, Math.floor((now - at) / 60000));
  if (minutes < 1) return t('app-ago-now');
  if (minutes < 60) return t('app-ago-min', { n: minutes });
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return t('app-ago-hour', { n: hours });
  return t('app-ago-day', { n: Math.floor(hours / 24) });
}

// Offer links come from scraped sites: only http(s) may become an href.
export function safeUrl(url) {
  return typeof url === 'string' && /^https?:\/\//i.test(url) ? url : null;
}

// A number to type back into a field: «599,5» in Russian, "599.5" in English, no grouping.
export function typed(value) {
  if (value == null || !Number.isFinite(value)) return '';
  const text = String(value);
  return language() === 'ru' ? text.replace('.', ',') : text;
}
