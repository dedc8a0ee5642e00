// Pure helpers for the table page: the request's params and the client-side sort.

export const EMPTY_FILTERS = {
  gpu: '',
  min_vram: '',
  billing: '',
  provider: '',
  location: '',
  in_stock: false,
  max: '',
};

export function filterParams(filters) {
  const params = {};
  for (const [key, value] of Object.entries(filters)) {
    if (key === 'in_stock') {
      if (value) params.in_stock = 'true';
    } else if (String(value).trim() !== '') {
      params[key] = String(value).trim();
    }
  }
  return params;
}

const SORT_VALUE = {
  price: (o) => o.price_gpu_hour_rub,
  hour: (o) => o.price_hour_rub,
  vram: (o) => o.vram_gb,
  gpu: (o) => `${o.gpu ?? ''} ${String(o.gpu_count ?? 0).padStart(3, '0')}`,
  provider: (o) => `${o.provider_name ?? o.provider ?? ''} ${o.location ?? ''}`,
  // Freshness sorts by age: ascending puts the newest observation first.
  fresh: (o) => {
    const at = Date.parse(o.observed_at);
    return Number.isNaN(at) ? null : -at;
  },
};

// 'rank' keeps the API's order, the one /prices shows (monitor.offer_ranking): the default.
export const SORT_KEYS = ['rank', ...Object.keys(SORT_VALUE)];

export function sortOffers(offers, key, dir) {
  if (key === 'rank') return offers;
  const value = SORT_VALUE[key] ?? SORT_VALUE.price;
  const sign = dir === 'desc' ? -1 : 1;
  return offers
    .map((offer, index) => ({ offer, index, v: value(offer) }))
    .sort((a, b) => {
      // Missing values go last whichever way the column is sorted.
      if (a.v == null || b.v == null) {
        return a.v == null && b.v == null ? a.index - b.index : a.v == null ? 1 : -1;
      }
      const cmp = typeof a.v === 'string' ? a.v.localeCompare(b.v) : a.v - b.v;
      return cmp !== 0 ? sign * cmp : a.index - b.index;
    })
    .map((entry) => entry.offer);
}

export function distinctOptions(offers, valueOf, labelOf) {
  const seen = new Map();
  for (const offer of offers) {
    const value = valueOf(offer);
    if (value != null && value !== '' && !seen.has(value)) seen.set(value, labelOf(offer) || value);
  }
  return [...seen].sort((a, b) => String(a[1]).localeCompare(String(b[1])));
}
