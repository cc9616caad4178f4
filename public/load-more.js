// load-more.js drives the "more" form of the page served at load-more.php.
//
// It keeps the behaviour of the original jQuery widget: the mustache template
// is fetched once; each click asks load-more.php for the next batch of posts
// and renders them with the same template the server used for the first ones.
// Every URL is relative to the page, so the widget works under any base path.
import Mustache from './vendor/mustache.mjs';
import { batchLabel, loaded, number, readWords } from './words.js';

// A request that hangs would leave the button busy forever.
const REQUEST_TIMEOUT_MS = 15000;

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
 * postID is the WordPress ID of a rendered post, or '' when the template
 * does not say it.
 * @param {Element | undefined} article
 * @returns {string}
 */
function postID(article) {
  if (!article) {
    return '';
  }
  const id = article.getAttribute('data-id') ?? article.id.replace(/^post-/, '');
  return /^[0-9]+$/.test(id) ? id : '';
}

/**
 * linksNext tells whether a Link header (RFC 8288) names a next batch. The
 * server sends one with every batch that has posts after it, so the widget
 * stops after the last batch without asking for an empty one.
 * @param {string | null} header
 * @returns {boolean}
 */
function linksNext(header) {
  return /<[^>]*>\s*;[^,]*\brel\s*=\s*"?next\b/i.test(header ?? '');
}

/**
 * feedKeys gives the feed the keys of the WAI-ARIA feed pattern: Page Down
 * and Page Up move the focus to the next and previous post.
 * @param {HTMLElement} posts
 */
