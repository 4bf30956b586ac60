// One trace: its figures, its resource lanes and its span waterfall with the critical path, and
// its tables. Everything drawn comes from the profile the API answers; the page only lays it out.
import {api, backendLink, duration, el, fail, figure, header, legend, number, operationLink,
  percent, since, stateColour, table, time, traceLink} from './common.js';

const LABEL_WIDTH = 260;
/** Right of the time axis: the waterfall's duration and self-time column, the axis' last label. */
const RIGHT_WIDTH = 170;
const ROW_HEIGHT = 20;
/** Waterfall rows drawn beyond the visible ones, above and below, so scrolling shows no gap. */
const OVERSCAN = 20;

header('traces');
const page = document.getElementById('page');
const traceId = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop());

try {
  const profile = await api('traces/' + encodeURIComponent(traceId));
  const drawStart = performance.now();
  show(withOffsets(profile));
  showAgainstRoot(profile);
  // The pictures are drawn once the browser has laid them out and painted the next frame.
  requestAnimationFrame(() => setTimeout(() => {
    document.body.dataset.renderMs = String(performance.now() - drawStart);
    document.body.dataset.loadedMs = String(performance.now());
  }));
} catch (error) {
  fail(page, error);
}

/**
 * Gives every span, lane and path segment its times as numbers of nanoseconds since the trace's
 * start (`from`, `to`), which the drawing scales; the exact epoch times stay beside.
 */
function withOffsets(profile) {
  for (const item of [...profile.spans, ...profile.lanes, ...profile.criticalPathSegments]) {
    item.from = since(profile.startNanos, item.startNanos);
    item.to = since(profile.startNanos, item.endNanos);
  }
  return profile;
}

function show(profile) {
  const summary = profile.summary;
  const spans = new Map(profile.spans.map(span => [span.spanId, span]));
  const timeline = timeScale(profile);
  const detail = el('div', {class: 'detail', id: 'span-detail'},
      el('span', {class: 'muted'}, 'Click a span for its attributes, events and resource, and what spanprof adds to it.'));
  const states = [...new Set(profile.lanes.map(lane => lane.state))].sort();
  page.replaceChildren(
      el('h1', {}, summary ? `${summary.rootService}: ${summary.rootOperation}` : 'Trace',
          el('div', {class: 'muted'}, profile.traceId, ' ', backendLink(profile.traceId))),
      el('div', {class: 'figures', id: 'figures'},
          figure('start', time(profile.startNanos)),
          figure('TTC', duration(profile.ttcNs), 'latest end − earliest start'),
          figure('TTX', duration(profile.ttxNs), 'time anything ran'),
          figure('span time', duration(profile.spanTimeNs), 'Σ span durations'),
          figure('resource time', duration(profile.resourceTimeNs),
              'Σ over resources of their busy time'),
          figure('parallelism', number(profile.parallelism), 'resource time / TTX'),
          figure('critical path', duration(profile.criticalPathNs), 'the primary root\'s duration'),
          figure('spans', number(profile.spanCount, 0)),
          figure('errors', number(profile.errorCount, 0), 'spans with status ERROR'),
          profile.orphanCount > 0 && figure('orphans', number(profile.orphanCount, 0),
              'spans whose parent never arrived, drawn as roots'),
          summary && figure('completion', summary.completion + (summary.complete ? '' : ' (partial)'))),
      profile.criticalPathNs > profile.ttcNs ? el('p', {class: 'muted', id: 'path-longer'},
          `The critical path (${duration(profile.criticalPathNs)}) is longer than the TTC `
          + `(${duration(profile.ttcNs)}): the root span lasts longer than the work it holds.`)
        : el('div'),
      fragments(profile),
      el('h2', {}, 'Resource lanes'),
      el('p', {class: 'muted'}, 'Each resource\'s chosen span over time, coloured by its state.'),
      legend(states),
      el('div', {class: 'picture lanes'}, lanes(profile, spans, timeline)),
      el('h2', {}, 'Spans'),
      el('p', {class: 'muted'}, el('span', {style: 'color:var(--path)'}, '■'),
          ' critical path, ', el('span', {class: 'error-mark'}, '!'), ' status ERROR, ',
          el('span', {class: 'orphan-mark'}, '⌁'), ' parent never arrived. ',
          'Click ▸/▾ to fold a subtree, a row for its details.'),
      waterfall(profile, spans, timeline, detail),
      detail,
      el('div', {id: 'against-root'}),
      el('div', {class: 'columns'},
          el('div', {}, el('h2', {}, 'States'), table([
            ['state', s => el('span', {}, legend([s.state]).firstChild)],
            ['resource time', s => duration(s.resourceNs), true],
            ['inclusive', s => duration(s.inclusiveNs), true],
            ['exclusive', s => duration(s.exclusiveNs), true],
          ], profile.states, {id: 'states-table'})),
          el('div', {}, el('h2', {}, 'Operations'), table([
            ['service', o => o.service],
            ['operation', o => operationLink(o.service, o.name)],
            ['resource time', o => duration(o.resourceTimeNs), true],
          ], profile.operations)),
          el('div', {}, el('h2', {}, 'Resources'), table([
            ['resource', r => r.resource],
            ['busy', r => duration(r.busyNs), true],
          ], profile.resources))),
      pools(profile));
}

