// Pools: per pool, utilization by category and the CPU / wait / idle attribution of each final
// window, stacked over time. Utilization above 1 (oversubscription) is drawn as it is.
import uPlot from '../lib/uplot/uPlot.esm.js';
import {api, chartAxis, el, fail, header, stateColour} from './common.js';

header('pools');
const page = document.getElementById('page');

try {
  const pools = await api('pools');
  page.replaceChildren(el('h1', {}, 'Pools'),
      el('p', {class: 'muted'}, 'Windows of spanprof.pools.window across traces; only pools with '
          + 'a capacity (spanprof.pools.capacity.*) are kept.'));
  if (pools.length === 0) {
    page.append(el('p', {class: 'muted'}, 'No pool window yet.'));
  }
  // One time axis for every chart: from the earliest window of any pool to the latest end.
  const windows = pools.flatMap(pool => pool.windows);
  const span = windows.length === 0 ? null : [
    Math.min(...windows.map(w => seconds(w.startNanos))),
    Math.max(...windows.map(w => seconds(w.endNanos)))];
  for (const pool of pools) {
    const section = el('section', {'data-pool': pool.pool}, el('h2', {}, pool.pool));
    page.append(section);
    section.append(
        stacked(pool, 'utilization', 'Utilization by category (1 = every core busy)', 1, span));
    // A fleet's windows carry each replica's attribution: it needs all of a pool's resources at
    // each change point, which no replica sees, so it is shown per replica (semantics.md §7).
    const replicas = [...new Set(pool.windows.flatMap(w =>
        Object.keys(w.attributionByReplica || {})))].sort();
    if (replicas.length === 0) {
      section.append(stacked(pool, 'attributionNs', 'Core-seconds by class', 1e-9, span));
    }
    for (const replica of replicas) {
      const own = {...pool, windows: pool.windows.map(w =>
          ({...w, attributionNs: (w.attributionByReplica || {})[replica] || {}}))};
      const chart = stacked(own, 'attributionNs',
          `Core-seconds by class, ${replica} alone (attribution does not merge across replicas)`,
          1e-9, span);
      chart.dataset.replica = replica;
      section.append(chart);
    }
  }
} catch (error) {
  fail(page, error);
}

/** Epoch nanoseconds as epoch seconds, to the millisecond. */
function seconds(nanos) {
  return Number(BigInt(nanos) / 1000000n) / 1e3;
}

/**
 * The stacking order, bottom up, the same on every chart: CPU (or running) first, then the other
 * categories and classes by name, idle last, at the top.
 */
function stackOrder(a, b) {
  const rank = key => key === 'cpu' || key === 'running' ? 0 : key === 'idle' ? 2 : 1;
  return rank(a) - rank(b) || a.localeCompare(b);
}

/**
 * One stacked chart of a per-window map (category → value): each series is drawn at the sum of
 * itself and those below it and filled down to zero, the top of the stack first, so that each
 * lower one is painted over it. Every chart spans the time `span` ([from, to] epoch seconds).
 */
function stacked(pool, field, title, unit, span) {
  if (pool.windows.length === 0) return el('p', {class: 'muted'}, 'No final window yet.');
  const keys = [...new Set(pool.windows.flatMap(w => Object.keys(w[field])))].sort(stackOrder);
  const container = el('div', {class: 'chart', 'data-chart': field, 'data-series': keys.join('|'),
    'data-from': span[0], 'data-to': span[1]});
  // A window's figures hold from its start to its end: steps, closed by the last window's end.
  const x = [...pool.windows.map(w => seconds(w.startNanos)),
    seconds(pool.windows[pool.windows.length - 1].endNanos)];
  const sums = pool.windows.map(() => 0);
  const stack = keys.map(key => {
    const values = pool.windows.map((w, k) => (sums[k] += (w[field][key] || 0) * unit));
    return [...values, values[values.length - 1]];
  });
  const top = keys.map((key, k) => k).reverse();
  const data = [x, ...top.map(k => stack[k])];
  container.dataset.max = String(Math.max(0, ...sums));
  new uPlot({
    title,
    width: Math.min(1000, page.clientWidth - 20),
    height: 240,
    series: [{}, ...top.map(k => ({
      label: keys[k], stroke: colour(keys[k]), fill: colour(keys[k]), width: 1,
      paths: uPlot.paths.stepped({align: 1}),
      value: (u, v, s, i) => i == null ? ''
          : ((pool.windows[Math.min(i, pool.windows.length - 1)][field][keys[k]] || 0) * unit)
              .toFixed(3),
    }))],
    scales: {x: {time: true, range: () => span},
      y: {range: (u, min, max) => [0, Math.max(1, max)]}},
    axes: [chartAxis(), chartAxis()],
  }, data, container);
  return container;
}

function colour(key) {
  return key === 'cpu' ? '#2f9e44' : key === 'idle' ? '#ced4da' : stateColour(key);
}
