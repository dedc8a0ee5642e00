// Telegram launch parameters, read without telegram-web-app.js: from the URL hash on the first
// open, from sessionStorage on a reload that lost the hash.
const STORE_KEY = 'gpuradar.launch';

function readHashParams() {
  const hash = location.hash.replace(/^#/, '');
  let params = new URLSearchParams(hash);
  if (params.has('tgWebAppData') || params.has('tgWebAppThemeParams')) {
    try {
      sessionStorage.setItem(STORE_KEY, hash);
    } catch {
      // Storage can be off in private modes; this open still works from the hash.
    }
    return params;
  }
  try {
    params = new URLSearchParams(sessionStorage.getItem(STORE_KEY) ?? '');
  } catch {
    params = new URLSearchParams();
  }
  return params;
}

function parseJson(text) {
  if (!text) return null;
  try {
    const value = JSON.parse(text);
    return value && typeof value === 'object' ? value : null;
  } catch {
    return null;
  }
}

export function readLaunch() {
  const params = readHashParams();
  const webApp = window.Telegram?.WebApp;
  const initData =
    typeof webApp?.initData === 'string' && webApp.initData !== ''
      ? webApp.initData
      : (params.get('tgWebAppData') ?? '');
  const user = parseJson(new URLSearchParams(initData).get('user'));
  const theme = (webApp?.themeParams && Object.keys(webApp.themeParams).length > 0
    ? webApp.themeParams
    : parseJson(params.get('tgWebAppThemeParams'))) ?? {};
  const query = new URLSearchParams(location.search);
  return {
    initData,
    languageCode: typeof user?.language_code === 'string' ? user.language_code : null,
    theme,
    platform: params.get('tgWebAppPlatform') ?? '',
    page: query.get('page'),
    gpu: query.get('gpu'),
  };
}

const COLOR = /^#[0-9a-fA-F]{3,8}$|^rgba?\([\d\s.,%]+\)$/;

function isDark(hex) {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(hex ?? '');
  if (!m) return false;
  const [r, g, b] = m.slice(1).map((x) => parseInt(x, 16));
  return 0.299 * r + 0.587 * g + 0.114 * b < 128;
}

// Each theme colour becomes --tg-theme-<key-with-dashes>; the CSS reads only those.
export function applyTheme(theme) {
  const root = document.documentElement;
  for (const [key, value] of Object.entries(theme)) {
    if (typeof value === 'string' && COLOR.test(value.trim()) && /^[a-z0-9_]+$/.test(key)) {
      root.style.setProperty(`--tg-theme-${key.replace(/_/g, '-')}`, value.trim());
    }
  }
  // Native controls (selects, checkboxes, scrollbars) follow color-scheme, not our variables.
  root.style.colorScheme = isDark(theme.bg_color) ? 'dark' : 'light';
}