function feedKeys(posts) {
  posts.addEventListener('keydown', (event) => {
    if ((event.key !== 'PageDown' && event.key !== 'PageUp') || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    const target = /** @type {Element} */ (event.target);
    const articles = [...posts.querySelectorAll('article.post')];
    // The focus is on a post or on its title's link: separators, the
    // feed's only other children, take none.
    const current = target.closest('article.post');
    const next = current && articles[articles.indexOf(current) + (event.key === 'PageDown' ? 1 : -1)];
    if (next instanceof HTMLElement) {
      event.preventDefault();
      next.focus();
    }
  });
}

/**
 * mount wires the widget found in doc. It does nothing when the page lacks
 * one of the elements, so the script is harmless on other pages.
 * @param {Document} doc
 */
function mount(doc) {
  const posts = doc.getElementById('posts');
  if (posts) {
    feedKeys(posts);
  }
  // The server leaves the form out when no post follows the ones shown.
  const widget = doc.getElementById('load-more');
  const button = doc.getElementById('more');
  const badge = doc.getElementById('posts-start');
  const status = doc.getElementById('status');
  if (!(widget instanceof HTMLFormElement) || !button || !posts || !badge || !status) {
    return;
  }
  const endpoint = widget.dataset.endpoint || 'load-more.php';
  const batch = positiveInt(widget.dataset.batch, 2);
  const reduceMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
  const countInput = widget.elements.namedItem('posts');
  const words = readWords(doc);

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
    announce(words.templateFailed, 'error');
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

  /** @returns {HTMLElement[]} the posts shown */
  function articles() {
    return [...posts.querySelectorAll('article.post')];
  }

  /**
   * follow points the form, used without JavaScript, and the address bar at
   * the page as it is now, so a reload or a later plain submit shows the
   * same posts: shown posts now, one batch more after the form.
   * @param {number} shown
   */
  function follow(shown) {
    if (countInput instanceof HTMLInputElement) {
      countInput.value = String(shown + batch);
    }
    // The next post's ID is unknown until it is fetched: land on the last one.
    const last = postID(articles().at(-1));
    const action = new URL(endpoint, doc.baseURI);
    action.hash = last ? `post-${last}` : '';
    widget.action = action.href;
    const here = new URL(doc.location.href);
    here.searchParams.set('posts', String(shown));
    here.hash = '';
    history.replaceState(history.state, '', here.href);
  }

  /**
   * show appends a separator and the rendered posts, updates the badge,
   * brings the separator into view and puts the focus on the batch's first
   * post, described by the separator, so screen readers read where the new
   * batch starts. The separator itself takes no focus: a feed owns only
   * articles (WAI-ARIA), and a focusable child of another kind breaks it.
   * @param {string} tpl
   * @param {Record<string, unknown>[]} data
   */
  function show(tpl, data) {
    const shown = articles().length;
    const holder = doc.createElement('template');
    holder.innerHTML = Mustache.render(tpl, {
      data: data.map((post, i) => ({ ...post, posinset: shown + i + 1, setsize: -1, eager: shown + i === 0 })),
      no_posts: words.noPosts,
      protected_excerpt: words.protectedExcerpt,
    });
    const separator = doc.createElement('div');
    separator.className = 'batch';
    separator.id = `batch-${shown + 1}`;
    separator.textContent = batchLabel(shown + 1, shown + data.length, words);
    // The server renders "No posts yet." into an empty list; it is stale now.
    posts.querySelectorAll('.no-posts').forEach((el) => el.remove());
    if (shown > 0) {
      posts.append(separator);
    }
    posts.append(holder.content);
    // The badge's text is grouped in the site's language ("1.234"); its
    // count travels as digits beside it.
    const count = positiveInt(badge.dataset.count ?? badge.textContent, 0) + data.length;
    badge.dataset.count = String(count);
    badge.textContent = number(count, words);
    announce(loaded(data.length, words));
    follow(shown + data.length);
    const first = articles()[shown];
    if (first) {
      if (separator.isConnected) {
        first.setAttribute('aria-describedby', separator.id);
      }
      first.focus({ preventScroll: true });
      (separator.isConnected ? separator : first).scrollIntoView({ behavior: reduceMotion.matches ? 'auto' : 'smooth', block: 'start' });
    }
  }

  /** ended tells the feed its size once no more posts come. */
  function ended() {
    const all = articles();
    all.forEach((a) => a.setAttribute('aria-setsize', String(all.length)));
  }

  async function more() {
    let tpl;
    try {
      tpl = await template;
    } catch {
      return; // already reported, and the widget is gone
    }
    const shown = articles();
    const url = new URL(endpoint, doc.baseURI);
    // The archive the page lists (category_name=news…) is in the form's
    // other fields, which the form sends without JavaScript too.
    for (const [name, value] of new FormData(widget)) {
      if (name !== 'posts' && typeof value === 'string') {
        url.searchParams.set(name, value);
      }
    }
    url.searchParams.set('start', String(shown.length));
    url.searchParams.set('desiredPosts', String(batch));
    // Lets the server continue after this post even when posts were
    // published or removed since the page was rendered.
    const last = postID(shown.at(-1));
    if (last) {
      url.searchParams.set('lastPost', last);
    }
    let data;
    let atEnd = false;
    try {
      const res = await get(url, { cache: 'no-store', headers: { Accept: 'application/json' } });
      data = await res.json();
      atEnd = !linksNext(res.headers.get('Link'));
      if (!Array.isArray(data)) {
        throw new Error(`GET ${url.pathname}: answer is not a list`);
      }
    } catch (err) {
      console.warn('load-more: request:', err);
      announce(words.requestFailed, 'error');
      reveal();
      return;
    }
    if (data.length === 0) {
      announce(words.noMore);
      widget.remove();
      ended();
      reveal();
      return;
    }
    show(tpl, data);
    if (atEnd) {
      announce(`${status.textContent} ${words.noMore}`);
      widget.remove();
      ended();
    }
  }

  // The form works without JavaScript (a GET of the page with one more
  // batch); with it, the batch is fetched as JSON and added in place.
  widget.addEventListener('submit', async (event) => {
    event.preventDefault();
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
