import { useEffect, useRef, useState } from 'preact/hooks';
import { hasText, t } from '../i18n.js';
import { ago, clock, number, rub, safeUrl } from '../format.js';
import { haptic, openLink } from '../telegram.js';
import { errorText, Loading, PHONE_QUERY, useMedia } from '../ui.jsx';
import { distinctOptions, EMPTY_FILTERS, filterParams, sortOffers } from './offers.js';

const VRAM = ['16', '24', '40', '48', '80'];
const BILLING = ['hourly', 'monthly', 'preemptible'];
// The orders the sort chip offers: /prices' own first (the default), then by price and age.
const ORDERS = ['rank|asc', 'price|asc', 'price|desc', 'fresh|asc'];
const DEBOUNCE_MS = 300;

// Kept across tab switches so coming back to the table shows what the user left.
const saved = { filters: { ...EMPTY_FILTERS }, sort: { key: 'rank', dir: 'asc' }, options: null };

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

// What a row and a card both carry: the tests and the console read an offer from these.
function offerAttributes(offer) {
  return {
    class: `offer stock-${offer.stock}${offer.stale ? ' stale' : ''}`,
    'data-stale': offer.stale ? 'true' : 'false',
    'data-stock': offer.stock,
    title: offer.stale && offer.error_class ? offer.error_class : undefined,
    'data-provider': offer.provider,
    'data-sku': offer.sku,
    'data-location': offer.location,
    'data-gpu': offer.gpu,
    'data-billing': offer.billing,
    'data-vram': offer.vram_gb ?? undefined,
    'data-price': offer.price_gpu_hour_rub ?? undefined,
  };
}

// The provider's name, a link to its offer where it gave a safe one (opened by Telegram).
function ProviderLink({ offer }) {
  const url = safeUrl(offer.url);
  const name = offer.provider_name || offer.provider;
  if (!url) return name;
  return (
    <a href={url} target="_blank" rel="noopener noreferrer" onClick={(e) => openLink(e, url)}>
      {name}
    </a>
  );
}

function offerKey(offer) {
  return `${offer.provider}|${offer.sku}|${offer.location}|${offer.billing}`;
}

// A phone's offer: the card and its count, the price it is billed by with the billing kind
// (a monthly-only server shows its month, never a GPU-hour that reads as the cheapest),
// the place, the stock and how fresh the data is.
function OfferCard({ offer, now }) {
  const monthly = offer.billing === 'monthly' && offer.price_month_rub != null;
  const approx = offer.converted ? '≈' : '';
  const price = monthly
    ? t('app-card-month', { price: rub(offer.price_month_rub) })
    : t('app-card-gpu-hour', { price: rub(offer.price_gpu_hour_rub) });
  let second = null;
  if (monthly) second = t('app-card-approx-gpu-hour', { price: rub(offer.price_gpu_hour_rub) });
  else if (offer.gpu_count > 1) second = t('app-card-server-hour', { price: rub(offer.price_hour_rub) });
  return (
    <li {...offerAttributes(offer)}>
      <div class="card-line">
        <span class="gpu">
          <b>{offer.gpu}</b>
          {offer.gpu_count > 1 && ` ×${offer.gpu_count}`}
          {offer.vram_gb != null && <span class="sub"> · {t('app-card-vram', { gb: number(offer.vram_gb) })}</span>}
        </span>
        <b class="card-price price" title={offer.converted ? t('app-converted') : undefined}>
          {approx}
          {price}
        </b>
      </div>
      <div class="card-line sub">
        <span class="card-billing">{t(`app-card-billing-${offer.billing}`)}</span>
        {second && <span>{second}</span>}
      </div>
      <div class="card-line">
        <span class="card-place">
          <ProviderLink offer={offer} />
          <span class="sub"> · {offer.location}</span>
        </span>
        <span class={`card-stock stock ${offer.stock}`}>{stockText(offer)}</span>
      </div>
      <div class="sub fresh">{freshness(offer, now)}</div>
    </li>
  );
}

