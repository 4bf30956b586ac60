// Recent traces: filter the list the API keeps; the filters live in the page's URL, so a
// filtered list can be linked to.
import {api, duration, el, fail, header, number, table, time, traceLink} from './common.js';

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
    el('label', {}, 'order', el('select', {name: 'order'},
        ['newest', 'slowest'].map(o => el('option', {value: o, selected: params.get('order') === o},
            o + ' first')))),
    el('button', {type: 'submit'}, 'Show'));
form.addEventListener('submit', event => {
  event.preventDefault();
  const chosen = new URLSearchParams();
  for (const [key, value] of new FormData(form)) {
    if (value !== '') chosen.set(key, value);
  }
  location.search = chosen.toString();
});
page.replaceChildren(el('h1', {}, 'Recent traces'), form, results);

/** The API's query from the page's: TTC is typed in milliseconds, asked for in nanoseconds. */
function apiQuery() {
  const query = new URLSearchParams({limit: '200'});
  for (const [key, value] of params) {
    if (key === 'minTtcMs') query.set('minTtcNs', String(Math.round(Number(value) * 1e6)));
    else if (key === 'maxTtcMs') query.set('maxTtcNs', String(Math.round(Number(value) * 1e6)));
    else query.set(key, value);
  }
  return query;
}

try {
  const rows = await api('traces?' + apiQuery());
  results.replaceChildren(rows.length === 0
      ? el('p', {class: 'muted'}, 'No recent trace matches.')
      : table([
        ['trace', r => traceLink(r.traceId)],
        ['root service', r => r.rootService],
        ['root operation', r => r.rootOperation],
        ['start', r => time(r.startNanos)],
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
      ], rows, {id: 'traces-table'}));
} catch (error) {
  fail(results, error);
}
