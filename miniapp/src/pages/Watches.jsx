import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { typed } from '../format.js';
import { t } from '../i18n.js';
import { AuthError, errorText, Loading } from '../ui.jsx';

function WatchItem({ watch, onPatch, onDelete, busy }) {
  const [cap, setCap] = useState(typed(watch.max_rub_per_gpu_hour));
  // The server's answer is the truth: when it changes the cap, the input follows.
  useEffect(() => {
    setCap(typed(watch.max_rub_per_gpu_hour));
  }, [watch.max_rub_per_gpu_hour]);

  // The text as typed («599,5», «600 ₽»): the server reads it as the chat reads a price.
  const saveCap = () => {
    const text = cap.trim();
    onPatch(watch.id, { max_rub_per_gpu_hour: text === '' ? null : text });
  };
  return (
    <li class={watch.paused ? 'watch paused' : 'watch'} data-id={watch.id} data-paused={watch.paused ? 'true' : 'false'}>
      <div class="watch-head">
        <b class="watch-label">{watch.label}</b>
        {watch.paused && <span class="badge">{t('app-watch-paused')}</span>}
      </div>
      <p class="watch-summary sub">{watch.summary}</p>
      <div class="watch-actions">
        <label class="cap">
          <span class="sub">{t('app-watch-cap')}</span>
          <input
            class="watch-cap"
            type="text"
            inputMode="decimal"
            autocomplete="off"
            placeholder={t('app-watch-cap-none')}
            value={cap}
            onInput={(e) => setCap(e.currentTarget.value)}
            onKeyDown={(e) => e.key === 'Enter' && saveCap()}
          />
        </label>
        <button type="button" class="watch-cap-save" disabled={busy} onClick={saveCap}>
          {t('app-watch-cap-save')}
        </button>
        <button type="button" class="watch-pause" disabled={busy} onClick={() => onPatch(watch.id, { paused: !watch.paused })}>
          {watch.paused ? `▶ ${t('app-watch-resume')}` : `⏸ ${t('app-watch-pause')}`}
        </button>
        <button
          type="button"
          class="watch-delete danger"
          disabled={busy}
          onClick={() => window.confirm(t('app-watch-delete-confirm', { label: watch.label })) && onDelete(watch.id)}
        >
          {t('app-watch-delete')}
        </button>
      </div>
    </li>
  );
}

export function WatchesPage({ api, auth, onAuthFailed }) {
  const [watches, setWatches] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  const fail = (err) => {
    if (err instanceof ApiError && err.status === 401) onAuthFailed();
    else setError(err instanceof ApiError && err.status >= 400 ? err.message : errorText(err));
  };
  const reload = () =>
    api.watches().then((data) => {
      setWatches(Array.isArray(data?.watches) ? data.watches : []);
    }, fail);

  useEffect(() => {
    if (auth !== 'failed') reload();
  }, [auth]);

  if (auth === 'failed') {
    return (
      <section id="page-watches" class="page">
        <AuthError />
      </section>
    );
  }

  const act = (run) => {
    setBusy(true);
    setError(null);
    run()
      .catch((err) => {
        fail(err);
        // A 404 means the list we show is stale (deleted elsewhere): show the server's.
        if (err instanceof ApiError && err.status === 404) return reload();
        return undefined;
      })
      .finally(() => setBusy(false));
  };
  const onPatch = (id, body) =>
    act(() =>
      api.patchWatch(id, body).then((updated) => {
        if (updated && typeof updated === 'object' && 'id' in updated) {
          setWatches((list) => list.map((w) => (w.id === updated.id ? updated : w)));
        } else {
          return reload();
        }
        return undefined;
      }),
    );
  const onDelete = (id) =>
    act(() => api.deleteWatch(id).then(() => setWatches((list) => list.filter((w) => w.id !== id))));

  return (
    <section id="page-watches" class="page">
      {error && (
        <p id="watches-error" class="notice error" role="alert">
          {error}
        </p>
      )}
      {watches === null ? (
        !error && <Loading />
      ) : watches.length === 0 ? (
        <p id="watches-empty" class="notice hint">
          {t('app-watches-empty')}
        </p>
      ) : (
        <ul id="watches" class="watches">
          {watches.map((watch) => (
            <WatchItem key={watch.id} watch={watch} onPatch={onPatch} onDelete={onDelete} busy={busy} />
          ))}
        </ul>
      )}
    </section>
  );
}
