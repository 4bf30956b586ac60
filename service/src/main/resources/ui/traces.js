// Recent traces: filter the list the API keeps; the filters live in the page's URL, so a
// filtered list can be linked to.
import {api, autoRefresh, duration, el, fail, header, number, table, timeAgo, traceLink}
  from './common.js';

const FIELDS = [
  ['service', 'root service', 'text'],
  ['operation', 'root operation', 'text'],
  ['containsService', 'contains service', 'text'],
  ['containsOperation', 'contains operation', 'text'],
  ['minTtcMs', 'min TTC (ms)', 'number'],
  ['maxTtcMs', 'max TTC (ms)', 'number'],
  ['minParallelism', 'min parallelism', 'number'],
  ['maxParallelism', 'max parallelism', 'number'],
];
const COMPLETIONS = ['', 'timeout', 'max_age', 'evicted', 'span_limit', 'shutdown'];
/** Time ranges over the traces' starts: a label and how far back, in minutes. */
const RANGES = [['', 'any time'], ['5', 'last 5 min'], ['15', 'last 15 min'], ['60', 'last hour'],
  ['custom', 'from … to']];
/** Rows per page: `rows` in the page's URL, else 200. */
const PAGE_ROWS = Number(new URLSearchParams(location.search).get('rows')) || 200;

header('traces');
const page = document.getElementById('page');
const params = new URLSearchParams(location.search);
const results = el('div', {id: 'traces'});

const form = el('form', {class: 'filters', id: 'filters'},
    FIELDS.map(([name, label, type]) => el('label', {}, label,
        el('input', {name, type, step: 'any', value: params.get(name) || ''}))),
    el('label', {}, 'completion', el('select', {name: 'completion'},
        COMPLETIONS.map(c => el('option', {value: c, selected: params.get('completion') === c},
            c || 'any')))),
    el('label', {}, 'errors', el('select', {name: 'error'},
        [['', 'any'], ['true', 'with errors'], ['false', 'without']].map(([value, label]) =>
            el('option', {value, selected: (params.get('error') || '') === value}, label)))),
    el('label', {}, 'attribute', el('input', {name: 'attr', type: 'text', size: 26,
      placeholder: 'http.route=/api/checkout', value: params.get('attr') || '',
      pattern: '[^=]+=.*', title: 'key=value, as a span or its resource has it'})),
    el('label', {}, 'started', el('select', {name: 'range', id: 'range'},
        RANGES.map(([value, label]) =>
            el('option', {value, selected: (params.get('range') || '') === value}, label)))),
    el('label', {class: 'custom-range'}, 'from',
        el('input', {name: 'from', type: 'datetime-local', step: 1,
          value: params.get('from') || ''})),
    el('label', {class: 'custom-range'}, 'to',
        el('input', {name: 'to', type: 'datetime-local', step: 1, value: params.get('to') || ''})),
    el('label', {}, 'order', el('select', {name: 'order'},
        ['newest', 'slowest'].map(o => el('option', {value: o, selected: params.get('order') === o},
            o + ' first')))),
    el('button', {type: 'submit'}, 'Show'));
const showCustomRange = () => form.querySelectorAll('.custom-range').forEach(label =>
  label.hidden = form.elements.range.value !== 'custom');
form.elements.range.addEventListener('change', showCustomRange);
showCustomRange();
form.addEventListener('submit', event => {
  event.preventDefault();
  const chosen = new URLSearchParams();
  for (const [key, value] of new FormData(form)) {
    if (value !== '' && (form.elements.range.value === 'custom' || !['from', 'to'].includes(key))) {
      chosen.set(key, value);
    }
  }
  location.search = chosen.toString();
});
page.replaceChildren(el('h1', {}, 'Recent traces'), form,
    autoRefresh('traces', false, () => showRows()), results);

