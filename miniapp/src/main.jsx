import { render } from 'preact';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { App } from './App.jsx';
import { api, setInitData } from './api.js';
import { loadTexts, pickLanguage, setLocale } from './i18n.js';
import { applyTheme, readLaunch } from './launch.js';

const launch = readLaunch();
applyTheme(launch.theme);
setInitData(launch.initData);
// Until /me answers (or when it cannot), the user's Telegram language picks the texts.
setLocale(pickLanguage(launch.languageCode ?? navigator.language));

const root = document.getElementById('app');
loadTexts().then(
  () => render(<App launch={launch} api={api} />, root),
  // Without its texts the app can say only this, in both languages.
  () => {
    root.textContent = 'Сервер недоступен, попробуйте позже · The server is unreachable, try again later';
  },
);
