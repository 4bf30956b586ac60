// The call graph: the ranking's operations as nodes, grouped by service, sized by involvement and
// coloured by critical-path share; its calls as edges with their counts and mean durations. Over
// all traces, or one root operation's. Laid out in columns by call depth, callers left.
import {api, duration, el, fail, header, number, percent, rootOptions} from './common.js';

const NODE_WIDTH = 210;
const COLUMN_GAP = 150;
const NODE_GAP = 10;
const SERVICE_GAP = 26;
const MIN_HEIGHT = 24;
const MAX_HEIGHT = 64;
/** An operation's name in the maps below. */
const key = (service, name) => service + '\t' + name;

header('graph');
const page = document.getElementById('page');
const params = new URLSearchParams(location.search);
const root = params.has('service') ? params.get('service') + '\t' + params.get('operation') : '';
const rootPicker = el('select', {id: 'root', 'aria-label': 'root operation', onchange: () => {
  const query = new URLSearchParams();
  if (rootPicker.value) {
    const [service, operation] = rootPicker.value.split('\t');
    query.set('service', service);
    query.set('operation', operation);
  }
  location.search = query.toString();
}});
const picture = el('div', {id: 'graph'});
page.replaceChildren(el('h1', {}, 'Call graph'),
    el('form', {class: 'filters', onsubmit: event => event.preventDefault()},
        el('label', {}, 'traces of the root operation', rootPicker)),
    el('p', {class: 'muted'}, 'Operations by call depth, callers left, grouped by service; a '
        + 'node\'s height is its involvement, its colour its critical-path share; an edge is '
        + 'labelled with its calls and the callee\'s mean duration. Click an operation to open '
        + 'it.'),
    picture);

try {
  const query = new URLSearchParams();
  if (root) {
    const [service, operation] = root.split('\t');
    query.set('service', service);
    query.set('operation', operation);
  }
  const [graph, roots] = await Promise.all([api('ranking/graph?' + query), api('tail')]);
  rootPicker.replaceChildren(...rootOptions(roots, root));
  picture.replaceChildren(graph.nodes.length === 0
      ? el('p', {class: 'muted'}, 'No operation in the ranking\'s window yet.')
      : draw(graph));
} catch (error) {
  fail(picture, error);
}

/**
 * Each operation's column: the longest chain of calls from an operation nobody calls. Calls that
 * close a cycle (a recursion across operations) are not followed.
 */
function depths(nodes, calls) {
  const out = new Map(nodes.map(n => [key(n.service, n.name), []]));
  const called = new Set();
  for (const call of calls) {
    const from = key(call.callerService, call.callerName);
    const to = key(call.calleeService, call.calleeName);
    if (out.has(from) && out.has(to) && from !== to) {
      out.get(from).push(to);
      called.add(to);
    }
  }
  // Depth-first from the uncalled (then from any left over), keeping only forward edges.
  const order = [];
  const state = new Map();
  const forward = new Map([...out.keys()].map(k => [k, []]));
  const visit = start => {
    const stack = [[start, 0]];
    state.set(start, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const [node, next] = top;
      const targets = out.get(node);
      if (next < targets.length) {
        top[1]++;
        const target = targets[next];
        if (!state.has(target)) {
          forward.get(node).push(target);
          state.set(target, 'open');
          stack.push([target, 0]);
        } else if (state.get(target) === 'done') {
          forward.get(node).push(target);
        }
      } else {
        state.set(node, 'done');
        order.push(node);
        stack.pop();
      }
    }
  };
  for (const k of out.keys()) if (!called.has(k) && !state.has(k)) visit(k);
  for (const k of out.keys()) if (!state.has(k)) visit(k);
  const depth = new Map([...out.keys()].map(k => [k, 0]));
  for (const node of order.reverse()) {
    for (const target of forward.get(node)) {
      depth.set(target, Math.max(depth.get(target), depth.get(node) + 1));
    }
  }
  return depth;
}

