import { useEffect, useRef, useState } from 'preact/hooks';
import { buildSeries, createChart } from '../chart.js';
import { t } from '../i18n.js';
import { amount, dateTime, dayMonth, rub } from '../format.js';
import { errorText, Loading } from '../ui.jsx';

const GPUS = ['h100', 'h200', 'a100', 'l40s', 'l4', 'a6000', '4090', '3090', 'v100', 't4'];
const DEBOUNCE_MS = 400;

function Chart({ history, theme }) {
  const box = useRef(null);
  const points = history.points;

  useEffect(() => {
    const el = box.current;
    if (!el || points.length === 0) return undefined;
    const chart = createChart(el, buildSeries(points), history.low);
    // Tests and the console reach the chart through the container.
    el.uplot = chart;
    const resize = new ResizeObserver(() => {
      const width = el.clientWidth;
      if (width > 0 && width !== chart.width) chart.setSize({ width, height: chart.height });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
      el.uplot = undefined;
    };
  }, [history, theme]);

  return <div id="history-chart" class="chart" ref={box} data-points={points.length} />;
}

function Low({ low }) {
  if (!low) return <p class="caption hint">{t('app-history-no-low')}</p>;
  return (
    <p id="history-low" class="caption" data-price={low.price_gpu_hour_rub} data-at={low.at}>
      <span class="low-mark" aria-hidden="true">◯ </span>
      {t('app-history-low', {
        price: amount(low.price_gpu_hour_rub),
        provider: low.provider_name || low.provider,
        date: dayMonth(low.at),
      })}
    </p>
  );
}

function PointsTable({ points }) {
  return (
    <details class="points">
      <summary>{t('app-history-points', { count: points.length })}</summary>
      <div class="table-box">
        <table id="history-points">
          <thead>
            <tr>
              <th>{t('app-col-time')}</th>
              <th>{t('app-col-config')}</th>
              <th class="num">{t('app-col-price')}</th>
              <th>{t('app-col-stock')}</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr
                class={`point stock-${p.stock}`}
                data-at={p.at}
                data-price={p.price_gpu_hour_rub ?? undefined}
                data-provider={p.provider}
                data-sku={p.sku}
                data-location={p.location}
                data-stock={p.stock}
              >
                <td class="sub nowrap">{dateTime(p.at)}</td>
                <td>
                  {p.provider_name || p.provider}
                  <div class="sub">
                    <span class="nowrap">{p.sku}</span> · <span class="nowrap">{p.location}</span>
                  </div>
                </td>
                <td class="num">{rub(p.price_gpu_hour_rub)}</td>
                <td class={`stock ${p.stock}`}>
                  {p.stock === 'out_of_stock'
                    ? t('app-stock-out')
                    : p.stock === 'in_stock'
                      ? p.stock_count == null
                        ? t('app-stock-in')
                        : t('app-stock-in-count', { count: p.stock_count })
                      : p.stock === 'preorder'
                        ? t('app-stock-preorder')
                        : t('app-stock-unknown')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

export function HistoryPage({ api, initialGpu, theme }) {
  const [gpu, setGpu] = useState(initialGpu);
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const first = useRef(true);

  useEffect(() => {
    const query = gpu.trim();
    if (!query) return undefined;
    const controller = new AbortController();
    const load = () =>
      api.history(query, controller.signal).then(
        (data) => {
          setError(null);
          setResult({ ...data, points: Array.isArray(data?.points) ? data.points : [] });
        },
        (err) => {
          if (err?.name === 'AbortError') return;
          setResult(null);
          setError(errorText(err));
        },
      );
    const timer = setTimeout(load, first.current ? 0 : DEBOUNCE_MS);
    first.current = false;
    const url = new URL(location.href);
    url.searchParams.set('gpu', query);
    window.history.replaceState(null, '', url);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [gpu]);

  return (
    <section id="page-history" class="page">
      <div class="filters">
        <label class="field wide">
          <span>{t('app-history-gpu')}</span>
          <input
            id="history-gpu"
            type="search"
            list="history-gpus"
            autocomplete="off"
            value={gpu}
            onInput={(e) => setGpu(e.currentTarget.value)}
          />
          <datalist id="history-gpus">
            {GPUS.map((g) => (
              <option value={g} />
            ))}
          </datalist>
        </label>
      </div>
      {error && (
        <p id="history-error" class="notice error" role="alert">
          {error}
        </p>
      )}
      {!error && result === null && <Loading />}
      {result && (
        <>
          <h2 class="title">
            {result.gpu} <span class="hint">{t('app-history-days')}</span>
          </h2>
          {result.points.length === 0 ? (
            <>
              <p id="history-empty" class="notice hint">
                {t('app-history-empty', { gpu: result.gpu || gpu })}
              </p>
              <div id="history-chart" class="chart empty" data-points="0" />
            </>
          ) : (
            <>
              <Chart history={result} theme={theme} />
              <Low low={result.low} />
              <PointsTable points={result.points} />
            </>
          )}
        </>
      )}
    </section>
  );
}