function OfferRow({ offer, now }) {
  const note = freshness(offer, now);
  return (
    <tr {...offerAttributes(offer)}>
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
        <ProviderLink offer={offer} />
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

// On a phone a filter is a chip: its label is only read aloud, and a chip with no choice
// shows the filter's name (`label`) where a wide screen says «любая» under the label.
function Select({ id, label, value, onChange, options, on = Boolean(value) }) {
  return (
    <label class={on ? 'field chip on' : 'field chip'}>
      <span class="label">{label}</span>
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
  const phone = useMedia(PHONE_QUERY);

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

  const set = (key) => (value) => {
    if (key !== 'gpu' && key !== 'max') haptic('select');
    setFilters((f) => ({ ...f, [key]: value }));
  };
  const sortBy = (next) => {
    saved.sort = next;
    setSort(next);
  };
  const onSort = (key) =>
    sortBy(sort.key === key ? { key, dir: sort.dir === 'asc' ? 'desc' : 'asc' } : { key, dir: 'asc' });
  const rows = offers ? sortOffers(offers, sort.key, sort.dir) : [];
  // A phone's chip with no choice names its filter; a wide screen's label does that.
  const any = (label) => (phone ? label : t('app-filter-any'));
  const order = `${sort.key}|${sort.dir}`;

  return (
    <section id="page-table" class="page">
      <div class={phone ? 'filters chips' : 'filters'}>
        <label class={filters.gpu ? 'field wide chip on' : 'field wide chip'}>
          <span class="label">{t('app-filter-gpu')}</span>
          <input
            id="filter-gpu"
            type="search"
            inputMode="search"
            autocomplete="off"
            placeholder={phone ? `${t('app-filter-gpu')}: ${t('app-filter-gpu-placeholder')}` : t('app-filter-gpu-placeholder')}
            value={filters.gpu}
            onInput={(e) => set('gpu')(e.currentTarget.value)}
          />
        </label>
        <Select
          id="filter-vram"
          label={t('app-filter-vram')}
          value={filters.min_vram}
          onChange={set('min_vram')}
          options={[['', any(t('app-filter-vram'))], ...VRAM.map((gb) => [gb, t('app-filter-vram-option', { gb })])]}
        />
        <Select
          id="filter-billing"
          label={t('app-filter-billing')}
          value={filters.billing}
          onChange={set('billing')}
          options={[['', any(t('app-filter-billing'))], ...BILLING.map((b) => [b, t(`app-billing-${b}`)])]}
        />
        <Select
          id="filter-provider"
          label={t('app-filter-provider')}
          value={filters.provider}
          onChange={set('provider')}
          options={[
            ['', phone ? t('app-filter-provider') : t('app-filter-any-provider')],
            ...(options?.providers ?? []),
          ]}
        />
        <Select
          id="filter-location"
          label={t('app-filter-location')}
          value={filters.location}
          onChange={set('location')}
          options={[['', any(t('app-filter-location'))], ...(options?.locations ?? [])]}
        />
        <label class={filters.max ? 'field chip on' : 'field chip'}>
          <span class="label">{t('app-filter-max')}</span>
          <input
            id="filter-max"
            type="text"
            inputMode="decimal"
            autocomplete="off"
            placeholder={phone ? t('app-filter-max') : undefined}
            value={filters.max}
            onInput={(e) => set('max')(e.currentTarget.value)}
          />
        </label>
        <label class={filters.in_stock ? 'check chip on' : 'check chip'}>
          <input
            id="filter-instock"
            type="checkbox"
            checked={filters.in_stock}
            onChange={(e) => set('in_stock')(e.currentTarget.checked)}
          />
          <span>{t('app-filter-instock')}</span>
        </label>
        <Select
          id="sort"
          label={t('app-sort')}
          value={ORDERS.includes(order) ? order : ''}
          on={order !== ORDERS[0]}
          onChange={(value) => {
            const [key, dir] = (value || 'rank|asc').split('|');
            sortBy({ key, dir });
          }}
          options={[
            ...(ORDERS.includes(order) ? [] : [['', t('app-sort-column')]]),
            ...ORDERS.map((o) => [o, t(`app-sort-${o.replace('|', '-')}`)]),
          ]}
        />
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
          {phone ? (
            <ul id="offers" class="cards">
              {rows.map((offer) => (
                <OfferCard key={offerKey(offer)} offer={offer} now={now} />
              ))}
            </ul>
          ) : (
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
                  <OfferRow key={offerKey(offer)} offer={offer} now={now} />
                ))}
              </tbody>
            </table>
          </div>
          )}
          {rows.length === 0 && !error && <p class="notice hint">{t('app-offers-empty')}</p>}
        </>
      )}
    </section>
  );
}
