// facts.js: an entity's facts now or as of a date, a timeline per slot
// (when each value held, when engram learned it, what superseded it), and
// its neighbourhood drawn as an SVG graph, walked by clicking.
import {h, s, when, field} from './dom.js';
import {get, href} from './api.js';

export async function render(view, params, ctx) {
  const a = ctx.agent;
  const entity = params.get('entity') || '';
  const asOf = params.get('as_of') || '';
  const form = h('form', {class: 'card row wrap', id: 'facts-form', 'aria-label': 'Entity and date'},
    field('Entity', {name: 'entity', id: 'entity', value: entity, required: true, autocomplete: 'off'}),
    field('As of (empty: now)', {name: 'as_of', id: 'as-of', type: 'date', value: asOf}),
    h('button', {type: 'submit'}, 'Show'));
  const go = () => {
    const e = form.elements.entity.value.trim();
    if (e) location.hash = href.entity(a, e, form.elements.as_of.value);
  };
  form.addEventListener('submit', (ev) => { ev.preventDefault(); go(); });
  // Moving the date shows that day's world at once.
  form.elements.as_of.addEventListener('change', go);
  view.append(h('h1', {}, entity ? 'Facts of ' + entity : 'Facts and the graph'), form);
  if (!entity) {
    const some = await get('/v1/graph/triples', {profile: a, max_results: 20});
    if (!ctx.current()) return;
    const names = [...new Set(some.triples.flatMap((f) => [f.subject, f.object]))].slice(0, 20);
    view.append(h('p', {}, names.length ? 'Entities the agent knows of:' : 'The agent knows no facts yet.'),
      h('ul', {class: 'chips'}, names.map((n) => h('li', {}, h('a', {href: href.entity(a, n)}, n)))));
    return;
  }
  const at = asOf ? asOf + 'T23:59:59Z' : '';
  const [now, nb] = await Promise.all([
    get('/v1/facts', {profile: a, entity, as_of: at, limit: 500}),
    get('/v1/graph/neighbors', {profile: a, entity, max_results: 500}),
  ]);
  if (!ctx.current()) return;
  const slots = [...new Set(now.facts.filter((f) => f.subject === entity).map((f) => f.predicate))];
  const timelines = await Promise.all(slots.map((p) => get('/v1/facts', {profile: a, entity, predicate: p, history: true, limit: 500})));
  if (!ctx.current()) return;

  view.append(
    h('section', {class: 'card', 'aria-labelledby': 'cur-h'},
      h('h2', {id: 'cur-h'}, asOf ? `Facts as of ${asOf}` : 'Facts that hold now'),
      factTable(a, now.facts, asOf, 'facts')),
    graph(a, entity, nb.neighbors, asOf),
    h('section', {class: 'card', 'aria-labelledby': 'tl-h'},
      h('h2', {id: 'tl-h'}, 'Timeline per slot'),
      slots.length ? slots.map((p, i) => timeline(a, entity, p, timelines[i].facts)) : h('p', {}, 'No slots.')));
}

function factTable(a, facts, asOf, id) {
  if (!facts.length) return h('p', {id}, 'None.');
  const table = h('table', {class: 'grid', id},
    h('thead', {}, h('tr', {}, ['Subject', 'Predicate', 'Object', 'Held from', 'Until', 'Learned', 'Memory']
      .map((c) => h('th', {scope: 'col'}, c)))),
    h('tbody', {}, facts.map((f, i) => h('tr', {'data-fact': f.id, hidden: i >= SHOWN},
      h('td', {}, h('a', {href: href.entity(a, f.subject, asOf)}, f.subject)),
      h('td', {class: 'pred'}, f.predicate),
      h('td', {class: 'obj'}, h('a', {href: href.entity(a, f.object, asOf)}, f.object)),
      h('td', {}, when(f.valid_from)), h('td', {}, f.valid_to ? when(f.valid_to) : 'now'),
      h('td', {}, when(f.recorded_at)),
      h('td', {}, h('a', {href: href.memory(a, f.id), 'aria-label': 'open the fact ' + f.id}, 'open'))))));
  return facts.length > SHOWN ? [table, more(table, facts.length)] : table;
}

// SHOWN is how many rows of a long list show before "Show all".
const SHOWN = 25;

