// Overview: spanprof's own state, the call ranking and the slowest recent traces.
import {api, duration, el, fail, figure, header, number, operationLink, percent, since, table,
  traceLink} from './common.js';

const SORTS = {involvement: 'involvement', critical_path: 'critical-path share',
  self_time: 'self time'};
const REFRESH_MS = 5000;

header('./');
const page = document.getElementById('page');
const status = el('div', {class: 'figures', id: 'status'});
const ranking = el('div', {id: 'ranking'});
const slowest = el('div', {id: 'slowest'});
page.replaceChildren(el('h1', {}, 'Overview'), status,
    el('h2', {}, 'Top operations'), ranking,
    el('h2', {}, 'Slowest recent traces'), slowest);

let sort = new URLSearchParams(location.search).get('sort') || 'involvement';
let previous = null;

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
      figure('forwarded spans', number(now.exportedSpans, 0), 'spanprof_exported_spans_total'),
      figure('forwarded', rate('exportedSpans')),
      figure('failed to forward', number(now.exportFailedSpans, 0),
          'spanprof_export_failed_spans_total'),
      figure('buffered / limit',
          `${number(now.bufferedSpans, 0)} / ${number(now.bufferedSpansLimit, 0)}`,
          'spanprof_buffered_spans'),
      figure('traces analysed', number(now.analysedTraces, 0), 'spanprof_traces_total'));
  previous = now;
}

async function showRanking() {
  const rows = await api('ranking?top=20&sort=' + sort);
  const heading = (key, label) => el('span', {
    class: 'sortable' + (sort === key ? ' sorted' : ''), 'data-sort': key,
    onclick: () => { sort = key; history.replaceState(null, '', '?sort=' + key); refresh(); },
  }, label);
  ranking.replaceChildren(table([
    ['#', r => r.rank, true],
    ['service', r => r.service],
    ['operation', r => operationLink(r.service, r.name)],
    [heading('involvement', 'involvement'), r => number(r.involvement, 4), true],
    ['calls', r => number(r.count, 0), true],
    ['p50', r => duration(r.durationP50Ns), true],
    ['p99', r => duration(r.durationP99Ns), true],
    [heading('self_time', 'self time'), r => duration(r.selfTimeTotalNs), true],
    [heading('critical_path', 'critical-path share'), r => percent(r.criticalPathShare), true],
    ['', r => r.flags.map(flag => el('span', {class: 'flag'}, flag))],
  ], rows, {id: 'ranking-table', 'data-sort': sort}));
  if (rows.length === 0) {
    ranking.append(el('p', {class: 'muted'}, 'No operations ranked yet.'));
  }
  ranking.prepend(el('p', {class: 'muted'}, 'Sorted by ' + SORTS[sort] + '.'));
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
        ['completion', r => r.completion],
      ], rows));
}

async function refresh() {
  try {
    await Promise.all([showStatus(), showRanking(), showSlowest()]);
  } catch (error) {
    fail(page, error);
  }
}

refresh();
// Rates need two readings: the second comes soon, the others every few seconds.
const reread = () => showStatus().catch(error => fail(status, error));
setTimeout(reread, 1000);
setInterval(reread, REFRESH_MS);
