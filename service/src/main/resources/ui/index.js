// Overview: spanprof's own state, the call ranking and the slowest recent traces.
import {api, autoRefresh, duration, el, fail, figure, header, number, operationLink, percent,
  rootOptions, since, table, traceLink} from './common.js';

const SORTS = {involvement: 'involvement', critical_path: 'critical-path share',
  self_time: 'total self time'};
const REFRESH_MS = 5000;

header('./');
const page = document.getElementById('page');
const status = el('div', {class: 'figures', id: 'status'});
const rootPicker = el('select', {id: 'root', 'aria-label': 'root operation',
  onchange: () => { root = rootPicker.value; remember(); refresh(); }});
const ranking = el('div', {id: 'ranking'});
const slowest = el('div', {id: 'slowest'});
page.replaceChildren(el('h1', {}, 'Overview'),
    autoRefresh('overview', true, () => refresh(), REFRESH_MS), status,
    el('h2', {}, 'Top operations'),
    el('form', {class: 'filters', onsubmit: event => event.preventDefault()},
        el('label', {}, 'traces of the root operation', rootPicker)),
    ranking,
    el('h2', {}, 'Slowest recent traces'), slowest);

const params = new URLSearchParams(location.search);
let sort = params.get('sort') || 'involvement';
// A root operation as "service\toperation"; empty: every trace.
let root = params.get('root') || '';
let previous = null;

function remember() {
  const query = new URLSearchParams({sort});
  if (root) query.set('root', root);
  history.replaceState(null, '', '?' + query);
}

/** The counters as figures; rates from the difference to the previous reading. */
async function showStatus() {
  const now = await api('status');
  const seconds = previous ? since(previous.nowNanos, now.nowNanos) / 1e9 : 0;
  const rate = key => seconds > 0 ? number((now[key] - previous[key]) / seconds, 0) + '/s' : '…';
  status.replaceChildren(
      figure('received spans', number(now.receivedSpans, 0), 'spanprof_received_spans_total'),
      figure('received', rate('receivedSpans')),
      figure('refused spans', number(now.refusedSpans, 0), 'spanprof_refused_spans_total'),
      figure('refused', rate('refusedSpans')),
      ...(now.forwarding ? [
        figure('forwarded spans', number(now.exportedSpans, 0), 'spanprof_exported_spans_total'),
        figure('forwarded', rate('exportedSpans')),
        figure('failed to forward', number(now.exportFailedSpans, 0),
            'spanprof_export_failed_spans_total')] : []),
      figure('buffered / limit',
          `${number(now.bufferedSpans, 0)} / ${number(now.bufferedSpansLimit, 0)}`,
          'spanprof_buffered_spans'),
      figure('traces analysed', number(now.analysedTraces, 0), 'spanprof_traces_total'));
  previous = now;
  return now;
}

let shownRoots = null;

/** The root operations with traces in the window, for the picker; the choice kept. */
async function showRoots() {
  const roots = await api('tail');
  const key = JSON.stringify(roots.map(r => [r.service, r.operation, r.traces])) + root;
  if (key === shownRoots) return; // the same choices: leave an open picker alone
  shownRoots = key;
  rootPicker.replaceChildren(...rootOptions(roots, root));
}

async function showRanking(now) {
  const query = new URLSearchParams({top: 20, sort});
  if (root) {
    const [service, operation] = root.split('\t');
    query.set('service', service);
    query.set('operation', operation);
  }
  const rows = await api('ranking?' + query);
  const heading = (key, label) => el('span', {
    class: 'sortable' + (sort === key ? ' sorted' : ''), 'data-sort': key,
    onclick: () => { sort = key; remember(); refresh(); },
  }, label);
  ranking.replaceChildren(table([
    ['#', (r, i) => i + 1, true],
    ['service', r => r.service],
    ['operation', r => operationLink(r.service, r.name)],
    [heading('involvement', 'involvement'), r => number(r.involvement, 4), true],
    ['calls', r => number(r.count, 0), true],
    ['errors', r => el('span', {'data-errors': r.errorCount, class: r.errorCount ? 'error-mark' : ''},
        number(r.errorCount, 0)), true],
    ['error rate', r => percent(r.count ? r.errorCount / r.count : 0), true],
    ['p50', r => duration(r.durationP50Ns), true],
    ['p99', r => duration(r.durationP99Ns), true],
    [heading('self_time', 'self time, total'), r => duration(r.selfTimeTotalNs), true],
    ['self time, mean', r => duration(r.selfTimeMeanNs), true],
    [heading('critical_path', 'critical-path share'),
      r => el('span', {'data-share': r.criticalPathShare}, percent(r.criticalPathShare)), true],
    ['', r => r.flags.map(flag => el('span', {class: 'flag'}, flag))],
  ], rows, {id: 'ranking-table', 'data-sort': sort, 'data-root': root}));
  if (rows.length === 0) {
    ranking.append(el('p', {class: 'muted'}, 'No operations ranked yet.'));
  }
  const [service, operation] = root.split('\t');
  ranking.prepend(el('p', {class: 'muted', id: 'ranking-scope'},
      `Over ${root ? `the traces whose root is ${service}: ${operation}` : 'all traces'} of the `
      + `last ${duration(now.rankingWindowNs)} (every figure of a row over the same traces), `
      + `sorted by ${SORTS[sort]}. The critical-path share is each operation's part of the `
      + 'primary roots\' critical paths.'));
}

async function showSlowest() {
  const rows = await api('traces?order=slowest&limit=10');
  slowest.replaceChildren(rows.length === 0
      ? el('p', {class: 'muted'}, 'No trace analysed yet.')
      : table([
        ['trace', r => traceLink(r.traceId)],
        ['root', r => `${r.rootService}: ${r.rootOperation}`],
        ['TTC', r => duration(r.ttcNs), true],
        ['parallelism', r => number(r.parallelism), true],
        ['spans', r => r.spanCount, true],
        ['errors', r => number(r.errorCount, 0), true],
        ['completion', r => r.completion],
      ], rows));
}

async function refresh() {
  try {
    const now = await showStatus();
    await Promise.all([showRoots(), showRanking(now), showSlowest()]);
  } catch (error) {
    fail(page, error);
  }
}

refresh();
// Rates need two readings: the second comes soon; then everything every few seconds, unless the
// reader turns that off.
setTimeout(() => showStatus().catch(error => fail(status, error)), 1000);
