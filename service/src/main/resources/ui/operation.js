// One operation: its ranking figures, its duration, self-time and critical-path distributions as
// percentile plots, its callers and callees, and its recent traces.
import uPlot from '../lib/uplot/uPlot.esm.js';
import {api, chartAxis, duration, el, fail, figure, header, legend, number, operationLink,
  palette, percent, table, traceLink} from './common.js';

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
  const [ranking, edges, traces, status] = await Promise.all([
    api('ranking?top=100000'),
    api('ranking/edges?' + query),
    api(`traces?limit=20&${new URLSearchParams({containsService: service,
      containsOperation: operation})}`),
    api('status'),
  ]);
  const row = ranking.find(r => r.service === service && r.name === operation);
  const charts = el('div', {id: 'distributions'});
  const quantile = Number(params.get('quantile') || '0.9');
  const tail = await api(`tail?${query}&quantile=${quantile}`).catch(() => null);
  page.replaceChildren(
      el('h1', {}, `${service}: ${operation}`),
      el('p', {class: 'muted', id: 'figures-window'}, row ? 'Over the traces of the last '
          + `${duration(status.rankingWindowNs)}, as the ranking.` : ''),
      row ? el('div', {class: 'figures', id: 'figures'},
          figure('rank', row.rank), figure('involvement', number(row.involvement, 4)),
          figure('calls', number(row.count, 0)),
          figure('errors', number(row.errorCount, 0), 'spans with status ERROR'),
          figure('error rate', percent(row.count ? row.errorCount / row.count : 0)),
          figure('mean', duration(row.durationMeanNs)),
          figure('p99', duration(row.durationP99Ns)),
          figure('self time, total', duration(row.selfTimeTotalNs)),
          figure('self time, mean', duration(row.selfTimeMeanNs)),
          figure('critical-path share', percent(row.criticalPathShare)),
          row.flags.length > 0 && figure('flags', row.flags.join(', ')))
        : el('p', {class: 'muted'}, 'Not in the current call ranking.'),
      tail ? whySlow(tail) : el('div'),
      el('h2', {}, 'Distributions'),
      el('p', {class: 'muted'}, 'Value at each percentile, the percentile axis logarithmic in '
          + '1/(1 − p) as HdrHistogram plots it: since start (cumulative) and over the last '
          + `${duration(status.histogramWindowNs)} of spans (window).`),
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
  const answers = [];
  for (const [kind, title] of KINDS) {
    try {
      answers.push([kind, title, await api(`distributions?${query}&kind=${kind}`)]);
    } catch (error) {
      answers.push([kind, title, error]);
    }
  }
  // A log axis by default, so that a median of milliseconds and a tail of seconds both show.
  const logAxis = el('input', {type: 'checkbox', id: 'log-axis', checked: true});
  const draw = () => charts.replaceChildren(
      el('label', {class: 'toggle'}, logAxis, ' log axis'),
      ...answers.map(([kind, title, answer]) => answer instanceof Error
          ? el('p', {class: 'muted'}, `${title}: ${answer.message}`)
          : plot(kind, title, answer, logAxis.checked)));
  logAxis.addEventListener('change', draw);
  draw();
}

/** The quantile the slow traces start at, chosen on the page: it goes in the URL. */
function quantileChoice(current) {
  const choices = [...new Set([0.5, 0.75, 0.9, 0.95, 0.99, 0.999, current])].sort((a, b) => a - b);
  const select = el('select', {id: 'quantile', onchange: () => {
    const query = new URLSearchParams(location.search);
    query.set('quantile', select.value);
    location.search = query.toString();
  }}, choices.map(q => el('option', {value: String(q), selected: q === current},
      `p${Number((100 * q).toFixed(2))}`)));
  return el('label', {class: 'toggle'}, 'slow traces from ', select);
}

/** An axis value in milliseconds as a short duration: 500 µs, 20 ms, 1.5 s. */
function tick(ms) {
  const [unit, name] = ms >= 1000 ? [1000, 's'] : ms >= 1 ? [1, 'ms'] : ms >= 1e-3 ? [1e-3, 'µs']
      : [1e-6, 'ns'];
  return `${Number((ms / unit).toPrecision(3))} ${name}`;
}

/** Each power of ten from the one at or below {@code min} up to {@code max}. */
function decades(min, max) {
  const ticks = [];
  for (let t = 10 ** Math.floor(Math.log10(min)); t <= max * 1.000001; t *= 10) {
    ticks.push(Number(t.toPrecision(1)));
  }
  return ticks;
}

/**
 * Why this root's slow traces are slow (semantics.md §6): the mean critical path of the slow
 * traces and of all, each a bar stacked by operation, and the rows by excess.
 */
