import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { t } from '../i18n.js';
import { haptic, useMainButton } from '../telegram.js';
import { AuthError, errorText } from '../ui.jsx';

const METHODS = ['qlora', 'lora', 'full'];

// The request body: ctx and bs as numbers, and fields the user left empty are left out.
export function fitBody(form) {
  const body = {};
  for (const [key, value] of Object.entries(form)) {
    const text = String(value).trim();
    if (text === '') continue;
    body[key] = key === 'ctx' || key === 'bs' ? (Number.isFinite(Number(text)) ? Number(text) : text) : text;
  }
  return body;
}

export function FitPage({ api, auth, onAuthFailed, onSubView }) {
  const [form, setForm] = useState({ model: '', method: 'qlora', ctx: '4096', bs: '1', dataset: '', gpu: '' });
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState(null);
  const [error, setError] = useState(null);
  // The answer's details («Подробнее» in the chat) open in place; Telegram's back arrow
  // closes them.
  const [full, setFull] = useState(false);
  const showDetails = (open) => {
    setFull(open);
    onSubView(open ? () => setFull(false) : null);
  };
  const submit = (e) => {
    e?.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    showDetails(false);
    api
      .fit(fitBody(form))
      .then(
        (data) => {
          setAnswer({
            command: String(data?.command ?? ''),
            text: String(data?.text ?? ''),
            details: String(data?.details ?? ''),
          });
          haptic('success');
        },
        (err) => {
          haptic('error');
          if (err instanceof ApiError && err.status === 401) onAuthFailed();
          else if (err instanceof ApiError && err.status === 400) setError(err.message);
          else setError(errorText(err));
          setAnswer(null);
        },
      )
      .finally(() => setBusy(false));
  };
  // Inside Telegram its main button submits; the page's own button is for a plain browser.
  const mainButton = useMainButton(t('app-fit-submit'), auth === 'failed' ? null : submit, busy);

  if (auth === 'failed') {
    return (
      <section id="page-fit" class="page">
        <AuthError />
      </section>
    );
  }

  const set = (key) => (e) => setForm({ ...form, [key]: e.currentTarget.value });

  return (
    <section id="page-fit" class="page">
      <form class="form" onSubmit={submit}>
        <label class="field wide">
          <span>{t('app-fit-model')}</span>
          <input id="fit-model" type="text" autocomplete="off" placeholder="13b" value={form.model} onInput={set('model')} />
          <small class="hint">{t('app-fit-model-hint')}</small>
        </label>
        <label class="field">
          <span>{t('app-fit-method')}</span>
          <select id="fit-method" value={form.method} onChange={set('method')}>
            {METHODS.map((m) => (
              <option value={m}>{m}</option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>{t('app-fit-ctx')}</span>
          <input id="fit-ctx" type="number" inputMode="numeric" min="1" step="1" value={form.ctx} onInput={set('ctx')} />
        </label>
        <label class="field">
          <span>{t('app-fit-bs')}</span>
          <input id="fit-bs" type="number" inputMode="numeric" min="1" step="1" value={form.bs} onInput={set('bs')} />
        </label>
        <label class="field">
          <span>{t('app-fit-dataset')}</span>
          <input
            id="fit-dataset"
            type="text"
            autocomplete="off"
            placeholder={t('app-fit-dataset-placeholder')}
            value={form.dataset}
            onInput={set('dataset')}
          />
        </label>
        <label class="field wide">
          <span>{t('app-fit-gpu')}</span>
          <input
            id="fit-gpu"
            type="text"
            autocomplete="off"
            placeholder={t('app-fit-gpu-placeholder')}
            value={form.gpu}
            onInput={set('gpu')}
          />
        </label>
        <button id="fit-submit" type="submit" class="primary wide" disabled={busy} hidden={mainButton}>
          {busy ? t('app-fit-busy') : t('app-fit-submit')}
        </button>
      </form>
      {error && (
        <p id="fit-error" class="notice error" role="alert">
          {error}
        </p>
      )}
      {answer && (
        <div class="answer">
          <p class="hint">
            {t('app-fit-command')}{' '}
            <code id="fit-command">{answer.command}</code>
          </p>
          <pre id="fit-answer" data-full={full ? 'true' : 'false'}>
            {full && answer.details ? answer.details : answer.text}
          </pre>
          {answer.details && (
            <button
              id="fit-details"
              type="button"
              class="link"
              aria-expanded={full ? 'true' : 'false'}
              onClick={() => {
                haptic('light');
                showDetails(!full);
              }}
            >
              {full ? t('app-fit-short') : t('app-fit-details')}
            </button>
          )}
        </div>
      )}
    </section>
  );
}
