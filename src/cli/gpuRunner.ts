/**
 * The CLI's GPU backend (Node only): serves the built page (`dist/page.js` and its chunks) from a
 * tiny HTTP server on 127.0.0.1 (a secure context, as WebGPU requires), opens it in headless
 * Chromium and runs the scene there. The scene travels as text over HTTP and the raw results
 * come back through `page.evaluate`.
 *
 * Loaded by src/cli/main.ts with a dynamic import, so `--backend cpu` never loads Puppeteer.
 *
 * @example
 * const raw = await runSceneInBrowser({ distDir: 'dist', sceneText, browser: undefined, progress: console.error });
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { PuppeteerMissingError, launchBrowser, type LaunchedBrowser } from '../node/browser.ts';
import type { PageOutcome } from './pageEntry.ts';
import type { GpuSceneRaw } from '../files/results.ts';

/** The GPU backend cannot run here (no browser, no WebGPU, no adapter); the message says how to fix it. */
export class GpuUnavailableError extends Error {
  override readonly name = 'GpuUnavailableError';
}

/** Options of {@link runSceneInBrowser}. */
export interface BrowserRunOptions {
  /** Folder holding page.js and its chunks (the package's dist/). */
  readonly distDir: string;
  /** The scene file's text (already validated by the caller). */
  readonly sceneText: string;
  /** Brute force, the BVH, or by set size (default). */
  readonly accel?: 'auto' | 'bvh' | 'brute';
  /** Chromium/Chrome executable; otherwise findBrowser's search (CHROME_PATH, …). */
  readonly browser?: string | undefined;
  /** SwiftShader or Chromium's default (a real GPU); default: env WEBGPU_OBB_ADAPTER, else SwiftShader. */
  readonly adapter?: 'swiftshader' | 'default' | undefined;
  readonly progress: (message: string) => void;
}

const FIX_HINT =
  'To use the GPU backend, install Chromium (Debian/Ubuntu: `apt-get install -y chromium`) or point ' +
  'CHROME_PATH (or --browser) at a Chromium/Chrome executable; `--backend cpu` runs without one.';

const NO_BROWSER_TAIL = '`--backend cpu` runs without a browser.';

const ADAPTER_HINT =
  'Chromium found no WebGPU adapter. By default it is asked for SwiftShader (its built-in CPU ' +
  'implementation); with WEBGPU_OBB_ADAPTER=default it needs a working Vulkan GPU driver. ' +
  'Check that the browser is a full Chromium/Chrome build with WebGPU (Debian: `apt-get install -y chromium`, ' +
  'then CHROME_PATH=/usr/bin/chromium); `--backend cpu` runs without a GPU.';

const PAGE_HTML =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>webgpu-obb</title>' +
  '<link rel="icon" href="data:,"></head><body><script type="module" src="./page.js"></script></body></html>';

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** Serves `/` (the page), `/scene.json` (from memory) and the .js files of `distDir`; nothing else. */
function startServer(distDir: string, sceneText: string): Promise<Server> {
  const root = normalize(distDir + sep);
  const server = createServer((req, res) => {
    const send = (status: number, type: string, body: string | Buffer): void => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(body);
    };
    if (req.method !== 'GET') {
      send(405, 'text/plain', 'GET only');
      return;
    }
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname);
    if (path === '/' || path === '/index.html') {
      send(200, 'text/html; charset=utf-8', PAGE_HTML);
      return;
    }
    if (path === '/scene.json') {
      send(200, 'application/json; charset=utf-8', sceneText);
      return;
    }
    const file = normalize(join(root, path));
    const type = TYPES[extname(file)];
    if (!file.startsWith(root) || type === undefined) {
      send(404, 'text/plain', 'not found');
      return;
    }
    readFile(file).then(
      (body) => send(200, type, body),
      () => send(404, 'text/plain', 'not found'),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

/**
 * Runs a scene on WebGPU in headless Chromium and returns the raw results.
 * Throws {@link GpuUnavailableError} when there is no browser, no WebGPU or no adapter.
 */
export async function runSceneInBrowser(options: BrowserRunOptions): Promise<GpuSceneRaw> {
  const { progress } = options;
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const server = await startServer(options.distDir, options.sceneText);
    cleanups.push(() => closeServer(server));
    const address = server.address();
    if (!address || typeof address === 'string') {
      throw new Error('the page server did not report a TCP address');
    }
    const url = `http://127.0.0.1:${address.port}/`;

    progress('launching Chromium…');
    let launched: LaunchedBrowser;
    try {
      launched = await launchBrowser({
        ...(options.browser === undefined ? {} : { browser: options.browser }),
        ...(options.adapter === undefined ? {} : { adapter: options.adapter }),
      });
    } catch (error) {
      if (error instanceof PuppeteerMissingError) {
        throw new GpuUnavailableError(error.message, { cause: error });
      }
      // findBrowser's message already says how to install one; add the rest of the hint only.
      const message = firstLine((error as Error).message);
      const hint = message.includes('apt-get install') ? NO_BROWSER_TAIL : FIX_HINT;
      throw new GpuUnavailableError(`${message} ${hint}`, { cause: error });
    }
    cleanups.push(() => launched.close());
    progress(`browser: ${launched.executablePath}`);

    const page = await launched.browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => {
      pageErrors.push(error instanceof Error ? error.message : String(error));
    });
    await page.exposeFunction('webgpuObbProgress', (message: string) => progress(message));
    await page.goto(url, { waitUntil: 'load' });
    try {
      await page.waitForFunction(() => typeof window.webgpuObbRunScene === 'function', { timeout: 60_000, polling: 50 });
    } catch (error) {
      throw new Error(
        `the GPU page at ${url} did not load (${pageErrors.join('; ') || firstLine((error as Error).message)}); ` +
          'is dist/ complete? run `npm run build`',
        { cause: error },
      );
    }

    const init = await page.evaluate(async () => {
      const f = window.webgpuObbInit;
      return f ? f() : null;
    });
    if (!init) {
      throw new Error('the GPU page published no webgpuObbInit; run `npm run build`');
    }
    if (!init.ok) {
      if (init.kind === 'error') {
        throw new Error(`WebGPU initialisation failed: ${init.name}: ${init.message}`);
      }
      throw new GpuUnavailableError(`${init.message} ${ADAPTER_HINT}`);
    }
    progress(`adapter: ${init.value.adapter}`);

    const outcome: PageOutcome<GpuSceneRaw> | null = await page.evaluate(async (accel) => {
      const f = window.webgpuObbRunScene;
      if (!f) {
        return null;
      }
      const response = await fetch('/scene.json');
      return f(await response.json(), accel);
    }, options.accel ?? 'auto');
    if (!outcome) {
      throw new Error('the GPU page published no webgpuObbRunScene; run `npm run build`');
    }
    if (!outcome.ok) {
      throw new Error(`GPU run failed: ${outcome.name}: ${outcome.message}`);
    }
    return outcome.value;
  } finally {
    while (cleanups.length > 0) {
      await cleanups.pop()?.().catch(() => {});
    }
  }
}
