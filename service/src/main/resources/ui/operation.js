// One operation: its ranking figures, its duration, self-time and critical-path distributions as
// percentile plots, its callers and callees, and its recent traces.
import uPlot from '../lib/uplot/uPlot.esm.js';
import {api, duration, el, fail, figure, header, number, operationLink, percent, table,
  traceLink} from './common.js';

const KINDS = [['duration', 'Duration'], ['self_time', 'Self time'],
  ['critical_path', 'Critical-path time']];
/** The plots stop at p99.99: beyond it a window's curve is a handful of spans. */
const MAX_PERCENTILE = 99.99;
const MAX_X = 1 / (1 - MAX_PERCENTILE / 100);
/** The percentile axis' ticks, at 1/(1 − p). */
const TICKS = [[2, '50%'], [10, '90%'], [100, '99%'], [1000, '99.9%'], [MAX_X, '99.99%']];

header('');
const page = document.getElementById('page');
const params = new URLSearchParams(location.search);
const service = params.get('service');
const operation = params.get('operation');

if (!service || !operation) {
  fail(page, new Error('Give the operation as ?service=S&operation=O.'));
} else {
  show().catch(error => fail(page, error));
}

async function show() {
  const query = new URLSearchParams({service, operation});
  const [ranking, edges, traces] = await Promise.all([
    api('ranking?top=100000'),
    api('ranking/edges?' + query),
    api(`traces?limit=20&${new URLSearchParams({containsService: service,
      containsOperation: operation})}`),
  ]);
  const row = ranking.find(r => r.service === service && r.name === operation);
  const charts = el('div', {id: 'distributions'});
  page.replaceChildren(
      el('h1', {}, `${service}: ${operation}`),
      row ? el('div', {class: 'figures', id: 'figures'},
          figure('rank', row.rank), figure('involvement', number(row.involvement, 4)),
          figure('calls', number(row.count, 0)), figure('mean', duration(row.durationMeanNs)),
          figure('p99', duration(row.durationP99Ns)),
          figure('self time', duration(row.selfTimeTotalNs)),
          figure('critical-path share', percent(row.criticalPathShare)),
          row.flags.length > 0 && figure('flags', row.flags.join(', ')))
        : el('p', {class: 'muted'}, 'Not in the current call ranking.'),
      el('h2', {}, 'Distributions'),
      el('p', {class: 'muted'}, 'Value at each percentile, the percentile axis logarithmic in '
          + '1/(1 − p) as HdrHistogram plots it.'),
      charts,
      el('div', {class: 'columns'},
          el('div', {}, el('h2', {}, 'Callers'), neighbours(edges.callers, 'callers')),
          el('div', {}, el('h2', {}, 'Callees'), neighbours(edges.callees, 'callees'))),
      el('h2', {}, 'Recent traces with this operation'),
      traces.length === 0 ? el('p', {class: 'muted'}, 'None among the recent traces.') : table([
        ['trace', t => traceLink(t.traceId)],
        ['root', t => `${t.rootService}: ${t.rootOperation}`],
        ['TTC', t => duration(t.ttcNs), true],
        ['completion', t => t.completion],
      ], traces, {id: 'operation-traces'}));
  for (const [kind, title] of KINDS) {
    try {
      const answer = await api(`distributions?${query}&kind=${kind}`);
      charts.append(plot(kind, title, answer));
    } catch (error) {
      charts.append(el('p', {class: 'muted'}, `${title}: ${error.message}`));
    }
  }
}

function neighbours(rows, id) {
  if (rows.length === 0) return el('p', {class: 'muted'}, 'None.');
  return table([
    ['service', n => n.service],
    ['operation', n => operationLink(n.service, n.name)],
    ['calls', n => number(n.count, 0), true],
    ['callee mean', n => duration(n.calleeDurationMeanNs), true],
    ['callee max', n => duration(n.calleeDurationMaxNs), true],
  ], rows, {id});
}

/** A percentile plot of one kind: cumulative and sliding window, raw and corrected if kept. */
function plot(kind, title, answer) {
  const views = [['cumulative', answer.cumulative], ['window', answer.window],
    ['cumulative, corrected', answer.cumulativeCorrected],
    ['window, corrected', answer.windowCorrected]].filter(([, view]) => view && view.count > 0);
  const container = el('div', {class: 'chart', 'data-kind': kind,
    'data-series': views.map(([label]) => label).join('|')});
  if (views.length === 0) {
    container.append(el('p', {class: 'muted'}, `${title}: no values yet.`));
    return container;
  }
  const points = views[0][1].percentiles.filter(p => p.percentile <= MAX_PERCENTILE);
  const x = points.map(p => 1 / (1 - p.percentile / 100));
  const data = [x, ...views.map(([, view]) => view.percentiles
      .filter(p => p.percentile <= MAX_PERCENTILE).map(p => p.valueNs / 1e6))];
  const colours = ['#2457c5', '#2f9e44', '#d6336c', '#f59f00'];
  new uPlot({
    title: `${title} (ms)`,
    width: Math.min(900, page.clientWidth - 20),
    height: 260,
    scales: {x: {time: false, distr: 3, log: 10, range: () => [2, MAX_X]}},
    axes: [
      {splits: () => TICKS.map(([x]) => x), values: () => TICKS.map(([, label]) => label)},
      {label: 'ms'},
    ],
    series: [{label: 'percentile', value: (u, v) => v == null ? '' : (100 - 100 / v).toFixed(4) + '%'},
      ...views.map(([label], k) => ({label, stroke: colours[k], width: 2,
        value: (u, v) => v == null ? '' : number(v, 3) + ' ms'}))],
  }, data, container);
  return container;
}
