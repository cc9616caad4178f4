// Lighthouse's audit of one category (accessibility unless "category"
// says another) of the server's pages, for TestLighthouse
// (lighthouse_test.go), or of the plugin's listing in a theme, for
// TestThemeLighthouse, whose "selectors" name its posts and its "more"
// control: one Chromium, one Lighthouse user flow, the pages in turn. A page with clicks, or in dark mode, is opened
// (in the dark colour scheme for dark), its "more" button clicked that
// many times, and the state the widget left audited as a snapshot; any
// other is audited as a navigation, with a new visitor's storage.
//
// Standard input: {"chromium": path, "flags": [...], "report": path,
// "category", "selectors": {"posts", "more"},
// "pages": [{"name", "url", "clicks", "dark"}]}. Standard output: a JSON
// array, one entry per page: its score, the page's state, the audits that
// did not pass and the seconds it took. The flow's HTML report is written
// to "report".
import {readFileSync, writeFileSync} from 'node:fs';
import {startFlow} from 'lighthouse';
import puppeteer from 'puppeteer-core';

const input = JSON.parse(readFileSync(0, 'utf8'));
const categoryID = input.category || 'accessibility';
const selectors = {posts: '#posts article.post', more: '#more', ...input.selectors};

// What the Go test checks of a page besides the score: that it is the
// page and state meant.
const pageState = (posts) => ({
  lang: document.documentElement.lang,
  dir: document.documentElement.dir,
  posts: document.querySelectorAll(posts).length,
  dark: matchMedia('(prefers-color-scheme: dark)').matches,
});

// The widget is idle when its control is back and enabled, or gone.
const widgetIdle = (more) => {
  const b = document.querySelector(more);
  return b === null || (!b.disabled && b.getAttribute('aria-busy') !== 'true' && b.getAttribute('aria-disabled') !== 'true');
};

async function clickMore(page) {
  const before = await page.evaluate(pageState, selectors.posts);
  await page.waitForSelector(selectors.more + ':not([disabled])');
  await page.click(selectors.more);
  await page.waitForFunction((posts, n) => document.querySelectorAll(posts).length > n, {timeout: 10000}, selectors.posts, before.posts);
  await page.waitForFunction(widgetIdle, {timeout: 10000}, selectors.more);
}

const browser = await puppeteer.launch({
  executablePath: input.chromium,
  headless: true,
  args: input.flags,
});
try {
  const page = await browser.newPage();
  const flow = await startFlow(page, {
    name: 'wploadmore ' + categoryID,
    config: {extends: 'lighthouse:default', settings: {onlyCategories: [categoryID]}},
  });
  const states = [];
  const seconds = [];
  for (const p of input.pages) {
    const start = performance.now();
    if (p.clicks > 0 || p.dark) {
      // A new visitor, as a navigation step's storage reset makes one:
      // the session of an earlier page would show more posts.
      await page.deleteCookie(...(await page.cookies(p.url)));
      await page.emulateMediaFeatures([{name: 'prefers-color-scheme', value: p.dark ? 'dark' : 'light'}]);
      await page.goto(p.url, {waitUntil: 'networkidle0'});
      for (let i = 0; i < p.clicks; i++) {
        await clickMore(page);
      }
      await flow.snapshot({name: p.name});
      states.push(await page.evaluate(pageState, selectors.posts));
      await page.emulateMediaFeatures([{name: 'prefers-color-scheme', value: 'light'}]);
    } else {
      await flow.navigate(p.url, {name: p.name});
      states.push(await page.evaluate(pageState, selectors.posts));
    }
    seconds.push(Math.round((performance.now() - start) / 100) / 10);
  }
  const result = await flow.createFlowResult();
  writeFileSync(input.report, await flow.generateReport());
  const out = result.steps.map((step, i) => {
    const lhr = step.lhr;
    const category = lhr.categories[categoryID];
    const failing = category.auditRefs
      .map((ref) => ({ref, audit: lhr.audits[ref.id]}))
      .filter(({audit}) => audit.score !== null && audit.score < 1)
      .map(({ref, audit}) => ({
        id: audit.id,
        title: audit.title,
        weight: ref.weight,
        items: (audit.details?.items ?? []).map((item) => [item.node?.snippet, item.node?.explanation].filter(Boolean).join(': ')),
      }));
    const passed = category.auditRefs.filter((ref) => lhr.audits[ref.id].score === 1).length;
    return {
      name: input.pages[i].name,
      url: lhr.finalDisplayedUrl,
      mode: lhr.gatherMode,
      score: category.score,
      runtimeError: lhr.runtimeError?.message ?? '',
      warnings: lhr.runWarnings,
      passed,
      failing,
      state: states[i],
      seconds: seconds[i],
    };
  });
  process.stdout.write(JSON.stringify(out));
} finally {
  await browser.close();
}
