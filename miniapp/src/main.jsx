import { render } from 'preact';
import 'uplot/dist/uPlot.min.css';
import './style.css';
import { App } from './App.jsx';
import { api, setInitData } from './api.js';
import { pickLanguage, setLocale } from './i18n.js';
import { applyTheme, readLaunch } from './launch.js';

const launch = readLaunch();
applyTheme(launch.theme);
setInitData(launch.initData);
// Until /me answers (or when it cannot), the user's Telegram language picks the dictionary.
setLocale(pickLanguage(launch.languageCode ?? navigator.language));

render(<App launch={launch} api={api} />, document.getElementById('app'));
