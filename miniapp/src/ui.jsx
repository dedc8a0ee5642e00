// Small pieces the pages share.
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { t } from './i18n.js';

export function AuthError() {
  return (
    <p id="auth-error" class="notice error" role="alert">
      {t('app-auth-error')}
    </p>
  );
}

export function Loading() {
  return <p class="notice hint">{t('app-loading')}</p>;
}

export function errorText(error) {
  if (error instanceof ApiError && error.status === 0) return t('app-error-network');
  return t('app-error', { reason: error?.message || '?' });
}

// Phones get cards and a line of filter chips; wider screens the table (style.css agrees).
export const PHONE_QUERY = '(max-width: 480px)';

export function useMedia(query) {
  const [matches, setMatches] = useState(() => window.matchMedia(query).matches);
  useEffect(() => {
    const list = window.matchMedia(query);
    const changed = () => setMatches(list.matches);
    list.addEventListener('change', changed);
    changed();
    return () => list.removeEventListener('change', changed);
  }, [query]);
  return matches;
}
