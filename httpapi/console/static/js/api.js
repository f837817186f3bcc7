// api.js: the console's calls to engram's HTTP API, with the bearer
// token kept in sessionStorage (gone when the tab closes).

const KEY = 'engram.token';
const AGENT = 'engram.agent';

export const token = {
  // has says whether the person signed in (with a token, or with none
  // for a server that takes none).
  has: () => sessionStorage.getItem(KEY) !== null,
  get: () => sessionStorage.getItem(KEY) || '',
  set: (t) => sessionStorage.setItem(KEY, t),
  clear: () => { sessionStorage.removeItem(KEY); sessionStorage.removeItem(AGENT); },
};

export const agent = {
  get: () => sessionStorage.getItem(AGENT) || '',
  set: (a) => sessionStorage.setItem(AGENT, a),
};

// ApiError is an answer of the API that is an error: its HTTP status, and
// the API's code and message.
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

// call sends method path with query parameters (empty ones left out) and
// a JSON body, and returns the decoded answer or throws an ApiError.
export async function call(method, path, {query = {}, body} = {}) {
  const u = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null && v !== '') u.searchParams.set(k, v);
  }
  const headers = {};
  const t = token.get();
  if (t) headers.Authorization = 'Bearer ' + t;
  const init = {method, headers, credentials: 'omit', cache: 'no-store'};
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const resp = await fetch(u, init);
  let data = null;
  try { data = await resp.json(); } catch { /* not JSON */ }
  if (!resp.ok) {
    const e = (data && data.error) || {};
    throw new ApiError(resp.status, e.code || 'error', e.message || `${method} ${path}: HTTP ${resp.status}`);
  }
  return data;
}

export const get = (path, query) => call('GET', path, {query});
export const post = (path, body, query) => call('POST', path, {body, query});
export const patch = (path, body, query) => call('PATCH', path, {body, query});
export const del = (path, query) => call('DELETE', path, {query});

// Links of the console's pages.
export const href = {
  memory: (a, id) => `#/memory?agent=${enc(a)}&id=${enc(id)}`,
  entity: (a, e, asOf) => `#/facts?agent=${enc(a)}&entity=${enc(e)}` + (asOf ? `&as_of=${enc(asOf)}` : ''),
  search: (a) => `#/search?agent=${enc(a)}`,
  changes: (a) => `#/changes?agent=${enc(a)}`,
};

function enc(s) { return encodeURIComponent(s); }
