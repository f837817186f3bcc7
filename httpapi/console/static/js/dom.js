// dom.js: building the page with DOM calls only. Text is always set as
// text (text nodes, textContent), never parsed as markup.

const SVG = 'http://www.w3.org/2000/svg';

// h makes an element: h('a', {href: '#/x', class: 'c', onclick: fn}, 'text', child).
// Attributes starting with "on" are event listeners; null and false skip.
export function h(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

// s makes an SVG element, as h does.
export function s(tag, attrs = {}, ...children) {
  return build(document.createElementNS(SVG, tag), attrs, children);
}

function build(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// clear empties el and appends children.
export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// when formats an RFC 3339 time for people ("2026-03-01 14:05 UTC"), or "—".
export function when(t) {
  if (!t) return '—';
  const d = new Date(t);
  if (isNaN(d)) return String(t);
  return d.toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

// num formats a score.
export function num(x) {
  return typeof x === 'number' ? x.toFixed(3) : '—';
}

// field makes a labelled input: field('Query', {name: 'q', type: 'search'}).
let fieldSeq = 0;
export function field(label, attrs = {}) {
  const id = attrs.id || 'f' + (++fieldSeq);
  const tag = attrs.tag || 'input';
  const a = {...attrs, id};
  delete a.tag;
  const input = tag === 'textarea' ? h('textarea', a) : h(tag, a);
  if (tag === 'textarea' && attrs.value !== undefined) input.value = attrs.value;
  return h('div', {class: 'field'}, h('label', {for: id}, label), input);
}

// dl makes a description list of [term, value] pairs, skipping empty values.
export function dl(pairs, cls = 'fields') {
  const out = h('dl', {class: cls});
  for (const [k, v] of pairs) {
    if (v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    out.append(h('dt', {}, k), h('dd', {}, v));
  }
  return out;
}

// badge names a memory's kind.
export function badge(kind) {
  return h('span', {class: 'badge k-' + kind}, kind || 'memory');
}

// status says something to the person, and to screen readers.
export function status(text, bad = false) {
  const el = document.getElementById('status');
  el.className = bad ? 'status bad' : 'status';
  el.textContent = text;
  if (text) {
    clearTimeout(status.timer);
    status.timer = setTimeout(() => { el.textContent = ''; }, 6000);
  }
}

// errorBox shows an error inside a page.
export function errorBox(err) {
  return h('p', {class: 'error', role: 'alert'}, err && err.message ? err.message : String(err));
}
