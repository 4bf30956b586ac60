// What every page shares: the API client, the header, number formats, state colours and a DOM
// builder. Paths are relative to the page's <base href>, the UI's root, so that the UI works
// behind a reverse proxy's sub-path.

/**
 * GETs api/v1/<path> and answers its JSON; throws its error message on a refusal. Epoch
 * nanoseconds exceed 2^53, where a JavaScript number would round them to 256 ns: every integer
 * beyond that is read exactly, as a BigInt, from its source text.
 */
export async function api(path) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const response = await fetch(new URL('api/v1/' + path, document.baseURI),
      {headers: token ? {Authorization: 'Bearer ' + token} : {}});
  const text = await response.text();
  let body = null;
  try {
    body = JSON.parse(text, (key, value, context) =>
        Number.isInteger(value) && !Number.isSafeInteger(value) ? BigInt(context.source) : value);
  } catch (error) {
    // Not JSON: the status line explains it below.
  }
  if (response.status === 401 || response.status === 403) {
    askForToken();
  }
  showMissingPeers(response.headers.get('Spanprof-Missing-Peers'));
  if (!response.ok) {
    throw new Error((body && body.error) || `${response.status} ${response.statusText}`);
  }
  return body;
}

/**
 * With `spanprof.query.peers` set, every answer is the fleet's; a replica that did not answer in
 * time is named in a banner over the page, since its share is missing from what the page shows.
 */
function showMissingPeers(missing) {
  if (!missing) return;
  let banner = document.getElementById('missing-peers');
  if (!banner) {
    banner = el('p', {id: 'missing-peers', class: 'banner', role: 'alert'});
    document.body.insertBefore(banner, document.getElementById('page'));
  }
  banner.textContent = 'Not every replica answered; this page lacks the share of: ' + missing;
}

/** Where the read token typed into the page is kept: this tab only, until it is closed. */
const TOKEN_KEY = 'spanprof.readToken';

/**
 * With `spanprof.auth.read-tokens-file` set, the API asks for a read token: the page asks the
 * user, keeps it for the tab, and loads again. A token refused (401, or 403 for a write token)
 * is asked for again. The pages themselves hold no data.
 */
function askForToken() {
  if (document.getElementById('token-form')) return;
  const input = el('input', {type: 'password', name: 'token', autocomplete: 'off',
    'aria-label': 'read token'});
  const form = el('form', {id: 'token-form', class: 'filters'},
      el('label', {}, 'This spanprof asks for a read token', input),
      el('button', {type: 'submit'}, 'Use it'));
  form.addEventListener('submit', event => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, input.value.trim());
    location.reload();
  });
  document.body.insertBefore(form, document.getElementById('page'));
}

/** Nanoseconds from `origin` to `epochNanos` (either a number or a BigInt). */
export function since(origin, epochNanos) {
  return Number(BigInt(epochNanos) - BigInt(origin));
}

/**
 * An element with attributes (on… as listeners) and children (strings become text; null,
 * undefined and false, as `condition && child` gives, are left out).
 */
export function el(tag, attributes = {}, ...children) {
  const svg = ['svg', 'g', 'rect', 'text', 'tspan', 'title', 'path', 'line'].includes(tag);
  const node = svg ? document.createElementNS('http://www.w3.org/2000/svg', tag)
      : document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (key === 'text') node.textContent = value;
    else node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      node.append(child instanceof Node ? child : String(child));
    }
  }
  return node;
}

/** The page's header, with its own entry marked, and a box to go to a trace by its id. */
export function header(active) {
  const link = (href, label) => el('a', {href, class: active === href ? 'active' : null}, label);
  const traceId = el('input', {type: 'search', id: 'trace-search', name: 'traceId', size: 34,
    placeholder: 'trace id', 'aria-label': 'go to a trace by its id', required: true,
    pattern: '\\s*[0-9a-fA-F]{32}\\s*', title: 'a trace id: 32 hexadecimal digits'});
  const find = el('form', {class: 'trace-search', onsubmit: event => {
    event.preventDefault();
    location.assign('traces/' + traceId.value.trim().toLowerCase());
  }}, traceId);
  document.body.prepend(el('header', {},
      el('a', {class: 'brand', href: './'}, 'spanprof'),
      el('nav', {}, link('./', 'Overview'), link('traces', 'Traces'), link('graph', 'Graph'),
          link('pools', 'Pools')),
      el('button', {type: 'button', id: 'time-zone', class: 'time-zone',
        title: 'show times in UTC or in this browser\'s time zone', onclick: () => {
          localStorage.setItem(TIME_ZONE_KEY, utc() ? 'local' : 'UTC');
          location.reload();
        }}, utc() ? 'UTC' : 'local time'),
      find));
}

