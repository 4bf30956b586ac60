// The page for a path the UI does not have: the header, what was asked for, and the way back.
import {el, header} from './common.js';

header('');
document.getElementById('page').replaceChildren(
    el('h1', {}, 'No such page'),
    el('p', {id: 'not-found'}, 'spanprof has no page at ',
        el('code', {}, decodeURIComponent(location.pathname)), '.'),
    el('p', {}, 'Try the ', el('a', {href: './'}, 'overview'), ', the ',
        el('a', {href: 'traces'}, 'recent traces'), ', the ', el('a', {href: 'graph'}, 'call graph'),
        ' or the ', el('a', {href: 'pools'}, 'pools'), ', or paste a trace id above.'));
