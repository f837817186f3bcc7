// agents.js: the agents the token may see, with their counts, size and
// last change; forgetting an agent asks for its name typed out.
import {h, clear, when, status, errorBox} from './dom.js';
import {get, del, agent as current, href} from './api.js';

const KINDS = ['semantic', 'episodic', 'procedural', 'fact', 'snapshot', 'document'];

export async function render(view, params, ctx) {
  view.append(h('h1', {}, 'Agents'));
  const {profiles} = await get('/v1/profiles');
  if (!ctx.current()) return;
  const open = h('form', {class: 'inline', 'aria-label': 'Open an agent by name'},
    h('label', {for: 'open-agent'}, 'Open an agent by name'),
    h('input', {id: 'open-agent', name: 'agent', required: true, placeholder: 'alice'}),
    h('button', {type: 'submit'}, 'Open'));
  open.addEventListener('submit', (ev) => {
    ev.preventDefault();
    location.hash = href.search(open.elements.agent.value.trim());
  });
  if (profiles.length === 0) {
    view.append(h('p', {}, 'This token sees no agent with memory yet.'), open);
    return;
  }
  const stats = await Promise.all(profiles.map((p) => get('/v1/stats', {profile: p})));
  if (!ctx.current()) return;
  const table = h('table', {class: 'grid', id: 'agents'},
    h('caption', {}, `${profiles.length} agent${profiles.length === 1 ? '' : 's'} this token may see`),
    h('thead', {}, h('tr', {},
      h('th', {scope: 'col'}, 'Agent'),
      KINDS.map((k) => h('th', {scope: 'col', class: 'n'}, k)),
      h('th', {scope: 'col', class: 'n'}, 'archived'),
      h('th', {scope: 'col', class: 'n'}, 'size'),
      h('th', {scope: 'col'}, 'Last change'),
      h('th', {scope: 'col'}, h('span', {class: 'sr'}, 'Actions')))));
  const body = h('tbody');
  profiles.forEach((p, i) => {
    const st = stats[i];
    const confirm = h('td', {colspan: KINDS.length + 5, class: 'confirm'});
    const confirmRow = h('tr', {hidden: true}, confirm);
    const forget = h('button', {type: 'button', class: 'danger', 'aria-expanded': 'false'}, 'Forget…');
    forget.setAttribute('aria-label', 'Forget agent ' + p);
    forget.addEventListener('click', () => {
      const shown = !confirmRow.hidden;
      confirmRow.hidden = shown;
      forget.setAttribute('aria-expanded', String(!shown));
      if (!shown) confirmForm(confirm, p, st.total, ctx);
    });
    body.append(h('tr', {'data-agent': p},
      h('th', {scope: 'row'}, h('a', {href: href.search(p)}, p)),
      KINDS.map((k) => h('td', {class: 'n'}, String(st.counts[k]))),
      h('td', {class: 'n'}, String(st.archived)),
      h('td', {class: 'n nowrap'}, plural(st.total, 'memory', 'memories'), h('br'), plural(st.links, 'link', 'links')),
      h('td', {}, h('a', {href: href.changes(p), 'aria-label': `${when(st.last_change)}: the changes of ${p}`}, when(st.last_change))),
      h('td', {class: 'actions'}, forget)), confirmRow);
  });
  table.append(body);
  view.append(h('div', {class: 'scroll'}, table), open);
}

// confirmForm asks for the agent's name before forgetting all it holds.
function confirmForm(cell, name, total, ctx) {
  const input = h('input', {id: 'confirm-' + name, autocomplete: 'off', spellcheck: 'false'});
  const go = h('button', {type: 'submit', class: 'danger', disabled: true}, 'Forget ' + name + ' for good');
  const err = h('div');
  input.addEventListener('input', () => { go.disabled = input.value !== name; });
  const form = h('form', {class: 'inline'},
    h('label', {for: 'confirm-' + name}, `This erases all ${total} memories of ${name}, with their history. Type ${name} to confirm`),
    input, go, err);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (input.value !== name) return;
    try {
      const res = name === 'default'
        ? await del('/v1/memory', {profile: name})
        : await del('/v1/profiles/' + encodeURIComponent(name));
      status(`Forgot ${name}: ${res.deleted} memories.`);
      if (current.get() === name) current.set('');
      ctx.reload();
    } catch (e) {
      clear(err, errorBox(e));
    }
  });
  clear(cell, form);
  input.focus();
}

function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}
