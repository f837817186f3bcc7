// app.js: sign-in, the agent chooser and the hash router of the console.
import {h, clear, errorBox} from './dom.js';
import {get, token, agent} from './api.js';
import * as agents from './agents.js';
import * as search from './search.js';
import * as memory from './memory.js';
import * as facts from './facts.js';
import * as context from './context.js';
import * as changes from './changes.js';

const pages = {agents, search, memory, facts, context, changes};
const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
const chooser = document.getElementById('agent');
let known = [];

// signIn shows the sign-in form; a token is checked against the API
// before the console opens.
function signIn(message) {
  nav.hidden = true;
  who.hidden = true;
  const input = h('input', {id: 'token', name: 'token', type: 'password', autocomplete: 'off', spellcheck: 'false'});
  const err = h('div', {id: 'signin-error'});
  if (message) err.append(errorBox(message));
  const form = h('form', {class: 'card signin', 'aria-labelledby': 'signin-title'},
    h('h1', {id: 'signin-title', tabindex: '-1'}, 'Sign in to the engram console'),
    h('p', {}, 'Give the bearer token engram serve was started with (--token or ENGRAM_TOKEN). ' +
      'A server on loopback without tokens takes an empty one. The token stays in this tab only.'),
    h('div', {class: 'field'}, h('label', {for: 'token'}, 'Token'), input),
    err,
    h('button', {type: 'submit', id: 'signin'}, 'Sign in'));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    token.set(input.value.trim());
    try {
      await loadAgents();
    } catch (e) {
      token.clear();
      clear(err, errorBox(e.status === 401 ? 'That token is not valid.' : e));
      input.focus();
      return;
    }
    if (!location.hash.startsWith('#/') || location.hash.startsWith('#/signin')) location.hash = '#/agents';
    else route();
  });
  clear(main, form);
  input.focus();
}

// loadAgents fills the agent chooser with the agents the token may see.
async function loadAgents() {
  const res = await get('/v1/profiles');
  known = res.profiles || [];
  fillChooser();
  nav.hidden = false;
  who.hidden = false;
}

function fillChooser() {
  const cur = agent.get() || known[0] || 'default';
  const names = known.includes(cur) ? known : [...known, cur];
  chooser.replaceChildren(...names.map((n) => h('option', {value: n, selected: n === cur}, n)));
  agent.set(cur);
}

chooser.addEventListener('change', () => {
  agent.set(chooser.value);
  const [page] = parse();
  location.hash = '#/' + (page === 'memory' ? 'search' : page) + '?agent=' + encodeURIComponent(chooser.value);
});

document.getElementById('signout').addEventListener('click', () => {
  token.clear();
  // The hash's change draws the sign-in form (route); drawn here only
  // when the hash stays as it is.
  if (location.hash === '#/signin') signIn();
  else location.hash = '#/signin';
});

// parse reads the hash: "#/facts?agent=a&entity=Ada" → ['facts', params].
function parse() {
  const hash = location.hash.startsWith('#/') ? location.hash.slice(2) : 'agents';
  const [name, qs] = hash.split('?');
  return [name || 'agents', new URLSearchParams(qs || '')];
}

let generation = 0;

// route draws the page the hash names.
async function route() {
  if (!token.has()) return signIn();
  const [name, params] = parse();
  if (name === 'signin') { location.hash = '#/agents'; return; }
  const page = pages[name];
  if (!page) return clear(main, h('h1', {tabindex: '-1'}, 'No such page'), h('p', {}, h('a', {href: '#/agents'}, 'Go to the agents')));
  const a = params.get('agent');
  if (a && a !== agent.get()) {
    agent.set(a);
    fillChooser();
  }
  for (const link of nav.querySelectorAll('a')) {
    link.href = '#/' + link.dataset.page + '?agent=' + encodeURIComponent(agent.get());
    if (link.dataset.page === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const mine = ++generation;
  const view = h('div', {class: 'page page-' + name});
  clear(main, view);
  try {
    await page.render(view, params, {agent: agent.get(), current: () => mine === generation, reload: route});
  } catch (e) {
    if (mine !== generation) return;
    if (e.status === 401) { token.clear(); return signIn('The token is no longer accepted.'); }
    view.append(errorBox(e));
  }
  if (mine === generation) {
    const title = view.querySelector('h1');
    if (title) { title.tabIndex = -1; title.focus({preventScroll: true}); document.title = title.textContent + ' · engram'; }
    document.body.dataset.page = name;
    document.body.dataset.ready = String(mine);
  }
}

window.addEventListener('hashchange', () => { if (location.hash.startsWith('#/')) route(); });

(async function start() {
  if (!token.has()) return signIn();
  try {
    await loadAgents();
  } catch (e) {
    token.clear();
    return signIn(e.status === 401 ? 'The token is no longer accepted.' : e);
  }
  route();
})();

