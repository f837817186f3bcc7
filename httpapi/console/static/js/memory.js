// memory.js: one memory: its fields, its links both ways, the facts it
// supports, its history with a diff of each change; edit, archive,
// restore and forget it.
import {h, clear, when, dl, badge, field, status, errorBox} from './dom.js';
import {get, post, patch, del, href} from './api.js';

// The fields a person may change, by kind (as PATCH /v1/memories/{id} takes).
const EDITABLE = {
  semantic: [['content', 'textarea'], ['summary', 'text'], ['importance', 'number'], ['verified', 'checkbox'], ['tags', 'tags']],
  procedural: [['description', 'textarea'], ['pattern', 'textarea'], ['tags', 'tags'], ['disabled', 'checkbox']],
};

export async function render(view, params, ctx) {
  const a = ctx.agent;
  const id = params.get('id') || '';
  view.append(h('h1', {}, 'Memory ', h('code', {}, id)));
  const [mem, links, hist] = await Promise.all([
    get('/v1/memories/' + encodeURIComponent(id), {profile: a}).catch((e) => e),
    get('/v1/memories/' + encodeURIComponent(id) + '/links', {profile: a}),
    get('/v1/memory/' + encodeURIComponent(id) + '/history', {profile: a}),
  ]);
  if (!ctx.current()) return;
  const entries = hist.entries || [];
  const last = entries[entries.length - 1];
  if (mem instanceof Error) {
    if (mem.status !== 404) throw mem;
    const archived = last && last.op === 'archive';
    view.append(h('p', {class: 'notice', id: 'gone'}, archived
      ? 'This memory is archived: search and listings do not find it.'
      : last && (last.op === 'forget' || last.op === 'delete') ? 'This memory was forgotten: only its history is left.'
        : entries.length ? 'This memory is gone.' : 'The agent has no memory of this ID.'));
    if (archived) view.append(restoreForm(a, id, ctx));
  } else {
    view.append(fields(a, mem.memory), actions(a, mem.memory, ctx));
  }
  view.append(linksSection(a, id, links), historySection(entries));
}

function fields(a, m) {
  const rows = [['Kind', badge(m.type)]];
  for (const [k, v] of Object.entries(m)) {
    if (k === 'type' || k === 'id') continue;
    rows.push([k.replace(/_/g, ' '), value(a, m, k, v)]);
  }
  return h('section', {class: 'card', 'aria-labelledby': 'fields-h'}, h('h2', {id: 'fields-h'}, 'Fields'), dl(rows));
}

// value shows one field: times readable, entities and IDs as links,
// lists and objects as text.
function value(a, m, k, v) {
  if (v === null || v === undefined || v === '') return null;
  if (/_at$|^valid_/.test(k)) return when(v);
  if (m.type === 'fact' && (k === 'subject' || k === 'object')) return h('a', {href: href.entity(a, v)}, v);
  if (k === 'merged_from' || k === 'sources') return v.length ? v.map((x, i) => [i ? ', ' : '', idLink(a, x)]) : null;
  if (Array.isArray(v)) return v.length ? v.map((x) => typeof x === 'object' ? JSON.stringify(x) : String(x)).join(', ') : null;
  if (typeof v === 'object') return h('pre', {class: 'json'}, JSON.stringify(v, null, 2));
  if (k === 'content' || k === 'description' || k === 'pattern' || k === 'summary') return h('div', {class: 'text'}, String(v));
  return String(v);
}

// idLink links what looks like a memory ID; other sources stay text.
function idLink(a, x) {
  return /^[A-Za-z0-9_-]{8,}$/.test(x) ? h('a', {href: href.memory(a, x)}, x) : x;
}