// more is a button that shows a list's hidden rows.
function more(list, n) {
  const b = h('button', {type: 'button', class: 'quiet more'}, `Show all ${n}`);
  b.addEventListener('click', () => {
    for (const el of list.querySelectorAll('[hidden]')) el.hidden = false;
    b.remove();
  });
  return b;
}

// timeline lists a slot's values in the order they started.
function timeline(a, entity, predicate, facts) {
  const list = h('ol', {}, facts.map((f, i) => {
      const next = facts[i + 1];
      return h('li', {class: f.valid_to || f.expired_at ? 'past' : 'now', hidden: i >= SHOWN},
        h('a', {href: href.memory(a, f.id), class: 'val'}, f.object), ' ',
        h('span', {class: 'meta'},
          `held ${when(f.valid_from)} → ${f.valid_to ? when(f.valid_to) : 'now'}; learned ${when(f.recorded_at)}` +
          (f.expired_at ? `; retired ${when(f.expired_at)}` : '') +
          (next && f.valid_to ? `; superseded by ${next.object}` : '')));
    }));
  return h('div', {class: 'timeline'},
    h('h3', {}, entity + ' ', h('span', {class: 'pred'}, predicate)),
    list, facts.length > SHOWN ? more(list, facts.length) : null);
}

// graph draws the entity and its neighbours on rings around it; each
// neighbour is a link to its own page.
function graph(a, entity, neighbours, asOf) {
  const t0 = performance.now();
  const n = neighbours.length;
  const perRing = 24;
  const rings = Math.max(1, Math.ceil(n / perRing));
  const R0 = n <= 12 ? 120 : 140;
  const size = 2 * (R0 + (rings - 1) * 70) + 150;
  const c = size / 2;
  const svg = s('svg', {viewBox: `0 0 ${size} ${size}`, width: Math.round(size * 1.2), height: Math.round(size * 1.2), class: 'graph', id: 'graph', role: 'group',
    'aria-label': `${entity} and ${n} neighbour${n === 1 ? '' : 's'}`});
  const edges = s('g', {class: 'edges', 'aria-hidden': 'true'});
  const nodes = s('g', {class: 'nodes'});
  svg.append(edges, nodes);
  neighbours.forEach((nb, i) => {
    const ring = Math.floor(i / perRing);
    const inRing = Math.min(perRing, n - ring * perRing);
    const angle = (2 * Math.PI * (i % perRing)) / inRing + ring * 0.3 - Math.PI / 3;
    const r = R0 + ring * 70;
    const x = c + r * Math.cos(angle);
    const y = c + r * Math.sin(angle);
    const preds = [...new Set(nb.hops.map((hp) => hp.fact.predicate))].join(', ');
    edges.append(s('line', {x1: c, y1: c, x2: x, y2: y}));
    if (n <= 24) {
      // Beside the middle of the edge, off to its side.
      const lx = (c + x) / 2 - (10 * (y - c)) / r;
      const ly = (c + y) / 2 + (10 * (x - c)) / r;
      edges.append(s('text', {x: lx, y: ly + 4, class: 'edge-label', 'text-anchor': 'middle'}, preds));
    }
    nodes.append(s('a', {href: href.entity(a, nb.entity, asOf), class: 'node', 'aria-label': `${nb.entity} (${preds})`},
      s('title', {}, `${nb.entity}: ${preds}`),
      s('circle', {cx: x, cy: y, r: 9}),
      s('text', {x, y: y + 24, 'text-anchor': 'middle'}, short(nb.entity))));
  });
  nodes.append(s('g', {class: 'node center', 'aria-hidden': 'true'},
    s('circle', {cx: c, cy: c, r: 16}),
    s('text', {x: c, y: c - 24, 'text-anchor': 'middle', class: 'center-label'}, short(entity))));
  const ms = performance.now() - t0;
  svg.dataset.drawMs = ms.toFixed(1);
  return h('section', {class: 'card', 'aria-labelledby': 'graph-h'},
    h('h2', {id: 'graph-h'}, asOf ? 'Neighbourhood (by the facts that hold now)' : 'Neighbourhood'),
    n ? svg : h('p', {}, 'No neighbours.'),
    n ? h('p', {class: 'hint'}, 'Select a neighbour to walk to it.') : null);
}

function short(name) {
  return name.length > 18 ? name.slice(0, 17) + '…' : name;
}
