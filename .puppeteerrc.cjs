// Never download a browser during `npm install`: tests and the CLI find an installed
// Chromium (CHROME_PATH / PUPPETEER_EXECUTABLE_PATH, Puppeteer's cache, /usr/bin/chromium).
/** @type {import('puppeteer').Configuration} */
module.exports = {
  skipDownload: true,
  chrome: { skipDownload: true },
  'chrome-headless-shell': { skipDownload: true },
  firefox: { skipDownload: true },
};