/** The graph as SVG: columns of nodes in service groups, then the calls between them. */
function draw(graph) {
  const depth = depths(graph.nodes, graph.calls);
  const maxInvolvement = Math.max(...graph.nodes.map(n => n.involvement), 1e-9);
  const maxShare = Math.max(...graph.nodes.map(n => n.criticalPathShare), 1e-9);
  const columns = [];
  for (const node of graph.nodes) {
    const d = depth.get(key(node.service, node.name));
    (columns[d] = columns[d] || []).push(node);
  }
  const position = new Map();
  const groups = [];
  let height = 0;
  columns.forEach((column, c) => {
    column.sort((a, b) => a.service.localeCompare(b.service) || b.involvement - a.involvement);
    let y = 10;
    let group = null;
    for (const node of column) {
      if (!group || group.service !== node.service) {
        if (group) y += SERVICE_GAP - NODE_GAP;
        group = {service: node.service, x: 20 + c * (NODE_WIDTH + COLUMN_GAP), top: y + 16};
        groups.push(group);
        y += 16;
      }
      const h = MIN_HEIGHT
          + (MAX_HEIGHT - MIN_HEIGHT) * Math.sqrt(node.involvement / maxInvolvement);
      position.set(key(node.service, node.name), {x: group.x, y, h, node});
      y += h + NODE_GAP;
      group.bottom = y - NODE_GAP;
    }
    height = Math.max(height, y);
  });
  const width = 40 + columns.length * (NODE_WIDTH + COLUMN_GAP) - COLUMN_GAP;
  const maxCount = Math.max(...graph.calls.map(call => call.count), 1);

  const edges = graph.calls.map(call => {
    const from = position.get(key(call.callerService, call.callerName));
    const to = position.get(key(call.calleeService, call.calleeName));
    if (!from || !to) return null;
    const x1 = from.x + NODE_WIDTH;
    const y1 = from.y + from.h / 2;
    const x2 = to.x;
    const y2 = to.y + to.h / 2;
    const backward = x2 <= x1;
    const bend = backward ? 80 : Math.max(40, (x2 - x1) / 2);
    const d = backward
      ? `M${x1},${y1} C${x1 + bend},${y1 - 60} ${x2 - bend},${y2 - 60} ${x2},${y2}`
      : `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`;
    const label = `${number(call.count, 0)}× · ${duration(call.calleeDurationMeanNs)}`;
    return el('g', {class: 'call', 'data-caller': `${call.callerService}: ${call.callerName}`,
      'data-callee': `${call.calleeService}: ${call.calleeName}`, 'data-count': call.count},
        el('path', {d, 'stroke-width': 1 + 3 * Math.log10(1 + 9 * call.count / maxCount),
          'marker-end': 'url(#arrow)'}),
        // Beside the callee: edges leave a caller together, and their labels would overlap there.
        el('text', {x: x2 - 10, y: y2 - 5, 'text-anchor': 'end'}, label),
        el('title', {}, `${call.callerService}: ${call.callerName} → ${call.calleeService}: `
            + `${call.calleeName}\n${number(call.count, 0)} calls, mean `
            + `${duration(call.calleeDurationMeanNs)}, max ${duration(call.calleeDurationMaxNs)}`));
  });

  const nodes = [...position.values()].map(({x, y, h, node}) => {
    const href = 'operations?' + new URLSearchParams({service: node.service, operation: node.name});
    const dark = node.criticalPathShare / maxShare > 0.55;
    return el('g', {class: 'node' + (dark ? ' dark' : ''), 'data-service': node.service,
      'data-operation': node.name,
      'data-involvement': node.involvement, 'data-share': node.criticalPathShare,
      onclick: () => location.assign(href)},
        el('rect', {x, y, width: NODE_WIDTH, height: h, rx: 4,
          fill: shareColour(node.criticalPathShare / maxShare)}),
        el('text', {x: x + 6, y: y + 15}, clip(node.name, 30)),
        el('text', {x: x + 6, y: y + h - 6, class: 'figures'}, h >= 40
            ? `${number(node.count, 0)} · cp ${percent(node.criticalPathShare)}` : ''),
        el('title', {}, `${node.service}: ${node.name}\ninvolvement ${number(node.involvement)}`
            + `, ${number(node.count, 0)} spans, critical-path share `
            + `${percent(node.criticalPathShare)}, mean ${duration(node.durationMeanNs)}`));
  });

  const svg = el('svg', {id: 'call-graph', width, height: height + 10,
    'data-nodes': nodes.length, 'data-calls': edges.filter(Boolean).length},
      groups.map(g => el('g', {class: 'service-group', 'data-service': g.service},
          el('rect', {x: g.x - 6, y: g.top - 18, width: NODE_WIDTH + 12,
            height: g.bottom - g.top + 24, rx: 6}),
          el('text', {x: g.x - 2, y: g.top - 5, class: 'service'}, g.service))),
      edges.filter(Boolean), nodes);
  // The arrowhead, defined once.
  const defs = document.createElementNS('http://www.w3.org/2000/svg', 'defs');
  defs.innerHTML = '<marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" '
      + 'markerHeight="8" markerUnits="userSpaceOnUse" orient="auto-start-reverse">'
      + '<path d="M0,0 L10,5 L0,10 z"/></marker>';
  svg.prepend(defs);
  return el('div', {class: 'picture graph'}, svg);
}

/** 0 → pale, 1 → the critical path's colour. */
function shareColour(share) {
  const mix = (a, b) => Math.round(a + (b - a) * Math.min(Math.max(share, 0), 1));
  return `rgb(${mix(233, 214)} ${mix(236, 51)} ${mix(239, 108)})`;
}

function clip(text, length) {
  return text.length > length ? text.slice(0, length - 1) + '…' : text;
}