/**
 * Nanoseconds since the trace's start to pixels across, over the trace's TTC; what lies outside
 * it (an allocation span may) is drawn at its edge.
 */
function timeScale(profile) {
  const width = Math.max(400, page.clientWidth - LABEL_WIDTH - RIGHT_WIDTH - 40);
  const length = Math.max(1, profile.ttcNs);
  const x = offset => LABEL_WIDTH + Math.min(Math.max(offset / length, 0), 1) * width;
  return {width, x, w: (from, to) => Math.max(0.5, x(to) - x(from))};
}

function axis(timeline, profile, y) {
  return el('g', {class: 'axis'}, [0, 0.25, 0.5, 0.75, 1].map(share => el('text', {
    x: LABEL_WIDTH + share * timeline.width, y,
    'text-anchor': share === 0 ? 'start' : share === 1 ? 'end' : 'middle',
  }, duration(share * profile.ttcNs))));
}

/** One row per resource; each lane segment a rectangle in its state's colour. */
function lanes(profile, spans, timeline) {
  const resources = profile.resources.map(r => r.resource);
  const rowOf = new Map(resources.map((resource, row) => [resource, row]));
  const height = resources.length * ROW_HEIGHT + 24;
  return el('svg', {id: 'lanes', width: LABEL_WIDTH + timeline.width + RIGHT_WIDTH, height},
      resources.map((resource, row) => el('text', {
        class: 'row-label', x: 4, y: row * ROW_HEIGHT + 14, 'data-resource': resource,
      }, clip(resource, 38))),
      profile.lanes.map(lane => {
        const span = spans.get(lane.spanId);
        return el('rect', {
          class: 'lane', x: timeline.x(lane.from), y: rowOf.get(lane.resource) * ROW_HEIGHT + 3,
          width: timeline.w(lane.from, lane.to), height: ROW_HEIGHT - 6,
          fill: stateColour(lane.state), 'data-resource': lane.resource, 'data-state': lane.state,
          'data-span': lane.spanId, 'data-start': lane.startNanos, 'data-end': lane.endNanos,
        }, el('title', {}, `${span ? span.name + ' (' + span.service + ')' : lane.spanId}\n`
            + `${lane.state} for ${duration(lane.to - lane.from)}`
            + (span && span.status === 'ERROR' ? '\nstatus ERROR' : '')));
      }),
      profile.lanes.filter(lane => (spans.get(lane.spanId) || {}).status === 'ERROR')
          .map(lane => el('rect', {
            class: 'lane-error', x: timeline.x(lane.from), y: rowOf.get(lane.resource) * ROW_HEIGHT + 3,
            width: timeline.w(lane.from, lane.to), height: 3, 'data-span': lane.spanId,
          })),
      axis(timeline, profile, resources.length * ROW_HEIGHT + 18));
}

/**
 * The span tree as rows, children by start under their parent. Only the rows in view are drawn
 * (a trace may have tens of thousands), again on every scroll.
 */
