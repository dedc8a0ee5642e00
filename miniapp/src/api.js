// Talks to the bot's server: /api/v1 is public, /app/api needs the Telegram initData.
export class ApiError extends Error {
  // `field`: the parameter or field the server could not read (its `param` or `field`), for
  // the page to word in the user's language.
  constructor(status, message, field = null) {
    super(message);
    this.status = status;
    this.field = field;
  }
}

let initData = '';

export function setInitData(value) {
  initData = value;
}

export function hasInitData() {
  return initData !== '';
}

async function request(method, path, { params, body, auth, signal } = {}) {
  let url = path;
  if (params) {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      if (value !== '' && value != null && value !== false) query.set(key, String(value));
    }
    const text = query.toString();
    if (text) url += `?${text}`;
  }
  const headers = {};
  if (auth) headers.Authorization = `tma ${initData}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    throw new ApiError(0, '');
  }
  if (response.status === 204) return null;
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = typeof data?.error === 'string' ? data.error : `HTTP ${response.status}`;
    const field = typeof data?.param === 'string' ? data.param : typeof data?.field === 'string' ? data.field : null;
    throw new ApiError(response.status, message, field);
  }
  return data;
}

export const api = {
  offers: (params, signal) => request('GET', '/api/v1/offers', { params, signal }),
  history: (gpu, signal) => request('GET', '/api/v1/history', { params: { gpu, days: 30 }, signal }),
  me: () => request('GET', '/app/api/me', { auth: true }),
  watches: () => request('GET', '/app/api/watches', { auth: true }),
  patchWatch: (id, body) =>
    request('PATCH', `/app/api/watches/${encodeURIComponent(id)}`, { auth: true, body }),
  deleteWatch: (id) => request('DELETE', `/app/api/watches/${encodeURIComponent(id)}`, { auth: true }),
  fit: (body) => request('POST', '/app/api/fit', { auth: true, body }),
};
