// changes.js: the agent's changes, newest first, a page at a time,
// filtered by actor.
import {h, when, badge, field} from './dom.js';
import {get, href} from './api.js';

const PAGE = 25;

export async function render(view, params, ctx) {
  const a = ctx.agent;
  const actor = params.get('actor') || '';
  const until = params.get('until') || '';
  const before = params.get('before_seq') || '';
  const form = h('form', {class: 'card row wrap', id: 'changes-form', 'aria-label': 'Filter changes'},
    field('Actor (empty: everyone)', {name: 'actor', id: 'actor', value: actor, autocomplete: 'off'}),
    h('button', {type: 'submit'}, 'Filter'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const next = '#/changes?' + new URLSearchParams({agent: a, actor: form.elements.actor.value.trim()});
    if (location.hash === next) ctx.reload(); else location.hash = next;
  });
  view.append(h('h1', {}, 'Changes'), form);
  const res = await get('/v1/changes', {profile: a, limit: PAGE, actor, until, before_seq: before});
  if (!ctx.current()) return;
  const es = res.entries;
  if (!es.length) {
    view.append(h('p', {}, until ? 'No older changes.' : 'No changes recorded.'));
  } else {
    view.append(h('div', {class: 'scroll'}, h('table', {class: 'grid', id: 'changes'},
      h('caption', {}, until ? `Changes before ${when(until)}` : 'The newest changes'),
      h('thead', {}, h('tr', {}, ['When', 'Change', 'Kind', 'Memory', 'Actor', 'Reason'].map((c) => h('th', {scope: 'col'}, c)))),
      h('tbody', {}, es.map((e) => h('tr', {},
        h('td', {}, when(e.at)),
        h('td', {}, h('span', {class: 'op op-' + e.op}, e.op)),
        h('td', {}, badge(e.type)),
        h('td', {}, h('a', {href: href.memory(a, e.id)}, e.id)),
        h('td', {class: 'actor'}, e.actor),
        h('td', {}, e.reason || '')))))));
  }
  const nav = h('nav', {class: 'pager', 'aria-label': 'Pages of changes'});
  if (until) nav.append(h('a', {href: '#/changes?' + new URLSearchParams({agent: a, actor}), class: 'button quiet'}, 'Newest'));
  if (es.length === PAGE) {
    const last = es[es.length - 1];
    nav.append(h('a', {href: '#/changes?' + new URLSearchParams({agent: a, actor, until: last.at, before_seq: last.seq}),
      class: 'button', id: 'older'}, 'Older'));
  }
  view.append(nav, h('p', {class: 'hint'}, h('a', {href: href.search(a)}, 'Search this agent')));
}
