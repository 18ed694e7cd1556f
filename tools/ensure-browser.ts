/**
 * `npm test`'s first step: finds the Chromium the GPU tests drive (the same search as the tests:
 * CHROME_PATH, PUPPETEER_EXECUTABLE_PATH, Puppeteer's cache, the system's Chromium or Chrome) and,
 * when there is none, gets one, saying in one line what it does: Debian's `chromium` package when
 * running as root where apt-get exists, else Puppeteer's own `browsers install` (where its
 * download host is reachable). Fails with what to do when neither works; never downloads when a
 * browser is already there.
 *
 *   node bench/node-run.mjs tools/ensure-browser.ts
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findBrowser } from '../src/node/browser.ts';

const root = fileURLToPath(new URL('../', import.meta.url));

function found(): string | undefined {
  try {
    return findBrowser();
  } catch (error) {
    if (process.env['CHROME_PATH'] || process.env['PUPPETEER_EXECUTABLE_PATH']) {
      throw error; // a browser named by the environment that is not there: say so, do not install
    }
    return undefined;
  }
}

function run(command: string, args: readonly string[]): boolean {
  return spawnSync(command, args, { stdio: 'inherit', cwd: root, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
}

export function main(): void {
  let browser = found();
  if (!browser) {
    const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    if (isRoot && existsSync('/usr/bin/apt-get')) {
      console.log('No Chromium found for the GPU tests: installing Debian\'s chromium package (apt-get install -y chromium).');
      if (!(run('apt-get', ['update']) && run('apt-get', ['install', '-y', 'chromium']))) {
        throw new Error('apt-get could not install chromium; install a Chromium and set CHROME_PATH');
      }
    } else {
      console.log('No Chromium found for the GPU tests: installing Puppeteer\'s Chrome (npx puppeteer browsers install chrome).');
      if (!run('npx', ['puppeteer', 'browsers', 'install', 'chrome'])) {
        throw new Error('Puppeteer could not download Chrome; install a Chromium (Debian/Ubuntu: apt-get install -y chromium) and set CHROME_PATH');
      }
    }
    browser = found();
    if (!browser) {
      throw new Error('still no browser after installing one; set CHROME_PATH to a Chromium/Chrome executable');
    }
  }
  let version = 'version unknown';
  try {
    version = execFileSync(browser, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // The Debian wrapper prints noise on some machines; the path is what matters.
  }
  console.log(`GPU tests browser: ${browser} (${version})`);
}