function waterfall(profile, spans, timeline, detail) {
  const children = new Map();
  const roots = [];
  for (const span of profile.spans) {
    if (span.parentSpanId && spans.has(span.parentSpanId)) {
      if (!children.has(span.parentSpanId)) children.set(span.parentSpanId, []);
      children.get(span.parentSpanId).push(span);
    } else {
      roots.push(span);
    }
  }
  const byStart = (a, b) => a.from - b.from || b.to - a.to;
  roots.sort(byStart);
  children.forEach(list => list.sort(byStart));
  const path = new Map();
  for (const segment of profile.criticalPathSegments) {
    if (!path.has(segment.spanId)) path.set(segment.spanId, []);
    path.get(segment.spanId).push(segment);
  }
  const folded = new Set();
  let selected = null;
  let rows = [];

  const container = el('div', {class: 'picture waterfall', id: 'waterfall'});
  const svg = el('svg', {width: LABEL_WIDTH + timeline.width + RIGHT_WIDTH});
  const drawn = el('g', {});
  svg.append(drawn);
  container.append(svg);

  function layout() {
    rows = [];
    const stack = roots.slice().reverse().map(span => ({span, depth: 0}));
    while (stack.length > 0) {
      const row = stack.pop();
      rows.push(row);
      const below = children.get(row.span.spanId);
      if (below && !folded.has(row.span.spanId)) {
        for (let k = below.length - 1; k >= 0; k--) stack.push({span: below[k], depth: row.depth + 1});
      }
    }
    svg.setAttribute('height', rows.length * ROW_HEIGHT + 4);
    svg.dataset.rows = String(rows.length);
    draw();
  }

  function draw() {
    const first = Math.max(0, Math.floor(container.scrollTop / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(rows.length,
        Math.ceil((container.scrollTop + (container.clientHeight || 480)) / ROW_HEIGHT) + OVERSCAN);
    const visible = [];
    for (let r = first; r < last; r++) visible.push(row(rows[r], r));
    drawn.replaceChildren(...visible);
  }

  function row({span, depth}, r) {
    const y = r * ROW_HEIGHT;
    const hasChildren = children.has(span.spanId);
    const indent = 4 + Math.min(depth, 20) * 10;
    const group = el('g', {
      class: 'span-row' + (selected === span.spanId ? ' selected' : ''), 'data-span': span.spanId,
      onclick: () => { selected = span.spanId; showDetail(profile, span, detail); draw(); },
    });
    if (hasChildren) {
      group.append(el('text', {
        class: 'toggle', x: indent, y: y + 14, 'data-toggle': span.spanId,
        onclick: event => {
          event.stopPropagation();
          if (folded.has(span.spanId)) folded.delete(span.spanId); else folded.add(span.spanId);
          layout();
        },
      }, folded.has(span.spanId) ? '▸' : '▾'));
    }
    const error = span.status === 'ERROR';
    if (error) group.classList.add('error');
    group.append(
        el('text', {x: indent + 12, y: y + 14},
            el('title', {}, `${span.name} (${span.service}, ${span.kind})`
                + (error ? `\nERROR ${span.statusMessage}` : '')
                + (span.orphan ? '\nits parent never arrived' : '')),
            error && el('tspan', {class: 'error-mark', 'data-error': span.spanId}, '! '),
            span.orphan && el('tspan', {class: 'orphan-mark', 'data-orphan': span.spanId}, '⌁ '),
            clip(span.name, 30 - Math.min(depth, 20) / 2),
            el('tspan', {class: 'service'}, ' ' + clip(span.service, 16))),
        el('rect', {class: 'span-bar', x: timeline.x(span.from), y: y + 4,
          width: timeline.w(span.from, span.to), height: ROW_HEIGHT - 8},
          el('title', {}, `${span.name} (${span.service})\n${duration(span.to - span.from)},`
              + ` self ${duration(span.selfTimeNs)}`)),
        ...(path.get(span.spanId) || []).map(segment => el('rect', {
          class: 'cp', x: timeline.x(segment.from), y: y + 4,
          width: timeline.w(segment.from, segment.to), height: ROW_HEIGHT - 8,
          'data-span': span.spanId, 'data-start': segment.startNanos, 'data-end': segment.endNanos,
        })),
        el('text', {class: 'self', x: LABEL_WIDTH + timeline.width + 6, y: y + 14,
          'data-self-ns': span.selfTimeNs},
            `${duration(span.to - span.from)} · self ${duration(span.selfTimeNs)}`));
    return group;
  }

  container.addEventListener('scroll', () => requestAnimationFrame(draw));
  // The container's height is known once it is in the page.
  requestAnimationFrame(layout);
  layout();
  return container;
}

/**
 * This trace's critical path by operation against the mean of its root's traces in the tail
 * window (semantics.md §6), when the root has any there.
 */
async function showAgainstRoot(profile) {
  const summary = profile.summary;
  if (!summary || !summary.rootOperation) return;
  const query = new URLSearchParams({service: summary.rootService,
    operation: summary.rootOperation});
  const tail = await api('tail?' + query).catch(() => null);
  if (!tail) return;
  const average = new Map(tail.operations.map(row =>
      [row.service + ' ' + row.operation, row.meanAllNs]));
  const rows = profile.criticalPathByOperation.map(time => {
    const mean = average.get(time.service + ' ' + time.name) || 0;
    return {...time, meanNs: mean, differenceNs: time.criticalPathNs - mean};
  });
  const mine = new Set(rows.map(row => row.service + ' ' + row.name));
  for (const row of tail.operations) {
    if (!mine.has(row.service + ' ' + row.operation)) {
      rows.push({service: row.service, name: row.operation, criticalPathNs: 0,
        meanNs: row.meanAllNs, differenceNs: -row.meanAllNs});
    }
  }
  rows.sort((a, b) => b.differenceNs - a.differenceNs);
  document.getElementById('against-root').replaceChildren(
      el('h2', {}, 'Critical path against its root\'s average'),
      el('p', {class: 'muted'}, `Per operation, this trace's critical-path time against the mean `
          + `of the ${number(tail.allTraces, 0)} traces of ${summary.rootOperation} in the tail `
          + 'window; ', el('a', {href: 'operations?' + query}, 'why its slow traces are slow'),
          '.'),
      table([
        ['service', r => r.service],
        ['operation', r => operationLink(r.service, r.name)],
        ['this trace', r => duration(r.criticalPathNs), true],
        ['average', r => duration(r.meanNs), true],
        ['difference', r => el('span', {'data-ns': r.differenceNs},
            (r.differenceNs > 0 ? '+' : '') + duration(r.differenceNs)), true],
      ], rows, {id: 'against-root-table'}));
}

/**
 * A span's own data as the application sent it (attributes, events with their stack traces,
 * links, its resource's attributes), while spanprof keeps it, and what spanprof adds to it.
 */
function showDetail(profile, span, detail) {
  const added = {
    'status': span.status + (span.statusMessage ? ': ' + span.statusMessage : ''),
    'spanprof.resource': span.resource,
    'spanprof.state': span.state,
    'spanprof.self_time_ns': span.selfTimeNs,
    'spanprof.critical_path_ns': span.criticalPathNs,
    'spanprof.on_critical_path': span.onCriticalPath,
  };
  const resource = profile.otelResources[span.otelResource] || {};
  detail.replaceChildren(
      el('strong', {}, `${span.name} `), el('span', {class: 'muted'},
          `${span.service} · ${span.kind} · span ${span.spanId} · `
          + `${duration(span.to - span.from)}`),
      profile.attributesKept ? el('div', {},
        attributeTable('Attributes', span.attributes, 'span-own-attributes'),
        span.events.length > 0 && el('div', {id: 'span-events'}, el('h3', {}, 'Events'),
            span.events.map(event => el('div', {class: 'event'},
                el('span', {class: 'muted'},
                    `+${duration(since(span.startNanos, event.timeNanos))} `),
                el('strong', {}, event.name),
                attributeTable(null, event.attributes)))),
        span.links.length > 0 && el('div', {id: 'span-links'}, el('h3', {}, 'Links'),
            span.links.map(link => el('div', {}, traceLink(link.traceId),
                el('span', {class: 'muted'}, ' span ' + link.spanId),
                attributeTable(null, link.attributes)))),
        attributeTable('Resource', resource, 'span-resource'))
      : el('p', {class: 'muted', id: 'attributes-gone'}, 'This trace\'s own attributes, events '
          + 'and resource are no longer kept (spanprof.query.recent-trace-bytes holds the newest '
          + 'traces\'); only what spanprof adds is shown.'),
      attributeTable('Added by spanprof', added, 'span-attributes'));
}

/** Attributes as rows of key and value; long values (a stack trace) keep their lines. */
function attributeTable(heading, attributes, id) {
  const entries = Object.entries(attributes || {});
  if (entries.length === 0 && !heading) return '';
  return el('div', {}, heading && el('h3', {}, heading),
      el('table', {id, class: 'attributes'}, entries.map(([key, value]) => el('tr', {},
          el('td', {class: 'key'}, key),
          el('td', {}, typeof value === 'string' && value.includes('\n')
              ? el('pre', {}, value)
              : typeof value === 'string' ? value : JSON.stringify(value, (k, v) =>
                  typeof v === 'bigint' ? v.toString() : v))))));
}

/** The trace id's other fragments (semantics.md §2): spans that came after it was analysed. */
function fragments(profile) {
  if (!profile.fragments || profile.fragments.length === 0) return el('div');
  const spans = profile.fragments.reduce((sum, fragment) => sum + fragment.spanCount, 0);
  return el('p', {class: 'muted', id: 'fragments'}, `This is the largest of the trace's `
      + `${profile.fragments.length + 1} fragments: ${number(spans, 0)} more span(s) arrived after `
      + 'it was analysed and were analysed apart; they are not drawn here.');
}

function pools(profile) {
  if (profile.pools.length === 0) return el('div');
  const categories = [...new Set(profile.pools.flatMap(p => Object.keys(p.utilization)))].sort();
  const classes = [...new Set(profile.pools.flatMap(p => Object.keys(p.attributionNs)))].sort();
  return el('div', {}, el('h2', {}, 'Pools'), table([
    ['pool', p => p.pool],
    ['capacity', p => number(p.capacity), true],
    ['available', p => duration(p.availableNs), true],
    ...categories.map(c => ['U ' + c, p => percent(p.utilization[c] || 0), true]),
    ...classes.map(c => [c, p => duration(p.attributionNs[c] || 0), true]),
  ], profile.pools, {id: 'pools-table'}));
}

function clip(text, length) {
  return text.length > length ? text.slice(0, Math.max(1, length - 1)) + '…' : text;
}
