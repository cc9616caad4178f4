// load-more.js drives the "more" button of the page served at load-more.php.
//
// It keeps the behaviour of the original jQuery widget: the mustache template
// is fetched once; each click asks load-more.php for the next batch of posts
// and renders them with the same template the server used for the first ones.
// Every URL is relative to the page, so the widget works under any base path.
import Mustache from './vendor/mustache.mjs';

// A request that hangs would leave the button busy forever.
const REQUEST_TIMEOUT_MS = 15000;

const MESSAGES = {
  templateFailed: 'Posts cannot be loaded right now: the post template is unavailable.',
  requestFailed: 'Loading more posts failed. Please try again.',
  noMore: 'No more data',
};

/**
 * positiveInt reads a data- attribute as a positive integer.
 * @param {string | undefined} value
 * @param {number} fallback used when value is missing or not positive
 * @returns {number}
 */
function positiveInt(value, fallback) {
  const n = Number.parseInt(value ?? '', 10);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/**
 * get fetches url and returns the response, failing on a network error, a
 * timeout or any non-2xx answer.
 * @param {URL} url
 * @param {RequestInit} init
 * @returns {Promise<Response>}
 */
async function get(url, init) {
  const res = await fetch(url, {
    credentials: 'same-origin',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    ...init,
  });
  if (!res.ok) {
    throw new Error(`GET ${url.pathname}: HTTP ${res.status}`);
  }
  return res;
}

/**
 * mount wires the widget found in doc. It does nothing when the page lacks
 * one of the elements, so the script is harmless on other pages.
 * @param {Document} doc
 */
function mount(doc) {
  const widget = doc.getElementById('load-more');
  const button = doc.getElementById('more');
  const posts = doc.getElementById('posts');
  const badge = doc.getElementById('posts-start');
  const status = doc.getElementById('status');
  if (!widget || !button || !posts || !badge || !status) {
    return;
  }
  const endpoint = widget.dataset.endpoint || 'load-more.php';
  const batch = positiveInt(widget.dataset.batch, 2);
  const reduceMotion = window.matchMedia('(prefers-reduced-motion: reduce)');

  /**
   * announce shows msg in the live region, which screen readers read out.
   * Clearing first makes a repeated message be announced again.
   * @param {string} msg
   * @param {'info' | 'error'} kind
   */
  function announce(msg, kind = 'info') {
    status.textContent = '';
    status.dataset.kind = kind;
    status.textContent = msg;
  }

  /** reveal scrolls the status into view for sighted users. */
  function reveal() {
    status.scrollIntoView({ behavior: reduceMotion.matches ? 'auto' : 'smooth', block: 'nearest' });
  }

  // Fetched once, as soon as the page runs, and kept for every click.
  const template = get(new URL(widget.dataset.template || 'load-more.mustache', doc.baseURI), {})
    .then((res) => res.text())
    .then((text) => {
      Mustache.parse(text);
      return text;
    });
  template.catch((err) => {
    console.warn('load-more: template:', err);
    announce(MESSAGES.templateFailed, 'error');
    widget.remove();
    reveal();
  });

  let busy = false;

  /** @param {boolean} on */
  function setBusy(on) {
    busy = on;
    button.disabled = on;
    button.setAttribute('aria-busy', String(on));
    posts.setAttribute('aria-busy', String(on));
  }

  /**
   * show appends the rendered posts, updates the badge and brings the first
   * new post into view with the focus on it.
   * @param {string} tpl
   * @param {unknown[]} data
   */
  function show(tpl, data) {
    const holder = doc.createElement('template');
    holder.innerHTML = Mustache.render(tpl, { data });
    const first = holder.content.querySelector('article.post');
    // The server renders "No posts yet." into an empty list; it is stale now.
    posts.querySelectorAll('.no-posts').forEach((el) => el.remove());
    posts.append(holder.content);
    badge.textContent = String(positiveInt(badge.textContent, 0) + data.length);
    announce(data.length === 1 ? '1 more post loaded.' : `${data.length} more posts loaded.`);
    if (first) {
      first.tabIndex = -1;
      first.focus({ preventScroll: true });
      first.scrollIntoView({ behavior: reduceMotion.matches ? 'auto' : 'smooth', block: 'start' });
    }
  }

  async function more() {
    let tpl;
    try {
      tpl = await template;
    } catch {
      return; // already reported, and the widget is gone
    }
    const url = new URL(endpoint, doc.baseURI);
    url.searchParams.set('start', String(posts.querySelectorAll('article.post').length));
    url.searchParams.set('desiredPosts', String(batch));
    let data;
    try {
      const res = await get(url, { cache: 'no-store', headers: { Accept: 'application/json' } });
      data = await res.json();
      if (!Array.isArray(data)) {
        throw new Error(`GET ${url.pathname}: answer is not a list`);
      }
    } catch (err) {
      console.warn('load-more: request:', err);
      announce(MESSAGES.requestFailed, 'error');
      reveal();
      return;
    }
    if (data.length === 0) {
      announce(MESSAGES.noMore);
      button.remove();
      reveal();
      return;
    }
    show(tpl, data);
  }

  button.addEventListener('click', async () => {
    if (busy) {
      return;
    }
    setBusy(true);
    status.textContent = '';
    try {
      await more();
    } finally {
      setBusy(false);
      // Keep keyboard users on the button when it stays and nothing else took the focus.
      if (button.isConnected && (doc.activeElement === null || doc.activeElement === doc.body)) {
        button.focus();
      }
    }
  });
}

mount(document);
