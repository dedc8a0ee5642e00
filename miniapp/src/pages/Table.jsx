import { useEffect, useRef, useState } from 'preact/hooks';
import { hasText, t } from '../i18n.js';
import { ago, clock, number, rub, safeUrl } from '../format.js';
import { errorText, Loading } from '../ui.jsx';
import { distinctOptions, EMPTY_FILTERS, filterParams, sortOffers } from './offers.js';

const VRAM = ['16', '24', '40', '48', '80'];
const BILLING = ['hourly', 'monthly', 'preemptible'];
const DEBOUNCE_MS = 300;

// Kept across tab switches so coming back to the table shows what the user left.
const saved = { filters: { ...EMPTY_FILTERS }, sort: { key: 'price', dir: 'asc' }, options: null };

function stockText(offer) {
  switch (offer.stock) {
    case 'in_stock':
      return offer.stock_count == null ? t('app-stock-in') : t('app-stock-in-count', { count: offer.stock_count });
    case 'out_of_stock':
      return t('app-stock-out');
    case 'preorder':
      return t('app-stock-preorder');
    default:
      return t('app-stock-unknown');
  }
}

// Stock the chat counts as rentable (monitor.offers.RENTABLE_STOCK).
const RENTABLE_STOCK = ['in_stock', 'unknown'];

// How fresh a row's data is: its age, or, when its provider's latest scrape did not confirm
// it (`stale`), «данные от 14:05, источник не отвечает», and that it no longer counts once
// the API says so (`rentable` false on rentable stock: stale past stale_after_s).
function freshness(offer, now) {
  if (!offer.stale) return ago(offer.observed_at, now);
  const expired = offer.rentable === false && RENTABLE_STOCK.includes(offer.stock);
  return t(expired ? 'app-stale-expired' : 'app-stale', { time: clock(offer.observed_at, now) });
}

function OfferRow({ offer, now }) {
  const url = safeUrl(offer.url);
  const name = offer.provider_name || offer.provider;
  const note = freshness(offer, now);
  return (
    <tr
      class={`offer stock-${offer.stock}${offer.stale ? ' stale' : ''}`}
      data-stale={offer.stale ? 'true' : 'false'}
      data-stock={offer.stock}
      title={offer.stale && offer.error_class ? offer.error_class : undefined}
      data-provider={offer.provider}
      data-sku={offer.sku}
      data-location={offer.location}
      data-gpu={offer.gpu}
      data-vram={offer.vram_gb ?? undefined}
      data-price={offer.price_gpu_hour_rub ?? undefined}
    >
      <td class="gpu">
        <b>{offer.gpu}</b>
        {offer.gpu_count > 1 && <span> ×{offer.gpu_count}</span>}
        {/* Seen on a phone too, where the freshness column is scrolled off: the note itself. */}
        {offer.stale && (
          <span class="stale-mark" title={note} aria-label={note}>
            {' ⚠️'}
          </span>
        )}
      </td>
      <td class="num">{offer.vram_gb != null ? number(offer.vram_gb) : '—'}</td>
      <td class="num price" title={offer.converted ? t('app-converted') : undefined}>
        {offer.converted ? '≈' : ''}
        {rub(offer.price_gpu_hour_rub)}
      </td>
      <td class="num">
        {rub(offer.price_hour_rub)}
        {offer.price_month_rub != null && <div class="sub">{t('app-per-month', { price: rub(offer.price_month_rub) })}</div>}
        {offer.billing !== 'hourly' && <div class="sub">{t(`app-billing-${offer.billing}`)}</div>}
      </td>
      <td>
        {url ? (
          <a href={url} target="_blank" rel="noopener noreferrer">
            {name}
          </a>
        ) : (
          name
        )}
        <div class="sub">{offer.location}</div>
      </td>
      <td class={`stock ${offer.stock}`}>{stockText(offer)}</td>
      <td class="sub fresh">{note}</td>
    </tr>
  );
}

function SortHeader({ sortKey, label, sort, onSort, numeric }) {
  const active = sort.key === sortKey;
  return (
    <th
      data-sort={sortKey}
      class={numeric ? 'num' : undefined}
      aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}
      onClick={() => onSort(sortKey)}
    >
      <button type="button" class="sort">
        {label}
        {active ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
      </button>
    </th>
  );
}

// A filter the API could not read, in the user's language (the API's own words are English).
function filterError(err, params) {
  const key = err?.field ? `app-field-error-${err.field}` : null;
  if (!key || !hasText(key)) return errorText(err);
  return t(key, { value: params[err.field] ?? '', near: '', field: err.field });
}

function Select({ id, label, value, onChange, options }) {
  return (
    <label class="field">
      <span>{label}</span>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {options.map(([v, text]) => (
          <option value={v}>{text}</option>
        ))}
      </select>
    </label>
  );
}