/**
 * The options of a root operation picker: every trace, then each root with traces in the tail
 * window (`GET tail`), by its value "service\toperation"; `chosen` among them even when gone.
 */
export function rootOptions(roots, chosen) {
  const options = [el('option', {value: ''}, 'all')];
  for (const r of roots) {
    const value = r.service + '\t' + r.operation;
    options.push(el('option', {value, selected: value === chosen},
        `${r.service}: ${r.operation} (${number(r.traces, 0)} traces)`));
  }
  if (chosen && !roots.some(r => r.service + '\t' + r.operation === chosen)) {
    const [service, operation] = chosen.split('\t');
    options.push(el('option', {value: chosen, selected: true}, `${service}: ${operation}`));
  }
  return options;
}

/** Shows what went wrong in place of a page's content. */
export function fail(container, error) {
  container.replaceChildren(el('p', {class: 'error'}, error.message));
}

/** A duration in nanoseconds, in the unit that reads best. */
export function duration(ns) {
  const abs = Math.abs(ns);
  const sign = ns < 0 ? '−' : '';
  if (abs >= 3600e9) {
    const minutes = Math.round(abs / 60e9);
    return sign + Math.floor(minutes / 60) + ' h' + (minutes % 60 ? ` ${minutes % 60} min` : '');
  }
  if (abs >= 60e9) {
    const seconds = Math.round(abs / 1e9);
    return sign + Math.floor(seconds / 60) + ' min' + (seconds % 60 ? ` ${seconds % 60} s` : '');
  }
  if (abs >= 1e9) return (ns / 1e9).toFixed(abs >= 1e10 ? 1 : 2) + ' s';
  if (abs >= 1e6) return (ns / 1e6).toFixed(abs >= 1e7 ? 1 : 2) + ' ms';
  if (abs >= 1e3) return (ns / 1e3).toFixed(abs >= 1e4 ? 1 : 2) + ' µs';
  return Math.round(ns) + ' ns';
}

export function number(value, digits = 2) {
  return Number(value).toLocaleString('en', {maximumFractionDigits: digits});
}

export function percent(ratio) {
  return (100 * ratio).toFixed(1) + ' %';
}

/** Where the reader's choice of UTC or local time is kept: this browser, every page. */
const TIME_ZONE_KEY = 'spanprof.timeZone';

function utc() {
  return localStorage.getItem(TIME_ZONE_KEY) === 'UTC';
}

/** Epoch nanoseconds as a date and time, local or UTC as the header's toggle chose. */
export function time(epochNanos) {
  const date = new Date(Number(BigInt(epochNanos) / 1000000n));
  return utc() ? date.toLocaleString('en-GB', {timeZone: 'UTC', hour12: false}) + ' UTC'
      : date.toLocaleString();
}

/** How long ago epoch nanoseconds were, in words: "3 min ago", "in 2 s" for a clock ahead. */
function ago(epochNanos) {
  const seconds = (Date.now() - Number(BigInt(epochNanos) / 1000000n)) / 1000;
  const units = [['year', 31557600], ['day', 86400], ['h', 3600], ['min', 60], ['s', 1]];
  const [unit, size] = units.find(([, size]) => Math.abs(seconds) >= size) || units[4];
  const count = Math.round(Math.abs(seconds) / size);
  const label = unit === 'year' || unit === 'day' ? unit + (count === 1 ? '' : 's') : unit;
  return seconds >= 0 ? `${count} ${label} ago` : `in ${count} ${label}`;
}

/** A time as the reader chose it, with how long ago it was beside it. */
export function timeAgo(epochNanos) {
  return el('span', {class: 'time', 'data-nanos': String(epochNanos)}, time(epochNanos), ' ',
      el('span', {class: 'muted ago'}, `(${ago(epochNanos)})`));
}

/**
 * A checkbox that runs `refresh` every `periodMs` while it is ticked, remembered per page in
 * this browser; ticked at first when `initially`.
 */
