// search.js: one box over every kind of memory, with filters; each result
// shows its score's parts, its snippet, its source and a link to it.
import {h, clear, when, num, field, badge, errorBox} from './dom.js';
import {post, href} from './api.js';

const KINDS = ['semantic', 'episodic', 'procedural', 'fact', 'snapshot', 'document'];

export async function render(view, params, ctx) {
  const a = ctx.agent;
  const p = (k) => params.get(k) || '';
  const kinds = p('types') ? p('types').split(',') : [];
  const form = h('form', {class: 'card search', role: 'search', 'aria-label': 'Search ' + a},
    h('div', {class: 'row'},
      field('Search the memory of ' + a, {name: 'q', type: 'search', value: p('q'), id: 'q', autocomplete: 'off'}),
      h('button', {type: 'submit', id: 'search-go'}, 'Search')),
    h('details', {open: kinds.length || p('tags') || p('user') || p('session') || p('since') || p('until') ? true : null},
      h('summary', {}, 'Filters'),
      h('fieldset', {class: 'kinds'}, h('legend', {}, 'Kinds (none ticked: every kind)'),
        KINDS.map((k) => h('label', {class: 'check'},
          h('input', {type: 'checkbox', name: 'types', value: k, checked: kinds.includes(k)}), ' ' + k))),
      h('div', {class: 'row wrap'},
        field('Tags (comma-separated)', {name: 'tags', value: p('tags')}),
        field('User', {name: 'user', value: p('user')}),
        field('Session', {name: 'session', value: p('session')}),
        field('From', {name: 'since', type: 'date', value: p('since')}),
        field('To', {name: 'until', type: 'date', value: p('until')}))));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const f = form.elements;
    const q = new URLSearchParams({agent: a, q: f.q.value});
    const types = [...form.querySelectorAll('input[name=types]:checked')].map((c) => c.value);
    if (types.length) q.set('types', types.join(','));
    for (const k of ['tags', 'user', 'session', 'since', 'until']) if (f[k].value) q.set(k, f[k].value);
    const next = '#/search?' + q;
    if (location.hash === next) ctx.reload(); else location.hash = next;
  });
  view.append(h('h1', {}, 'Search'), form);
  if (!p('q').trim()) {
    view.append(h('p', {class: 'hint'}, 'Results come from every kind of memory, ranked; each shows how its score was made.'));
    return;
  }
  const body = {profile: a, query: p('q'), recall: false, limit: 30};
  if (kinds.length) body.types = kinds;
  if (p('tags')) body.tags = p('tags').split(',').map((t) => t.trim()).filter(Boolean);
  if (p('since')) body.since = p('since') + 'T00:00:00Z';
  if (p('until')) body.until = p('until') + 'T23:59:59Z';
  const filter = {};
  if (p('user')) filter.user_id = p('user');
  if (p('session')) filter.session_id = p('session');
  if (Object.keys(filter).length) body.filter = filter;
  let res;
  try {
    res = await post('/v1/search', body);
  } catch (e) {
    view.append(errorBox(e));
    return;
  }
  if (!ctx.current()) return;
  const list = h('ol', {class: 'results', id: 'results'});
  for (const r of res.results) list.append(result(a, r));
  view.append(h('h2', {}, `${res.results.length} result${res.results.length === 1 ? '' : 's'}`),
    res.results.length ? list : h('p', {}, 'Nothing matches.'));
}

function result(a, r) {
  const parts = r.parts || {};
  return h('li', {class: 'card result', 'data-id': r.id},
    h('div', {class: 'head'},
      badge(r.type),
      h('a', {href: href.memory(a, r.id), class: 'title'}, marked(r.snippet || r.content || r.id)),
      h('span', {class: 'score', title: 'score'}, num(r.score))),
    r.snippet && r.content !== r.snippet.replaceAll('**', '') ? h('p', {class: 'content'}, clip(r.content)) : null,
    h('dl', {class: 'parts', 'aria-label': 'Score parts'},
      ['text', 'importance', 'recency', 'vector', 'fused'].flatMap((k) => [h('dt', {}, k), h('dd', {}, num(parts[k]))])),
    h('p', {class: 'meta'},
      r.source ? h('span', {class: 'source'}, (r.type === 'document' ? 'Document: ' : 'Source: ') + r.source) : null,
      r.created_at ? h('span', {}, when(r.created_at)) : null,
      (r.tags || []).length ? h('span', {}, 'Tags: ' + r.tags.join(', ')) : null,
      r.context_of ? h('a', {href: href.memory(a, r.context_of)}, 'context of ' + r.context_of) : null));
}

function clip(s) {
  return s && s.length > 400 ? s.slice(0, 400) + '…' : s;
}

// marked shows a snippet's matched terms, which engram wraps in **, as
// mark elements (their text set as text).
function marked(snippet) {
  return snippet.split('**').map((part, i) => (i % 2 ? h('mark', {}, part) : part));
}