function whySlow(tail) {
  const percentile = Number((100 * tail.quantile).toFixed(2));
  const key = row => row.service + ': ' + row.operation;
  const colours = new Map(palette(tail.operations.length)
      .map((colour, k) => [key(tail.operations[k]), colour]));
  return el('section', {id: 'why-slow'},
      el('h2', {}, `Why slow: traces at or above p${percentile} against all`),
      quantileChoice(tail.quantile),
      el('p', {class: 'muted'}, `Of the ${duration(tail.meanSlowNs - tail.meanAllNs)} by which the `
          + `${number(tail.slowTraces, 0)} traces of at least ${duration(tail.thetaNs)} exceed the `
          + `average of all ${number(tail.allTraces, 0)}, each operation on the critical path `
          + 'contributes its excess; the excesses add up to it.'),
      el('div', {class: 'figures'},
          figure(`slow traces (≥ ${duration(tail.thetaNs)})`, number(tail.slowTraces, 0)),
          figure('all traces', number(tail.allTraces, 0)),
          figure('mean of the slow', duration(tail.meanSlowNs)),
          figure('mean of all', duration(tail.meanAllNs)),
          figure('excess', duration(tail.meanSlowNs - tail.meanAllNs))),
      stackedBars(tail, colours, key),
      el('div', {class: 'legend', id: 'tail-legend'}, tail.operations.map(row => el('span', {},
          el('span', {class: 'swatch', style: `background:${colours.get(key(row))}`}),
          key(row)))),
      table([
        ['service', r => r.service],
        ['operation', r => operationLink(r.service, r.operation)],
        ['excess', r => el('span', {'data-ns': r.excessNs}, duration(r.excessNs)), true],
        ['mean, slow', r => duration(r.meanSlowNs), true],
        ['mean, all', r => duration(r.meanAllNs), true],
        ['share, slow', r => percent(r.shareSlow), true],
        ['share, all', r => percent(r.shareAll), true],
      ], tail.operations, {id: 'tail-operations'}),
      el('h3', {}, 'By state'),
      table([
        ['state', r => el('span', {}, legend([r.state]).firstChild)],
        ['excess', r => duration(r.excessNs), true],
        ['mean, slow', r => duration(r.meanSlowNs), true],
        ['mean, all', r => duration(r.meanAllNs), true],
        ['share, slow', r => percent(r.shareSlow), true],
        ['share, all', r => percent(r.shareAll), true],
      ], tail.states, {id: 'tail-states'}));
}

/** Two bars on one scale, the slow traces' mean critical path and all traces', by operation. */
function stackedBars(tail, colours, key) {
  const labelWidth = 150;
  const width = Math.min(900, page.clientWidth - 40) - labelWidth;
  const scale = width / Math.max(1, tail.meanSlowNs, tail.meanAllNs);
  const bar = (set, label, y, field) => {
    let x = labelWidth;
    return el('g', {'data-set': set},
        el('text', {x: 0, y: y + 15}, label),
        tail.operations.map(row => {
          const rect = el('rect', {class: 'tail-segment', x, y, height: 20,
            width: Math.max(0, row[field] * scale), fill: colours.get(key(row)),
            'data-operation': key(row), 'data-ns': row[field]},
          el('title', {}, `${key(row)}: ${duration(row[field])}`));
          x += row[field] * scale;
          return rect;
        }));
  };
  return el('svg', {id: 'tail-bars', width: labelWidth + width + 10, height: 64},
      bar('slow', 'slow traces', 4, 'meanSlowNs'), bar('all', 'all traces', 36, 'meanAllNs'));
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

/**
 * A percentile plot of one kind: cumulative and sliding window, raw and corrected if kept; the
 * values on a log axis (ticks at each power of ten, in data-y-ticks) or a linear one.
 */
function plot(kind, title, answer, log) {
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
  // A log axis has no place for zero: such a value is left undrawn.
  const data = [x, ...views.map(([, view]) => view.percentiles
      .filter(p => p.percentile <= MAX_PERCENTILE)
      .map(p => log && p.valueNs <= 0 ? null : p.valueNs / 1e6))];
  container.dataset.yScale = log ? 'log' : 'linear';
  const colours = ['#2457c5', '#2f9e44', '#d6336c', '#f59f00'];
  new uPlot({
    title,
    width: Math.min(900, page.clientWidth - 20),
    height: 260,
    scales: {x: {time: false, distr: 3, log: 10, range: () => [2, MAX_X]},
      y: log ? {distr: 3, log: 10} : {}},
    axes: [
      chartAxis({splits: () => TICKS.map(([x]) => x),
        values: () => TICKS.map(([, label]) => label)}),
      // Ticks in the unit that reads best, so that seconds read as seconds.
      chartAxis({size: 64, values: (u, splits) => {
        const labels = splits.map(tick);
        container.dataset.yLabels = labels.join('|');
        return labels;
      },
        ...(log ? {splits: (u, axis, min, max) => {
          const ticks = decades(min, max);
          container.dataset.yTicks = ticks.join('|');
          return ticks;
        }} : {})}),
    ],
    series: [{label: 'percentile',
      value: (u, v) => v == null ? '' : (100 - 100 / v).toFixed(4) + '%'},
      ...views.map(([label], k) => ({label, stroke: colours[k], width: 2,
        value: (u, v) => v == null ? '' : duration(v * 1e6)}))],
  }, data, container);
  return container;
}
