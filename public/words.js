// words.js is the widget's words: those the page carries in the site's
// language, and what the widget makes of them (the separators, the
// announcement of each number of posts), as the server makes the same.

/**
 * The widget's words in English, as the server's words table has them. The
 * page carries them in the site's language (see readWords); these stand in
 * for any it lacks, as on a page.html made before it carried them.
 * @typedef {{noMore: string, requestFailed: string, templateFailed: string,
 *   noPosts: string, post: string, posts: string, loaded: string[],
 *   loadedForm: number[], thousandsSep: string, protectedExcerpt: string}} Words
 * @type {Words}
 */
export const ENGLISH = {
  noMore: 'No more data',
  requestFailed: 'Loading more posts failed. Please try again.',
  templateFailed: 'Posts cannot be loaded right now: the post template is unavailable.',
  noPosts: 'No posts yet.',
  post: 'Post %s',
  posts: 'Posts %1$s to %2$s',
  // The announcement's plural forms; loadedForm[n - 1] is the one for n
  // posts, as WordPress's plural rule for the language picks it. With none
  // given, English's: the first for 1, the other for any other n.
  loaded: ['%s more post loaded.', '%s more posts loaded.'],
  loadedForm: [],
  thousandsSep: ',',
  // WordPress's words in place of a protected post's excerpt; '' leaves
  // the template's own.
  protectedExcerpt: '',
};

/**
 * readWords reads the words the server rendered into the page, in a
 * <script type="application/json" id="load-more-words"> element.
 * @param {Document} doc
 * @returns {Words}
 */
export function readWords(doc) {
  const text = doc.getElementById('load-more-words')?.textContent ?? '';
  if (text.trim() === '') {
    return ENGLISH;
  }
  try {
    return { ...ENGLISH, ...JSON.parse(text) };
  } catch (err) {
    console.warn('load-more: words:', err);
    return ENGLISH;
  }
}

/**
 * sprintf fills format's placeholders as PHP's sprintf fills those
 * translations use: %s and %d in turn, %1$s by position, %% as %.
 * @param {string} format
 * @param {...string} args
 * @returns {string}
 */
export function sprintf(format, ...args) {
  let next = 0;
  return format.replace(/%(?:([1-9][0-9]*)\$)?([sd%])/g, (_, position, conversion) => {
    if (conversion === '%') {
      return '%';
    }
    return (position ? args[Number(position) - 1] : args[next++]) ?? '';
  });
}

/**
 * number writes a whole number as WordPress's number_format_i18n() does:
 * digits in groups of three, split by the language's separator.
 * @param {number} n
 * @param {Words} words
 * @returns {string}
 */
export function number(n, words) {
  // A function, so that a $ in the separator is no replacement pattern.
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, () => words.thousandsSep);
}

/**
 * batchLabel is the text of the separator before posts from to to (from 1),
 * worded as the server words it.
 * @param {number} from
 * @param {number} to
 * @param {Words} words
 * @returns {string}
 */
export function batchLabel(from, to, words) {
  return from >= to ? sprintf(words.post, number(from, words)) : sprintf(words.posts, number(from, words), number(to, words));
}

/**
 * loaded is the announcement that n posts were added.
 * @param {number} n
 * @param {Words} words
 * @returns {string}
 */
export function loaded(n, words) {
  const form = words.loadedForm[n - 1] ?? (n === 1 ? 0 : words.loaded.length - 1);
  return sprintf(words.loaded[form] ?? words.loaded.at(-1) ?? '', number(n, words));
}
