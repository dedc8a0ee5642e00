import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { typed } from '../format.js';
import { t } from '../i18n.js';
import { confirmed, haptic, useMainButton } from '../telegram.js';
import { AuthError, errorText, Loading } from '../ui.jsx';

function WatchItem({ watch, onPatch, onDelete, onEdit, busy }) {
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
            onInput={(e) => {
              setCap(e.currentTarget.value);
              onEdit(watch.id, e.currentTarget.value);
            }}
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
          onClick={() =>
            confirmed(t('app-watch-delete-confirm', { label: watch.label })).then((ok) => ok && onDelete(watch.id))
          }
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
  // The cap typed last and not saved yet: Telegram's main button saves it.
  const [edited, setEdited] = useState(null);

  const fail = (err) => {
    haptic('error');
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

  const act = (run) => {
    setBusy(true);
    setError(null);
    run()
      .then(() => haptic('success'))
      .catch((err) => {
        fail(err);
        // A 404 means the list we show is stale (deleted elsewhere): show the server's.
        if (err instanceof ApiError && err.status === 404) return reload();
        return undefined;
      })
      .finally(() => setBusy(false));
  };
  const onPatch = (id, body) => {
    if ('max_rub_per_gpu_hour' in body) setEdited(null);
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
  };
  const onDelete = (id) =>
    act(() => api.deleteWatch(id).then(() => setWatches((list) => list.filter((w) => w.id !== id))));
  const onEdit = (id, text) => setEdited({ id, text });
  const saveEdited = () => {
    const text = edited.text.trim();
    onPatch(edited.id, { max_rub_per_gpu_hour: text === '' ? null : text });
  };
  useMainButton(t('app-watch-cap-save'), edited && auth !== 'failed' ? saveEdited : null, busy);

  if (auth === 'failed') {
    return (
      <section id="page-watches" class="page">
        <AuthError />
      </section>
    );
  }

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
            <WatchItem
              key={watch.id}
              watch={watch}
              onPatch={onPatch}
              onDelete={onDelete}
              onEdit={onEdit}
              busy={busy}
            />
          ))}
        </ul>
      )}
    </section>
  );
}
