// One trace: its figures, its resource lanes and its span waterfall with the critical path, and
// its tables. Everything drawn comes from the profile the API answers; the page only lays it out.
import {api, backendLink, duration, el, fail, figure, header, legend, number, operationLink,
  percent, since, stateColour, table, timeAgo, traceLink} from './common.js';

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
  const timeline = timeScale(profile, LABEL_WIDTH);
  const detail = el('div', {class: 'detail', id: 'span-detail'},
      el('span', {class: 'muted'},
          'Click a span for its attributes, events and resource, and what spanprof adds to it.'));
  const states = [...new Set(profile.lanes.map(lane => lane.state))].sort();
  const spanTree = waterfall(profile, spans, detail);
  const findBox = () => document.getElementById('find-span');
  page.replaceChildren(
      el('h1', {}, summary ? `${summary.rootService}: ${summary.rootOperation}` : 'Trace',
          el('div', {class: 'muted'}, profile.traceId, ' ', backendLink(profile.traceId))),
      el('div', {class: 'figures', id: 'figures'},
          figure('start', timeAgo(profile.startNanos)),
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
      el('div', {class: 'picture lanes'}, lanes(profile, spans, timeline, spanTree.select)),
      el('h2', {}, 'Spans'),
      el('p', {class: 'muted'}, el('span', {style: 'color:var(--path)'}, '■'),
          ' critical path, ', el('span', {class: 'error-mark'}, '!'), ' status ERROR, ',
          el('span', {class: 'orphan-mark'}, '⌁'), ' parent never arrived. ',
          'Click ▸/▾ to fold a subtree, a row (or a lane segment above) for its details; drag '
          + 'the name column\'s edge to widen it.'),
      spanTree.element,
      detail,
      byOperation(profile, name => {
        findBox().value = name;
        findBox().dispatchEvent(new Event('input'));
        document.getElementById('waterfall').scrollIntoView({block: 'center'});
      }),
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
function timeScale(profile, labelWidth) {
  // Room for the page's padding, the picture's border and its vertical scroll bar.
  const width = Math.max(400, page.clientWidth - labelWidth - RIGHT_WIDTH - 60);
  const length = Math.max(1, profile.ttcNs);
  const x = offset => labelWidth + Math.min(Math.max(offset / length, 0), 1) * width;
  return {width, x, w: (from, to) => Math.max(0.5, x(to) - x(from))};
}

function axis(timeline, profile, y) {
  return el('g', {class: 'axis'}, [0, 0.25, 0.5, 0.75, 1].map(share => el('text', {
    x: LABEL_WIDTH + share * timeline.width, y,
    'text-anchor': share === 0 ? 'start' : share === 1 ? 'end' : 'middle',
  }, duration(share * profile.ttcNs))));
}

/**
 * One row per resource; each lane segment a rectangle in its state's colour, which selects its
 * span in the waterfall.
 */
function lanes(profile, spans, timeline, select) {
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
          onclick: () => select(lane.spanId),
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
 * (a trace may have tens of thousands), again on every scroll. Subtrees fold one by one, all at
 * once or below a depth; a search marks the spans whose name, service or attributes hold the
 * text and unfolds what hides them; the name column is as wide as its handle is dragged. The
 * selected span's details follow it: a span folded away hands the selection to the row that now
 * stands for it. Returns the picture and `select(spanId)`, for the lanes.
 */
function waterfall(profile, spans, detail) {
  const children = new Map();
  const parentOf = new Map();
  const roots = [];
  for (const span of profile.spans) {
    if (span.parentSpanId && spans.has(span.parentSpanId)) {
      if (!children.has(span.parentSpanId)) children.set(span.parentSpanId, []);
      children.get(span.parentSpanId).push(span);
      parentOf.set(span.spanId, span.parentSpanId);
    } else {
      roots.push(span);
    }
  }
  const byStart = (a, b) => a.from - b.from || b.to - a.to;
  roots.sort(byStart);
  children.forEach(list => list.sort(byStart));
  const depthOf = new Map();
  const stack = roots.map(span => [span, 0]);
  while (stack.length > 0) {
    const [span, depth] = stack.pop();
    depthOf.set(span.spanId, depth);
    for (const child of children.get(span.spanId) || []) stack.push([child, depth + 1]);
  }
  const maxDepth = Math.max(0, ...depthOf.values());
  const path = new Map();
  for (const segment of profile.criticalPathSegments) {
    if (!path.has(segment.spanId)) path.set(segment.spanId, []);
    path.get(segment.spanId).push(segment);
  }
  const folded = new Set();
  let selected = null;
  let matches = [];
  let matched = new Set();
  let current = -1;
  let rows = [];
  let rowOf = new Map();
  let labelWidth = LABEL_WIDTH;
  let timeline = timeScale(profile, labelWidth);

  const container = el('div', {class: 'picture waterfall', id: 'waterfall'});
  const svg = el('svg', {});
  const drawn = el('g', {});
  svg.append(drawn);
  container.append(svg);

  const findBox = el('input', {type: 'search', id: 'find-span', size: 28,
    placeholder: 'find: name, service or attribute', 'aria-label': 'find in trace'});
  const found = el('span', {class: 'muted', id: 'find-count'});
  const depthPicker = el('select', {id: 'expand-depth', 'aria-label': 'expand to depth',
    onchange: () => expandTo(Number(depthPicker.value))},
      el('option', {value: '', disabled: true, selected: true}, 'expand to depth…'),
      Array.from({length: Math.min(maxDepth, 12)}, (unused, d) =>
          el('option', {value: d + 1}, `depth ${d + 1}`)));
  const controls = el('form', {class: 'waterfall-controls', onsubmit: event => {
    event.preventDefault();
    step(event.submitter && event.submitter.id === 'find-previous' ? -1 : 1);
  }},
      el('button', {type: 'button', id: 'collapse-all', onclick: () => expandTo(0)},
          'Collapse all'),
      el('button', {type: 'button', id: 'expand-all', onclick: () => expandTo(Infinity)},
          'Expand all'),
      depthPicker, findBox,
      el('button', {type: 'submit', id: 'find-previous', title: 'previous match'}, '↑'),
      el('button', {type: 'submit', id: 'find-next', title: 'next match'}, '↓'),
      found);
  findBox.addEventListener('input', () => find(findBox.value));

  /** Folds every subtree whose root is `depth` deep or deeper: 0 collapses all. */
  function expandTo(depth) {
    folded.clear();
    for (const [spanId, below] of children) {
      if (below.length > 0 && depthOf.get(spanId) >= depth) folded.add(spanId);
    }
    layout();
  }

  /** Whether `text` is in the span's name, service or one of its attributes (keys or values). */
  function holds(span, text) {
    if (span.name.toLowerCase().includes(text) || span.service.toLowerCase().includes(text)) {
      return true;
    }
    return Object.entries(span.attributes || {}).some(([key, value]) =>
        (key + '=' + (typeof value === 'string' ? value : JSON.stringify(value,
            (k, v) => typeof v === 'bigint' ? v.toString() : v))).toLowerCase().includes(text));
  }

  function find(text) {
    const wanted = text.trim().toLowerCase();
    matches = wanted ? profile.spans.filter(span => holds(span, wanted)) : [];
    matched = new Set(matches.map(span => span.spanId));
    current = -1;
    for (const span of matches) unfoldAbove(span.spanId);
    layout();
    matches.sort((a, b) => rowOf.get(a.spanId) - rowOf.get(b.spanId));
    container.dataset.matches = String(matches.length);
    found.textContent = wanted ? `${matches.length} span${matches.length === 1 ? '' : 's'}` : '';
    if (matches.length > 0) step(1);
  }

  function step(direction) {
    if (matches.length === 0) return;
    current = (current + direction + matches.length) % matches.length;
    found.textContent = `${current + 1} of ${matches.length}`;
    select(matches[current].spanId);
  }

  function unfoldAbove(spanId) {
    for (let up = parentOf.get(spanId); up; up = parentOf.get(up)) folded.delete(up);
  }

  /** Selects a span: shows its row, unfolding what hides it, and its details. */
  function select(spanId) {
    const span = spans.get(spanId);
    if (!span) return;
    unfoldAbove(spanId);
    selected = spanId;
    layout();
    const top = rowOf.get(spanId) * ROW_HEIGHT;
    const bottom = container.scrollTop + container.clientHeight;
    if (top < container.scrollTop || top + ROW_HEIGHT > bottom) {
      container.scrollTop = Math.max(0, top - container.clientHeight / 2);
    }
    draw();
    showDetail(profile, span, detail);
  }

  /** The nearest span above `spanId` whose row is shown: itself when nothing folds it away. */
  function shownFor(spanId) {
    let shown = spanId;
    for (let up = parentOf.get(spanId); up; up = parentOf.get(up)) {
      if (folded.has(up)) shown = up;
    }
    return shown;
  }

  function layout() {
    rows = [];
    rowOf = new Map();
    const pending = roots.slice().reverse().map(span => ({span, depth: 0}));
    while (pending.length > 0) {
      const row = pending.pop();
      rowOf.set(row.span.spanId, rows.length);
      rows.push(row);
      const below = children.get(row.span.spanId);
      if (below && !folded.has(row.span.spanId)) {
        for (let k = below.length - 1; k >= 0; k--) {
          pending.push({span: below[k], depth: row.depth + 1});
        }
      }
    }
    if (selected && !rowOf.has(selected)) {
      selected = shownFor(selected);
      showDetail(profile, spans.get(selected), detail);
    }
    svg.setAttribute('width', labelWidth + timeline.width + RIGHT_WIDTH);
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
    drawn.replaceChildren(...visible, handle());
  }

  function row({span, depth}, r) {
    const y = r * ROW_HEIGHT;
    const hasChildren = children.has(span.spanId);
    const indent = 4 + Math.min(depth, 20) * 10;
    const group = el('g', {
      class: 'span-row' + (selected === span.spanId ? ' selected' : '')
          + (matched.has(span.spanId) ? ' match' : ''),
      'data-span': span.spanId, 'data-depth': depth,
      onclick: () => { selected = span.spanId; showDetail(profile, span, detail); draw(); },
    }, el('rect', {class: 'row-bg', x: 0, y, width: labelWidth + timeline.width + RIGHT_WIDTH,
      height: ROW_HEIGHT}));
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
    // About 6.5 px a character: the name takes what the column leaves beside the service.
    const room = Math.max(4, Math.floor((labelWidth - indent - 16) / 6.5));
    const service = clip(span.service, Math.min(16, Math.max(4, Math.floor(room / 3))));
    group.append(
        el('text', {x: indent + 12, y: y + 14, class: 'span-label'},
            el('title', {}, `${span.name} (${span.service}, ${span.kind})`
                + (error ? `\nERROR ${span.statusMessage}` : '')
                + (span.orphan ? '\nits parent never arrived' : '')),
            error && el('tspan', {class: 'error-mark', 'data-error': span.spanId}, '! '),
            span.orphan && el('tspan', {class: 'orphan-mark', 'data-orphan': span.spanId}, '⌁ '),
            clip(span.name, Math.max(3, room - service.length - 1)),
            el('tspan', {class: 'service'}, ' ' + service)),
        el('rect', {class: 'span-bar', x: timeline.x(span.from), y: y + 4,
          width: timeline.w(span.from, span.to), height: ROW_HEIGHT - 8},
          el('title', {}, `${span.name} (${span.service})\n${duration(span.to - span.from)},`
              + ` self ${duration(span.selfTimeNs)}`)),
        ...(path.get(span.spanId) || []).map(segment => el('rect', {
          class: 'cp', x: timeline.x(segment.from), y: y + 4,
          width: timeline.w(segment.from, segment.to), height: ROW_HEIGHT - 8,
          'data-span': span.spanId, 'data-start': segment.startNanos, 'data-end': segment.endNanos,
        })),
        el('text', {class: 'self', x: labelWidth + timeline.width + 6, y: y + 14,
          'data-self-ns': span.selfTimeNs},
            `${duration(span.to - span.from)} · self ${duration(span.selfTimeNs)}`));
    return group;
  }

  /** The name column's right edge: dragged, it widens or narrows the column. */
  function handle() {
    const height = Math.max(rows.length * ROW_HEIGHT, container.clientHeight || 0);
    const line = el('rect', {class: 'column-handle', id: 'column-handle', x: labelWidth - 3,
      y: container.scrollTop, width: 6, height: Math.min(height, container.clientHeight || height),
      'data-width': labelWidth});
    line.addEventListener('pointerdown', event => {
      event.preventDefault();
      line.setPointerCapture(event.pointerId);
      const startX = event.clientX;
      const startWidth = labelWidth;
      const move = moved => {
        labelWidth = Math.min(900, Math.max(120, startWidth + moved.clientX - startX));
        timeline = timeScale(profile, labelWidth);
        layout();
      };
      line.addEventListener('pointermove', move);
      line.addEventListener('pointerup', () => line.removeEventListener('pointermove', move),
          {once: true});
    });
    return line;
  }

  // Rows are drawn again when the view moves up or down, not when it scrolls sideways.
  let drawnTop = 0;
  container.addEventListener('scroll', () => {
    if (container.scrollTop === drawnTop) return;
    drawnTop = container.scrollTop;
    requestAnimationFrame(draw);
  });
  // The container's height is known once it is in the page.
  requestAnimationFrame(layout);
  layout();
  return {element: el('div', {}, controls, container), select};
}

/**
 * The spans by operation: how many, their time and self time, their critical-path time and
 * errors, most critical-path time first. A trace of thousands of spans reads here at a glance;
 * a row finds its spans in the waterfall.
 */
function byOperation(profile, find) {
  const rows = new Map();
  for (const span of profile.spans) {
    const key = span.service + '\t' + span.name;
    if (!rows.has(key)) {
      rows.set(key, {service: span.service, name: span.name, count: 0, durationNs: 0,
        maxNs: 0, selfNs: 0, criticalPathNs: 0, errors: 0});
    }
    const row = rows.get(key);
    row.count++;
    row.durationNs += span.to - span.from;
    row.maxNs = Math.max(row.maxNs, span.to - span.from);
    row.selfNs += span.selfTimeNs;
    row.criticalPathNs += span.criticalPathNs;
    if (span.status === 'ERROR') row.errors++;
  }
  const sorted = [...rows.values()].sort((a, b) =>
      b.criticalPathNs - a.criticalPathNs || b.durationNs - a.durationNs);
  return el('div', {}, el('h2', {}, 'Spans by operation'), table([
    ['service', r => r.service],
    ['operation', r => el('a', {href: '#waterfall', title: 'find its spans in the waterfall',
      onclick: event => { event.preventDefault(); find(r.name); }}, r.name)],
    ['spans', r => number(r.count, 0), true],
    ['total', r => duration(r.durationNs), true],
    ['max', r => duration(r.maxNs), true],
    ['self', r => duration(r.selfNs), true],
    ['critical path', r => duration(r.criticalPathNs), true],
    ['errors', r => number(r.errors, 0), true],
  ], sorted, {id: 'by-operation'}));
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