export function TablePage({ api }) {
  const [filters, setFilters] = useState(saved.filters);
  const [sort, setSort] = useState(saved.sort);
  const [options, setOptions] = useState(saved.options);
  const [offers, setOffers] = useState(null);
  const [error, setError] = useState(null);
  const [now, setNow] = useState(Date.now());
  const first = useRef(true);

  useEffect(() => {
    saved.filters = filters;
    const controller = new AbortController();
    const params = filterParams(filters);
    const load = () =>
      api.offers(params, controller.signal).then(
        (data) => {
          const rows = Array.isArray(data?.offers) ? data.offers : [];
          // The provider and location lists come from the first unfiltered answer.
          if (!saved.options && Object.keys(params).length === 0) {
            saved.options = {
              providers: distinctOptions(rows, (o) => o.provider, (o) => o.provider_name),
              locations: distinctOptions(rows, (o) => o.location, (o) => o.location),
            };
            setOptions(saved.options);
          }
          setError(null);
          setOffers(rows);
          setNow(Date.now());
        },
        (err) => {
          if (err?.name === 'AbortError') return;
          setError(filterError(err, params));
          setOffers([]);
        },
      );
    // The first load goes at once; later ones wait until typing pauses.
    const timer = setTimeout(load, first.current ? 0 : DEBOUNCE_MS);
    first.current = false;
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [filters]);

  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60000);
    return () => clearInterval(timer);
  }, []);

  const set = (key) => (value) => setFilters((f) => ({ ...f, [key]: value }));
  const onSort = (key) => {
    const next = sort.key === key ? { key, dir: sort.dir === 'asc' ? 'desc' : 'asc' } : { key, dir: 'asc' };
    saved.sort = next;
    setSort(next);
  };
  const rows = offers ? sortOffers(offers, sort.key, sort.dir) : [];
  const any = t('app-filter-any');

  return (
    <section id="page-table" class="page">
      <div class="filters">
        <label class="field wide">
          <span>{t('app-filter-gpu')}</span>
          <input
            id="filter-gpu"
            type="search"
            inputMode="search"
            autocomplete="off"
            placeholder={t('app-filter-gpu-placeholder')}
            value={filters.gpu}
            onInput={(e) => set('gpu')(e.currentTarget.value)}
          />
        </label>
        <Select
          id="filter-vram"
          label={t('app-filter-vram')}
          value={filters.min_vram}
          onChange={set('min_vram')}
          options={[['', any], ...VRAM.map((gb) => [gb, t('app-filter-vram-option', { gb })])]}
        />
        <Select
          id="filter-billing"
          label={t('app-filter-billing')}
          value={filters.billing}
          onChange={set('billing')}
          options={[['', any], ...BILLING.map((b) => [b, t(`app-billing-${b}`)])]}
        />
        <Select
          id="filter-provider"
          label={t('app-filter-provider')}
          value={filters.provider}
          onChange={set('provider')}
          options={[['', t('app-filter-any-provider')], ...(options?.providers ?? [])]}
        />
        <Select
          id="filter-location"
          label={t('app-filter-location')}
          value={filters.location}
          onChange={set('location')}
          options={[['', any], ...(options?.locations ?? [])]}
        />
        <label class="field">
          <span>{t('app-filter-max')}</span>
          <input
            id="filter-max"
            type="text"
            inputMode="decimal"
            autocomplete="off"
            value={filters.max}
            onInput={(e) => set('max')(e.currentTarget.value)}
          />
        </label>
        <label class="check">
          <input
            id="filter-instock"
            type="checkbox"
            checked={filters.in_stock}
            onChange={(e) => set('in_stock')(e.currentTarget.checked)}
          />
          <span>{t('app-filter-instock')}</span>
        </label>
      </div>
      {error && (
        <p id="filter-error" class="notice error" role="alert">
          {error}
        </p>
      )}
      {offers === null ? (
        <Loading />
      ) : (
        <>
          <p id="offer-count" class="count">
            {t('app-offer-count', { count: rows.length })}
          </p>
          <div class="table-box">
            <table id="offers">
              <thead>
                <tr>
                  <SortHeader sortKey="gpu" label={t('app-col-gpu')} sort={sort} onSort={onSort} />
                  <SortHeader sortKey="vram" label={t('app-col-vram')} sort={sort} onSort={onSort} numeric />
                  <SortHeader sortKey="price" label={t('app-col-price')} sort={sort} onSort={onSort} numeric />
                  <SortHeader sortKey="hour" label={t('app-col-hour')} sort={sort} onSort={onSort} numeric />
                  <SortHeader sortKey="provider" label={t('app-col-provider')} sort={sort} onSort={onSort} />
                  <th>{t('app-col-stock')}</th>
                  <SortHeader sortKey="fresh" label={t('app-col-fresh')} sort={sort} onSort={onSort} />
                </tr>
              </thead>
              <tbody>
                {rows.map((offer) => (
                  <OfferRow key={`${offer.provider}|${offer.sku}|${offer.location}|${offer.billing}`} offer={offer} now={now} />
                ))}
              </tbody>
            </table>
          </div>
          {rows.length === 0 && !error && <p class="notice hint">{t('app-offers-empty')}</p>}
        </>
      )}
    </section>
  );
}
