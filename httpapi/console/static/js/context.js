// context.js: the exact block Context puts in a prompt for a query and a
// token budget, with its sections and the stable prefix marked.
import {h, field, badge} from './dom.js';
import {post, href} from './api.js';

export async function render(view, params, ctx) {
  const a = ctx.agent;
  const q = params.get('q') || '';
  const budget = params.get('max_tokens') || '800';
  const form = h('form', {class: 'card row wrap', id: 'context-form', 'aria-label': 'Query and budget'},
    field('Query (empty: the stable part only)', {name: 'q', id: 'context-q', value: q, type: 'search'}),
    field('Token budget', {name: 'max_tokens', id: 'budget', type: 'number', min: 50, max: 100000, step: 50, value: budget}),
    h('button', {type: 'submit'}, 'Preview'));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const p = new URLSearchParams({agent: a, q: form.elements.q.value, max_tokens: form.elements.max_tokens.value});
    const next = '#/context?' + p;
    if (location.hash === next) ctx.reload(); else location.hash = next;
  });
  view.append(h('h1', {}, 'Context preview'), form);
  const b = await post('/v1/context', {profile: a, query: q, max_tokens: Number(budget) || 800});
  if (!ctx.current()) return;
  // Stable counts bytes of UTF-8; cut the text there.
  const bytes = new TextEncoder().encode(b.text);
  const dec = new TextDecoder();
  const stable = dec.decode(bytes.slice(0, b.stable));
  const rest = dec.decode(bytes.slice(b.stable));
  view.append(
    h('p', {class: 'meta', id: 'context-sum'}, `${b.tokens} tokens of ${budget}; the first ${b.stable} bytes are the stable prefix ` +
      '(the same for every query while memory does not change: a prompt cache can keep them).'),
    h('div', {class: 'card block'},
      h('h2', {}, 'The block'),
      h('p', {class: 'legend'}, h('span', {class: 'stable-key'}, 'stable prefix'), ' ', h('span', {class: 'query-key'}, 'depends on the query')),
      h('pre', {id: 'block', tabindex: '0', 'aria-label': 'The context block'},
        h('span', {class: 'stable', id: 'stable'}, stable),
        h('span', {class: 'varying'}, rest))),
    h('section', {class: 'card', 'aria-labelledby': 'sec-h'}, h('h2', {id: 'sec-h'}, 'Sections'),
      h('table', {class: 'grid', id: 'sections'},
        h('thead', {}, h('tr', {}, ['Section', 'Kind', 'Tokens', 'Left out', 'Memories'].map((c) => h('th', {scope: 'col'}, c)))),
        h('tbody', {}, b.sections.map((sec) => h('tr', {},
          h('th', {scope: 'row'}, sec.title),
          h('td', {}, sec.type ? badge(sec.type) : 'any'),
          h('td', {class: 'n'}, String(sec.tokens)),
          h('td', {class: 'n'}, String(sec.omitted)),
          h('td', {}, sec.ids.slice(0, 12).map((id, i) => [i ? ' ' : '', h('a', {href: href.memory(a, id)}, id.slice(-8))]),
            sec.ids.length > 12 ? ` and ${sec.ids.length - 12} more` : null)))))));
}
