// Drives Debian's Chromium (headless, through playwright-core) for tests/process/browser.rs.
//
//   node drive.mjs setup   SERVER_URL TOKEN SHOTS_DIR
//     The setup flow as an operator clicks it: sign in with the status token, name the
//     App, choose the organization, create it on (fake) GitHub, install it, and read the
//     status page until the repository's graph is there; at a desktop and a phone width.
//   node drive.mjs status  SERVER_URL TOKEN SHOTS_DIR
//     The status page on a phone (390 px wide), signed in through its form: its text, the
//     links to pull requests, whether anything runs or overflows the width.
//   node drive.mjs render  HTML_FILE PNG_FILE
//     A page (a comment rendered as GitHub shows it) to a PNG of its `#comment` element.
//
// Prints one JSON line of what it saw; the Rust test asserts on it and on the database.

import { chromium } from 'playwright-core';

const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const [command, ...args] = process.argv.slice(2);

const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-proxy-server'],
});
try {
  if (command === 'setup') {
    console.log(JSON.stringify(await setup(...args)));
  } else if (command === 'status') {
    console.log(JSON.stringify(await status(...args)));
  } else if (command === 'render') {
    console.log(JSON.stringify(await render(...args)));
  } else {
    throw new Error(`unknown command ${command}`);
  }
} finally {
  await browser.close();
}

async function setup(server, token, shots) {
  const seen = {};
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  const shot = async (name) => page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });

  await page.goto(`${server}/setup`);
  seen.loginStatus = (await page.request.get(`${server}/setup`)).status();
  await shot('1-sign-in');
  await page.fill('input[name=token]', token);
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  seen.afterSignIn = new URL(page.url()).pathname;
  await page.fill('#name', 'Blast Radius (acme)');
  await page.fill('#org', 'acme');
  await shot('2-choose');
  await Promise.all([page.waitForNavigation(), page.click('#continue')]);
  seen.confirm = await page.textContent('body');
  await shot('3-confirm');
  // Posts the manifest to GitHub, which sends us back to /setup/callback, which sends
  // us on to the App's install page.
  await Promise.all([page.waitForNavigation({ url: /installations\/new/ }), page.click('#create')]);
  seen.installPage = page.url();
  await shot('4-install');
  await Promise.all([page.waitForNavigation(), page.click('#install')]);
  seen.afterInstall = new URL(page.url()).pathname;
  // The status page: the installation's repository appears once its graph is stored.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const text = await page.textContent('body');
    if (/acme\/web/.test(text) && /installation/.test(text) && !/not indexed/.test(text)) {
      seen.status = text;
      break;
    }
    if (Date.now() > deadline) throw new Error(`the status page never showed acme/web:\n${text}`);
    await page.waitForTimeout(500);
    await page.reload();
  }
  await shot('5-status');
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    storageState: await context.storageState(),
  });
  const small = await phone.newPage();
  await small.goto(`${server}/`);
  seen.phoneOverflow = await small.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  // Rows become cards: the header row hides, each cell leads with its column's name.
  seen.phoneCards = await small.evaluate(() =>
    [...document.querySelectorAll('thead')].every((t) => getComputedStyle(t).display === 'none') &&
    [...document.querySelectorAll('td')].every(
      (td) => getComputedStyle(td, '::before').content === JSON.stringify(td.dataset.label),
    ),
  );
  await small.screenshot({ path: `${shots}/6-status-phone.png`, fullPage: true });
  return seen;
}

async function status(server, token, shots) {
  const seen = { dialogs: 0 };
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
  });
  const page = await phone.newPage();
  // Anything a stored name or title could make run would open a dialog.
  page.on('dialog', async (dialog) => {
    seen.dialogs += 1;
    await dialog.dismiss();
  });
  await page.goto(`${server}/`);
  await page.fill('input[name=token]', token);
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  seen.text = await page.textContent('body');
  seen.headings = await page.$$eval('h2', (hs) => hs.map((h) => h.textContent));
  seen.prLinks = await page.$$eval('#analyses ~ table a[href*="/pull/"]', (as) =>
    as.map((a) => a.getAttribute('href')),
  );
  seen.injected = await page.evaluate(
    () => document.querySelectorAll('body script, body img, body iframe').length,
  );
  seen.overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  // Each card fits the width: no cell reaches past the viewport's right edge.
  seen.widest = await page.evaluate(() =>
    Math.max(...[...document.querySelectorAll('td, p, h1, h2')].map((e) => e.getBoundingClientRect().right)),
  );
  await page.screenshot({ path: `${shots}/7-status-work-phone.png`, fullPage: true });
  return seen;
}

async function render(htmlFile, pngFile) {
  const page = await browser.newPage({ viewport: { width: 900, height: 600 }, deviceScaleFactor: 2 });
  await page.goto(`file://${htmlFile}`);
  const comment = await page.$('#comment');
  await comment.screenshot({ path: pngFile });
  const box = await comment.boundingBox();
  return { width: box.width, height: box.height, text: await comment.textContent() };
}