/**
 * The API's query from the page's: TTC is typed in milliseconds, asked for in nanoseconds; the
 * attribute `key=value` is asked as `attr.key=value`; a time range bounds the traces' starts, in
 * epoch nanoseconds; the page number is an offset of whole pages.
 */
function apiQuery() {
  const query = new URLSearchParams({limit: String(PAGE_ROWS)});
  const nanos = millis => String(BigInt(Math.round(millis)) * 1000000n);
  for (const [key, value] of params) {
    if (key === 'minTtcMs') query.set('minTtcNs', String(Math.round(Number(value) * 1e6)));
    else if (key === 'maxTtcMs') query.set('maxTtcNs', String(Math.round(Number(value) * 1e6)));
    else if (key === 'attr') {
      const split = value.indexOf('=');
      if (split > 0) query.set('attr.' + value.slice(0, split).trim(), value.slice(split + 1));
    } else if (key === 'range' && value !== 'custom') {
      query.set('minStartNs', nanos(Date.now() - Number(value) * 60e3));
    } else if (key === 'from' || key === 'to') {
      if (params.get('range') === 'custom') {
        query.set(key === 'from' ? 'minStartNs' : 'maxStartNs', nanos(new Date(value).getTime()));
      }
    } else if (key === 'page') {
      query.set('offset', String((Number(value) - 1) * PAGE_ROWS));
    } else if (key !== 'rows') query.set(key, value);
  }
  return query;
}

/** Links to the pages before and after this one, which keep every filter. */
function pager(pageNumber, rows) {
  const to = number => {
    const next = new URLSearchParams(params);
    if (number > 1) next.set('page', String(number)); else next.delete('page');
    return '?' + next;
  };
  const first = (pageNumber - 1) * PAGE_ROWS + 1;
  return el('p', {class: 'pager', id: 'pager'},
      pageNumber > 1 && el('a', {href: to(pageNumber - 1), id: 'previous-page'}, '← previous'),
      el('span', {class: 'muted'}, rows === 0 ? '' : ` rows ${first}–${first + rows - 1} `),
      rows === PAGE_ROWS && el('a', {href: to(pageNumber + 1), id: 'next-page'}, 'next →'));
}

/** The rows the API answers for the page's query: at load, and on each refresh. */
async function showRows() {
  try {
    const rows = await api('traces?' + apiQuery());
    const pageNumber = Math.max(1, Number(params.get('page')) || 1);
    results.replaceChildren(rows.length === 0
      ? el('p', {class: 'muted'}, 'No recent trace matches.'
          + (params.get('attr') ? ' An attribute matches only while the trace\'s attributes are '
              + 'kept (spanprof.query.recent-trace-bytes).' : ''))
      : table([
        ['trace', r => traceLink(r.traceId)],
        ['root service', r => r.rootService],
        ['root operation', r => r.rootOperation],
        ['start', r => timeAgo(r.startNanos)],
        ['TTC', r => el('span', {'data-ns': r.ttcNs}, duration(r.ttcNs)), true],
        ['TTX', r => duration(r.ttxNs), true],
        ['resource time', r => duration(r.resourceTimeNs), true],
        ['parallelism', r => number(r.parallelism), true],
        ['spans', r => r.spanCount, true],
        ['errors', r => el('span', {'data-errors': r.errorCount,
          class: r.errorCount ? 'error-mark' : null}, number(r.errorCount, 0)), true],
        ['completion', r => r.completion
            + (r.fragments.length ? ` (+${r.fragments.length} fragment${
              r.fragments.length > 1 ? 's' : ''})` : '')],
        ['complete', r => r.complete ? 'yes'
            : 'no' + (r.orphanCount ? ` (${r.orphanCount} orphan${r.orphanCount > 1 ? 's' : ''})`
                : '')],
      ], rows, {id: 'traces-table'}), pager(pageNumber, rows.length));
    results.dataset.shownAt = String(Date.now());
  } catch (error) {
    fail(results, error);
  }
}

await showRows();
