import { useEffect, useState } from 'preact/hooks';
import { ApiError, hasInitData } from './api.js';
import { setLocale, t } from './i18n.js';
import { FitPage } from './pages/Fit.jsx';
import { HistoryPage } from './pages/History.jsx';
import { TablePage } from './pages/Table.jsx';
import { WatchesPage } from './pages/Watches.jsx';

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

  const open = (next) => {
    setPage(next);
    rememberPage(next);
  };
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
        {page === 'history' && <HistoryPage api={api} initialGpu={launch.gpu || 'h100'} />}
        {page === 'fit' && <FitPage api={api} auth={auth} onAuthFailed={authFailed} />}
        {page === 'watches' && <WatchesPage api={api} auth={auth} onAuthFailed={authFailed} />}
      </main>
    </div>
  );
}
