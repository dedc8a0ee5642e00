// A stand-in for telegram-web-app.js's window.Telegram.WebApp, installed before the page's
// scripts (Page.addScriptToEvaluateOnNewDocument): it records what the app asks of Telegram
// in window.__tg.calls and lets a test act as Telegram (switch the theme, press the back or
// the main button, answer a confirm). `__THEME__` is replaced by the launch theme's JSON.
(() => {
  const calls = [];
  const handlers = {};
  const record = (name, ...args) => calls.push([name, ...args]);
  const button = (name) => {
    const clicks = new Set();
    const state = { isVisible: false, text: '', isActive: true, isProgressVisible: false };
    return Object.assign(state, {
      show() { record(`${name}.show`); state.isVisible = true; return state; },
      hide() { record(`${name}.hide`); state.isVisible = false; return state; },
      onClick(fn) { clicks.add(fn); return state; },
      offClick(fn) { clicks.delete(fn); return state; },
      setText(text) { record(`${name}.setText`, text); state.text = text; return state; },
      enable() { state.isActive = true; return state; },
      disable() { state.isActive = false; return state; },
      showProgress() { state.isProgressVisible = true; return state; },
      hideProgress() { state.isProgressVisible = false; return state; },
      press() { record(`${name}.press`); clicks.forEach((fn) => fn()); },
    });
  };
  const webApp = {
    platform: 'ios',
    version: '8.0',
    initData: '',
    themeParams: __THEME__,
    isVersionAtLeast: () => true,
    ready: () => record('ready'),
    expand: () => record('expand'),
    onEvent: (event, fn) => (handlers[event] = handlers[event] || []).push(fn),
    offEvent: (event, fn) => (handlers[event] = (handlers[event] || []).filter((h) => h !== fn)),
    BackButton: button('BackButton'),
    MainButton: button('MainButton'),
    HapticFeedback: {
      impactOccurred: (style) => record('haptic', style),
      notificationOccurred: (kind) => record('haptic', kind),
      selectionChanged: () => record('haptic', 'select'),
    },
    showConfirm: (message, callback) => {
      record('showConfirm', message);
      setTimeout(() => callback(true), 0);
    },
    openLink: (url) => record('openLink', url),
  };
  window.Telegram = { WebApp: webApp };
  window.__tg = {
    calls,
    setTheme(theme) {
      webApp.themeParams = theme;
      (handlers.themeChanged || []).forEach((fn) => fn.call(webApp));
    },
  };
})();
