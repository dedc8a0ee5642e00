// Turns /api/v1/history change points into uPlot data and draws the stepped price chart.
import uPlot from 'uplot';
import { t } from './i18n.js';
import { dateTime, dayMonth, rub } from './format.js';

const PALETTE = ['#2481cc', '#e8663d', '#2ba84a', '#a05ad8', '#d4a20b', '#d6336c', '#1aa3a3', '#7a7f87'];

const configKey = (p) => `${p.provider}\u0000${p.sku}\u0000${p.location}`;

// One step span per point: the configuration's state from its `at` until its next point
// (or now, for the last one).
export function buildSeries(points, now = Date.now()) {
  const configs = new Map();
  for (const point of points) {
    const at = Date.parse(point.at) / 1000;
    if (Number.isNaN(at) || point.price_gpu_hour_rub == null) continue;
    const key = configKey(point);
    if (!configs.has(key)) {
      configs.set(key, {
        label: [point.provider_name || point.provider, point.sku, point.location].filter(Boolean).join(' · '),
        points: [],
      });
    }
    configs.get(key).points.push({ at, price: point.price_gpu_hour_rub, oos: point.stock === 'out_of_stock' });
  }
  const end = now / 1000;
  const series = [...configs.values()].map((config) => {
    const sorted = config.points.sort((a, b) => a.at - b.at);
    const spans = sorted.map((p, i) => ({
      x0: p.at,
      x1: i + 1 < sorted.length ? sorted[i + 1].at : Math.max(end, p.at),
      price: p.price,
      oos: p.oos,
    }));
    return { label: config.label, spans };
  });
  const xs = [...new Set(series.flatMap((s) => s.spans.flatMap((sp) => [sp.x0, sp.x1])))].sort((a, b) => a - b);
  // uPlot wants one value per x for each series: the state in force at that x, so the
  // cursor's legend reads the price in force under it.
  const states = series.map((s) =>
    xs.map((x) => {
      let state = null;
      for (const span of s.spans) if (span.x0 <= x) state = span;
      return state;
    }),
  );
  const data = [xs, ...states.map((col) => col.map((span) => (span ? span.price : null)))];
  return { series, states, data };
}

function withAlpha(color, alpha) {
  return /^#[0-9a-f]{6}$/i.test(color) ? color + alpha : color;
}

function cssVar(name, fallback) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function stepPath(u, spans, oos) {
  const path = new Path2D();
  spans.forEach((span, i) => {
    if (span.oos !== oos) return;
    const x0 = u.valToPos(span.x0, 'x', true);
    const x1 = u.valToPos(span.x1, 'x', true);
    const y = u.valToPos(span.price, 'y', true);
    path.moveTo(x0, y);
    path.lineTo(x1, y);
    const next = spans[i + 1];
    if (next && next.x0 === span.x1) path.lineTo(x1, u.valToPos(next.price, 'y', true));
  });
  return path;
}

// In-stock spans are solid (uPlot's stroke); out-of-stock spans, the change points and the
// low are drawn over it in the draw hook: dashed and faded, hollow points, a ringed low.
function drawOverlay(u, built, low, colors) {
  const { ctx } = u;
  const { left, top, width, height } = u.bbox;
  const dpr = window.devicePixelRatio || 1;
  ctx.save();
  ctx.beginPath();
  ctx.rect(left, top, width, height);
  ctx.clip();
  built.series.forEach((s, i) => {
    if (!u.series[i + 1].show) return;
    const color = PALETTE[i % PALETTE.length];
    ctx.strokeStyle = color;
    ctx.globalAlpha = 0.55;
    ctx.lineWidth = 1.5 * dpr;
    ctx.setLineDash([4 * dpr, 4 * dpr]);
    ctx.stroke(stepPath(u, s.spans, true));
    ctx.setLineDash([]);
    ctx.globalAlpha = 1;
    for (const span of s.spans) {
      const x = u.valToPos(span.x0, 'x', true);
      const y = u.valToPos(span.price, 'y', true);
      ctx.beginPath();
      ctx.arc(x, y, 3 * dpr, 0, 2 * Math.PI);
      ctx.fillStyle = span.oos ? colors.bg : color;
      ctx.fill();
      ctx.stroke();
    }
  });
  if (low) {
    const x = u.valToPos(Date.parse(low.at) / 1000, 'x', true);
    const y = u.valToPos(low.price_gpu_hour_rub, 'y', true);
    ctx.strokeStyle = colors.low;
    ctx.lineWidth = 1 * dpr;
    ctx.setLineDash([2 * dpr, 3 * dpr]);
    ctx.beginPath();
    ctx.moveTo(left, y);
    ctx.lineTo(left + width, y);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.lineWidth = 2 * dpr;
    ctx.beginPath();
    ctx.arc(x, y, 6 * dpr, 0, 2 * Math.PI);
    ctx.stroke();
  }
  ctx.restore();
}

export function createChart(container, built, low) {
  const colors = {
    text: cssVar('--tg-theme-text-color', '#000000'),
    hint: cssVar('--tg-theme-hint-color', '#999999'),
    bg: cssVar('--tg-theme-bg-color', '#ffffff'),
    low: cssVar('--tg-theme-destructive-text-color', '#e53935'),
  };
  const grid = { stroke: withAlpha(colors.hint, '33'), width: 1 };
  const axis = { stroke: colors.hint, grid, ticks: { stroke: withAlpha(colors.hint, '55'), width: 1 } };
  const opts = {
    width: Math.max(container.clientWidth, 200),
    height: 260,
    padding: [8, 8, 0, 0],
    cursor: { drag: { x: true, y: false }, points: { size: 7 } },
    legend: { live: true },
    scales: {
      x: {
        time: true,
        // A little room left of the first change point so its marker is not cut in half.
        range: (u, min, max) => [min - Math.max((max - min) * 0.03, 60), max],
      },
    },
    axes: [
      {
        ...axis,
        space: 56,
        // dd.mm like the rest of the app; hh:mm when the whole chart spans under two days.
        values: (u, splits) => {
          const span = u.scales.x.max - u.scales.x.min;
          return splits.map((ts) => (span < 2 * 86400 ? dateTime(ts * 1000).slice(6) : dayMonth(ts * 1000)));
        },
      },
      { ...axis, size: 52, values: (u, splits) => splits.map((v) => new Intl.NumberFormat('ru-RU').format(v)) },
    ],
    series: [
      { label: t('app-col-time'), value: (u, ts) => (ts == null ? t('app-history-now') : dateTime(ts * 1000)) },
      ...built.series.map((s, i) => ({
        label: s.label,
        stroke: PALETTE[i % PALETTE.length],
        width: 2,
        points: { show: false },
        paths: (u) => ({ stroke: stepPath(u, s.spans, false), fill: null, clip: null, flags: 0 }),
        value: (u, v, si, idx) => {
          // With no cursor (a phone before a touch) the legend shows the price in force now.
          const state = idx == null ? built.states[i][built.states[i].length - 1] : built.states[i][idx];
          if (!state) return '—';
          return state.oos ? `${rub(state.price)} (${t('app-history-out')})` : rub(state.price);
        },
      })),
    ],
    hooks: { draw: [(u) => drawOverlay(u, built, low, colors)] },
  };
  return new uPlot(opts, built.data, container);
}
