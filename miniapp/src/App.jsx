import { useEffect, useState } from 'preact/hooks';
import { ApiError, hasInitData } from './api.js';
import { setLocale, t } from './i18n.js';
import { applyTheme } from './launch.js';
import { FitPage } from './pages/Fit.jsx';
import { HistoryPage } from './pages/History.jsx';
import { TablePage } from './pages/Table.jsx';
import { WatchesPage } from './pages/Watches.jsx';
import { haptic, startTelegram, useBackButton } from './telegram.js';

const PAGES = ['table', 'history', 'fit', 'watches'];

function rememberPage(page) {
  const url = new URL(location.href);
  url.searchParams.set('page', page);
  window.history.replaceState(null, '', url);
}

export function App({ launch, api }) {
  const [page, setPage] = useState(PAGES.includes(launch.page) ? launch.page : 'table');
  // 'pending' until /me answers; 'failed' shows the auth error on the pages that need auth.
  const [auth, setAuth] = useState(hasInitData() ? 'pending' : 'failed');
  const [, setTextsVersion] = useState(0);
  // Bumped when Telegram's theme changes: the chart redraws in the new colours.
  const [theme, setTheme] = useState(0);
  // The pages opened before this one (Telegram's back arrow returns to them), and a page's
  // open sub-view (the calculator's details), which the arrow closes first.
  const [visited, setVisited] = useState([]);
  const [closeSubView, setCloseSubView] = useState(null);

  useEffect(() => {
    startTelegram((params) => {
      applyTheme(params);
      setTheme((v) => v + 1);
    });
  }, []);

  useEffect(() => {
    if (!hasInitData()) return;
    api.me().then(
      (me) => {
        setLocale(me?.language);
        setTextsVersion((v) => v + 1);
        setAuth('ok');
      },
      (error) => setAuth(error instanceof ApiError && error.status === 401 ? 'failed' : 'ok'),
    );
  }, []);

  const show = (next) => {
    setPage(next);
    setCloseSubView(null);
    rememberPage(next);
  };
  const open = (next) => {
    if (next === page) return;
    haptic('light');
    // Back from a page goes where it was opened from, once: no loops of tabs.
    setVisited((list) => [...list.filter((p) => p !== next && p !== page), page]);
    show(next);
  };
  const back = () => {
    if (closeSubView) {
      closeSubView();
      setCloseSubView(null);
      return;
    }
    const previous = visited[visited.length - 1];
    setVisited((list) => list.slice(0, -1));
    show(previous);
  };
  useBackButton(closeSubView || visited.length > 0 ? back : null);
  // A page says how to close its sub-view (or null when none is open).
  const onSubView = (close) => setCloseSubView(() => close);
  const authFailed = () => setAuth('failed');

  return (
    <div class="app">
      <nav class="tabs" role="tablist">
        {PAGES.map((name) => (
          <button
            type="button"
            role="tab"
            id={`tab-${name}`}
            data-page={name}
            aria-selected={page === name ? 'true' : 'false'}
            class={page === name ? 'tab active' : 'tab'}
            onClick={() => open(name)}
          >
            {t(`app-tab-${name}`)}
          </button>
        ))}
      </nav>
      <main class="page-area">
        {page === 'table' && <TablePage api={api} />}
        {page === 'history' && <HistoryPage api={api} initialGpu={launch.gpu || 'h100'} theme={theme} />}
        {page === 'fit' && <FitPage api={api} auth={auth} onAuthFailed={authFailed} onSubView={onSubView} />}
        {page === 'watches' && <WatchesPage api={api} auth={auth} onAuthFailed={authFailed} />}
      </main>
    </div>
  );
}