export function autoRefresh(page, initially, refresh, periodMs = 5000) {
  const key = 'spanprof.autoRefresh.' + page;
  const box = el('input', {type: 'checkbox', id: 'auto-refresh',
    checked: (localStorage.getItem(key) ?? String(initially)) === 'true'});
  let timer = null;
  const apply = () => {
    clearInterval(timer);
    timer = box.checked ? setInterval(refresh, periodMs) : null;
    localStorage.setItem(key, String(box.checked));
  };
  box.addEventListener('change', apply);
  apply();
  return el('label', {class: 'toggle auto-refresh'}, box, ` refresh every ${periodMs / 1000} s`);
}

/** A figure box: label above, value below. */
export function figure(label, value, title) {
  return el('div', {class: 'figure', title},
      el('div', {class: 'label'}, label), el('div', {class: 'value'}, value));
}

/** A table of rows: columns are [heading, (row, index) => cell, numeric?]. */
export function table(columns, rows, attributes = {}) {
  return el('table', attributes,
      el('thead', {}, el('tr', {}, columns.map(([heading, , numeric]) =>
          el('th', {class: numeric ? 'num' : null}, heading)))),
      el('tbody', {}, rows.map((row, index) => el('tr', {}, columns.map(([, cell, numeric]) =>
          el('td', {class: numeric ? 'num' : null}, cell(row, index)))))));
}

/** The link to an operation's page. */
export function operationLink(service, name) {
  const query = new URLSearchParams({service, operation: name});
  return el('a', {href: 'operations?' + query}, name);
}

/**
 * The link to a trace's page and, with spanprof.ui.trace-link set, beside it the link to the
 * trace in the tracing backend that receives the forwarded spans.
 */
export function traceLink(traceId, label = traceId) {
  const own = el('a', {href: 'traces/' + traceId}, label);
  const backend = backendLink(traceId);
  return backend ? el('span', {class: 'trace-links'}, own, ' ', backend) : own;
}

/** The trace in the tracing backend (spanprof.ui.trace-link), or null when none is set. */
export function backendLink(traceId) {
  const template = document.querySelector('meta[name="spanprof-trace-link"]')?.content;
  if (!template) return null;
  const href = template.replaceAll('{traceId}', encodeURIComponent(traceId));
  return el('a', {href, class: 'backend-link', target: '_blank', rel: 'noopener noreferrer',
    title: 'open the trace in the tracing backend'}, new URL(href).host + ' ↗');
}

/**
 * Colours for `count` series that must stay apart (operations in a stacked bar): twenty
 * distinct ones (Tableau 20), then hues a golden angle apart, alternately darker and lighter.
 */
export function palette(count) {
  const colours = TABLEAU_20.slice(0, count);
  for (let k = colours.length; k < count; k++) {
    colours.push(`hsl(${Math.round((k * 137.508) % 360)} 60% ${k % 2 ? 38 : 62}%)`);
  }
  return colours;
}

const TABLEAU_20 = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1',
  '#ff9da7', '#9c755f', '#bab0ac', '#a0cbe8', '#ffbe7d', '#ff9d9a', '#86bcb6', '#8cd17d',
  '#f1ce63', '#d4a6c8', '#fabfd2', '#d7b5a6', '#79706e'];

/**
 * A uPlot axis in the page's colours (which dark mode changes): uPlot draws on a canvas, which
 * the stylesheet does not reach.
 */
export function chartAxis(options = {}) {
  const css = name => getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return {stroke: css('--fg'), grid: {stroke: css('--line'), width: 1},
    ticks: {stroke: css('--line'), width: 1}, ...options};
}

// States keep their colour from page to page: the usual ones fixed, others from their name.
const STATE_COLOURS = {
  running: '#2f9e44', idle: '#ced4da', staging: '#f59f00', 'wait.net': '#4263eb',
  'wait.db': '#7048e8', 'wait.io': '#1098ad', 'wait.lock': '#e03131', 'wait.s3': '#0c8599',
  'wait.cpu': '#e8590c',
};

export function stateColour(state) {
  if (STATE_COLOURS[state]) return STATE_COLOURS[state];
  let hash = 0;
  for (const c of state) hash = (hash * 31 + c.charCodeAt(0)) | 0;
  return `hsl(${Math.abs(hash) % 360} 55% ${state.startsWith('wait') ? 55 : 45}%)`;
}

export function legend(states) {
  return el('div', {class: 'legend'}, states.map(state => el('span', {},
      el('span', {class: 'swatch', style: `background:${stateColour(state)}`}), state)));
}