function actions(a, m, ctx) {
  const box = h('section', {class: 'card', 'aria-labelledby': 'act-h'}, h('h2', {id: 'act-h'}, 'Mend'));
  const path = '/v1/memories/' + encodeURIComponent(m.id);
  const err = h('div');
  const editable = EDITABLE[m.type];
  if (editable) {
    const form = h('form', {class: 'edit', id: 'edit'});
    for (const [k, kind] of editable) {
      const v = m[k];
      if (kind === 'checkbox') {
        form.append(h('label', {class: 'check'}, h('input', {type: 'checkbox', name: k, checked: !!v}), ' ' + k));
      } else if (kind === 'textarea') {
        form.append(field(k, {tag: 'textarea', name: k, rows: 3, value: v || ''}));
      } else if (kind === 'number') {
        form.append(field(k, {name: k, type: 'number', min: 0, max: 1, step: 0.05, value: v}));
      } else {
        form.append(field(k === 'tags' ? 'tags (comma-separated)' : k, {name: k, value: kind === 'tags' ? (v || []).join(', ') : (v || '')}));
      }
    }
    form.append(field('Reason for the change', {name: 'reason', placeholder: 'corrected by hand'}),
      h('button', {type: 'submit'}, 'Save changes'));
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      const body = {};
      for (const [k, kind] of editable) {
        const el = form.elements[k];
        let nv;
        if (kind === 'checkbox') nv = el.checked;
        else if (kind === 'number') nv = Number(el.value);
        else if (kind === 'tags') nv = el.value.split(',').map((t) => t.trim()).filter(Boolean);
        else nv = el.value;
        if (JSON.stringify(nv) !== JSON.stringify(kind === 'tags' ? (m[k] || []) : m[k])) body[k] = nv;
      }
      if (Object.keys(body).length === 0) return clear(err, errorBox('Nothing changed.'));
      if (form.elements.reason.value) body.reason = form.elements.reason.value;
      try {
        await patch(path, body, {profile: a});
        status('Saved.');
        ctx.reload();
      } catch (e) { clear(err, errorBox(e)); }
    });
    box.append(form);
  } else {
    box.append(h('p', {class: 'hint'}, m.type === 'fact'
      ? 'A fact is not edited: assert its new value, which supersedes this one.'
      : `${m.type === 'episodic' ? 'An episode' : 'This kind'} records what happened or was read, and is not edited.`));
  }
  const buttons = h('div', {class: 'row'});
  if (m.type !== 'fact') {
    const archive = h('button', {type: 'button', id: 'archive'}, 'Archive');
    archive.addEventListener('click', async () => {
      try {
        await post(path + '/archive', {reason: 'archived in the console'}, {profile: a});
        status('Archived.');
        ctx.reload();
      } catch (e) { clear(err, errorBox(e)); }
    });
    buttons.append(archive);
  }
  const forget = h('button', {type: 'button', class: 'danger', id: 'forget', 'aria-expanded': 'false'}, 'Forget…');
  const sure = h('div', {class: 'confirm', hidden: true},
    h('p', {}, 'Forgetting erases this memory and what was made of it, for good.'));
  const yes = h('button', {type: 'button', class: 'danger', id: 'forget-yes'}, 'Forget it for good');
  sure.append(yes);
  forget.addEventListener('click', () => {
    sure.hidden = !sure.hidden;
    forget.setAttribute('aria-expanded', String(!sure.hidden));
    if (!sure.hidden) yes.focus();
  });
  yes.addEventListener('click', async () => {
    try {
      await del(path, {profile: a});
      status('Forgotten.');
      ctx.reload();
    } catch (e) { clear(err, errorBox(e)); }
  });
  buttons.append(forget);
  box.append(buttons, sure, err);
  return box;
}

function restoreForm(a, id, ctx) {
  const err = h('div');
  const b = h('button', {type: 'button', id: 'restore'}, 'Restore');
  b.addEventListener('click', async () => {
    try {
      await post('/v1/memories/' + encodeURIComponent(id) + '/restore', {reason: 'restored in the console'}, {profile: a});
      status('Restored.');
      ctx.reload();
    } catch (e) { clear(err, errorBox(e)); }
  });
  return h('div', {class: 'row'}, b, err);
}

function linksSection(a, id, res) {
  const sec = h('section', {class: 'card', 'aria-labelledby': 'links-h'}, h('h2', {id: 'links-h'}, 'Links'));
  if (!res.links.length) sec.append(h('p', {}, 'No links.'));
  else {
    sec.append(h('ul', {class: 'links', id: 'links'}, res.links.map((l) => h('li', {},
      h('span', {class: 'dir'}, l.direction === 'out' ? 'to' : 'from'), ' ',
      badge(l.other_type), ' ',
      h('a', {href: href.memory(a, l.other)}, l.other), ' ',
      h('span', {class: 'meta'}, `${l.type}, strength ${l.strength.toFixed(2)}`)))));
  }
  if (res.supports.length) {
    sec.append(h('h3', {}, 'Facts it supports'), h('ul', {class: 'links', id: 'supports'}, res.supports.map((f) => h('li', {},
      h('a', {href: href.entity(a, f.subject)}, f.subject), ' ', h('span', {class: 'pred'}, f.predicate), ' ',
      h('a', {href: href.entity(a, f.object)}, f.object), ' ',
      h('span', {class: 'meta'}, f.valid_to ? `held until ${when(f.valid_to)}` : 'holds now')))));
  }
  return sec;
}

function historySection(entries) {
  const sec = h('section', {class: 'card', 'aria-labelledby': 'hist-h'}, h('h2', {id: 'hist-h'}, 'History'));
  if (!entries.length) return sec.append(h('p', {}, 'No recorded changes.')), sec;
  const list = h('ol', {class: 'history', id: 'history', reversed: true});
  for (const e of [...entries].reverse()) {
    list.append(h('li', {},
      h('div', {class: 'head'}, h('span', {class: 'op op-' + e.op}, e.op), ' ', when(e.at), ' by ',
        h('span', {class: 'actor'}, e.actor || '—'), e.reason ? [' — ', h('span', {class: 'reason'}, e.reason)] : null),
      diff(e.before, e.after)));
  }
  sec.append(list);
  return sec;
}

// diff shows the fields a change made different: before struck, after
// inserted; a creation shows its fields.
function diff(before, after) {
  const b = before || {};
  const c = after || {};
  const keys = [...new Set([...Object.keys(b), ...Object.keys(c)])]
    .filter((k) => JSON.stringify(b[k]) !== JSON.stringify(c[k]) && !['terms', 'ntok', 'pk', 'updated_at'].includes(k));
  if (!keys.length) return null;
  return h('table', {class: 'diff'}, h('tbody', {}, keys.map((k) => h('tr', {},
    h('th', {scope: 'row'}, k),
    h('td', {}, k in b ? h('del', {}, show(b[k])) : null),
    h('td', {}, k in c ? h('ins', {}, show(c[k])) : null)))));
}

function show(v) {
  return typeof v === 'string' ? v : JSON.stringify(v);
}
