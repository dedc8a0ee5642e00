// Small pieces the pages share.
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
