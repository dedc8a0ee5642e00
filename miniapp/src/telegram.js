// Telegram's WebApp object (telegram-web-app.js, which index.html loads from telegram.org)
// and the hooks the pages use to talk to it. Outside Telegram (a plain browser, the browser
// tests) the script may be missing, or present with platform 'unknown' and version 6.0, where
// its popups throw: each helper then does nothing, or what a web page does (window.confirm,
// an ordinary link).
import { useEffect, useRef } from 'preact/hooks';

function webApp(version = '6.0') {
  const app = window.Telegram?.WebApp;
  if (!app || !app.platform || app.platform === 'unknown') return null;
  return typeof app.isVersionAtLeast !== 'function' || app.isVersionAtLeast(version) ? app : null;
}

export function insideTelegram() {
  return webApp() !== null;
}

export function themeParams() {
  return webApp()?.themeParams ?? null;
}

// ready() ends Telegram's loading placeholder; expand() gives a table the whole height.
// `onTheme` gets the new theme each time the user switches Telegram's theme.
export function startTelegram(onTheme) {
  const app = webApp();
  if (!app) return;
  app.ready();
  app.expand();
  app.onEvent('themeChanged', () => onTheme(app.themeParams ?? {}));
}

const HAPTIC_NOTICES = ['success', 'error', 'warning'];

// 'light' for a tap that changes the view, 'select' for a changed choice, 'success' or
// 'error' for what an action ended in.
export function haptic(kind) {
  const feedback = webApp('6.1')?.HapticFeedback;
  if (!feedback) return;
  if (HAPTIC_NOTICES.includes(kind)) feedback.notificationOccurred(kind);
  else if (kind === 'select') feedback.selectionChanged();
  else feedback.impactOccurred(kind);
}

// Telegram's own dialog where there is one: window.confirm is blocked in some clients.
export function confirmed(message) {
  const app = webApp('6.2');
  if (!app) return Promise.resolve(window.confirm(message));
  return new Promise((resolve) => app.showConfirm(message, (ok) => resolve(Boolean(ok))));
}

// An outbound link opens in the user's browser through Telegram, not inside the Mini App.
export function openLink(event, url) {
  const app = webApp();
  if (!app) return;
  event.preventDefault();
  app.openLink(url);
}

// Telegram's back arrow while `onBack` is set; hidden when it is null.
export function useBackButton(onBack) {
  const latest = useRef(onBack);
  latest.current = onBack;
  const shown = Boolean(onBack);
  useShownButton(() => webApp('6.1')?.BackButton, shown, latest);
}

// Shows Telegram's `button` (read when shown) while `shown`, its clicks calling the newest
// handler in `latest`; hidden and unhooked again when no longer shown.
function useShownButton(find, shown, latest) {
  useEffect(() => {
    const button = find();
    if (!button || !shown) return undefined;
    const click = () => latest.current?.();
    button.onClick(click);
    button.show();
    return () => {
      button.offClick(click);
      button.hide();
    };
  }, [shown]);
}

// Telegram's main button at the bottom, saying `text`, while `onClick` is set; `busy` shows
// its progress. Returns whether it is in use, so the page can hide its own button.
export function useMainButton(text, onClick, busy = false) {
  const latest = useRef(onClick);
  latest.current = onClick;
  const button = webApp()?.MainButton ?? null;
  const shown = Boolean(button && onClick);
  useShownButton(() => button, shown, latest);
  useEffect(() => {
    if (!button || !shown) return;
    button.setText(text);
    if (busy) {
      button.disable();
      button.showProgress();
    } else {
      button.hideProgress();
      button.enable();
    }
  }, [shown, text, busy]);
  return shown;
}
