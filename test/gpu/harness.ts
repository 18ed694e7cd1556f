/**
 * Node-side harness for GPU tests: serves test/gpu/page with Vite, opens it in headless Chromium
 * (src/node/browser.ts) and calls the suite functions the page publishes on `window.__suites`.
 *
 * One server and one browser per test file:
 * @example
 * let gpu: GpuPage;
 * beforeAll(async () => { gpu = await openGpuPage(); });
 * afterAll(async () => { await gpu?.close(); });
 * it('squares', async () => {
 *   const r = await gpu.call('adapter', 'square', 1000); // typed by the page's square()
 *   expect(r.mismatches).toBe(0);
 *   expect(gpu.consoleErrors).toEqual([]);
 * });
 */
import { fileURLToPath } from 'node:url';
import type { Page } from 'puppeteer';
import { createServer } from 'vite';
import type { ViteDevServer } from 'vite';
import { launchBrowser } from '../../src/node/browser.ts';
import type { LaunchOptions, LaunchedBrowser } from '../../src/node/browser.ts';
import type { PageApi, SuiteArgs, SuiteFunctionName, SuiteResult } from './page/globals.ts';
import type { TestPageApi } from './page/main.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const pageRoot = fileURLToPath(new URL('./page/', import.meta.url));

/** An open GPU test page, whose suites are `Api` (the test page's by default). */
export interface GpuPage<Api extends PageApi = TestPageApi> {
  page: Page;
  /** The page's address, e.g. `http://127.0.0.1:41234/`. */
  url: string;
  /** The browser executable and the flags it got (to say which adapter was asked for). */
  executablePath: string;
  browserArgs: string[];
  /**
   * Runs `window.__suites[suite][fn](...args)` in the page and returns its result (JSON only).
   * A throw in the page rejects with an Error carrying the page's message and stack. Suite,
   * function, arguments and result are typed by the page's module (`Api`).
   */
  call: GpuCall<Api>;
  /** Console errors, uncaught page errors, failed requests and unexpected reloads, in order. */
  consoleErrors: string[];
  /** Console warnings (Chromium reports uncaptured WebGPU errors here). */
  consoleWarnings: string[];
  /** Closes the browser and the server. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link openGpuPage}: those of `launchBrowser`, plus how long to wait for the page. */
export interface GpuPageOptions extends LaunchOptions {
  /** Milliseconds to wait for `window.__ready` (default 60 s). */
  readyTimeout?: number;
  /** Page folder to serve (default test/gpu/page; the benchmarks serve bench/page). */
  root?: string;
}

/** {@link GpuPage.call}: a page function by suite and name, typed by the page's module. */
export type GpuCall<Api extends PageApi> = <S extends keyof Api & string, F extends SuiteFunctionName<Api[S]>>(
  suite: S,
  fn: F,
  ...args: SuiteArgs<Api[S], F>
) => Promise<SuiteResult<Api[S], F>>;

type CallOutcome =
  | { ok: true; value: unknown }
  | { ok: false; name: string; message: string; stack: string };

/**
 * Starts a Vite server on 127.0.0.1 (a secure context, as WebGPU requires) for test/gpu/page,
 * launches Chromium, opens the page and waits until every suite module has loaded. A page other
 * than the test page (`root`) names its API: `openGpuPage<BenchPageApi>({ root })`.
 */
export async function openGpuPage<Api extends PageApi = TestPageApi>(options: GpuPageOptions = {}): Promise<GpuPage<Api>> {
  const { readyTimeout = 60_000, root = pageRoot, ...launchOptions } = options;
  const cleanups: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    while (cleanups.length > 0) {
      await cleanups.pop()?.().catch(() => {});
    }
  };
  try {
    const server = await startServer(root);
    cleanups.push(() => server.close());
    const address = server.httpServer?.address();
    if (!address || typeof address === 'string') {
      throw new Error('Vite dev server did not report a TCP address');
    }
    const url = `http://127.0.0.1:${address.port}/`;

    const launched: LaunchedBrowser = await launchBrowser(launchOptions);
    cleanups.push(() => launched.close());
    const page = await launched.browser.newPage();

    const consoleErrors: string[] = [];
    const consoleWarnings: string[] = [];
    let ready = false;
    let failLoad: ((error: Error) => void) | undefined;
    const loadFailed = new Promise<never>((_, reject) => {
      failLoad = reject;
    });
    loadFailed.catch(() => {});

    page.on('console', (message) => {
      const location = message.location();
      const where = location.url ? ` (${location.url}:${location.lineNumber ?? '?'})` : '';
      if (message.type() === 'error') {
        consoleErrors.push(`console.error: ${message.text()}${where}`);
      } else if (message.type() === 'warn') {
        consoleWarnings.push(`console.warn: ${message.text()}${where}`);
      }
    });
    page.on('pageerror', (error) => {
      const text = `page error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
      consoleErrors.push(text);
      if (!ready) {
        failLoad?.(new Error(text));
      }
    });
    page.on('requestfailed', (request) => {
      consoleErrors.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) {
        consoleErrors.push(`HTTP ${response.status()}: ${response.url()}`);
      }
    });
    page.on('framenavigated', (frame) => {
      // A reload (e.g. Vite re-optimising dependencies) would drop the suites mid-test.
      if (ready && frame === page.mainFrame()) {
        consoleErrors.push(`page navigated unexpectedly to ${frame.url()}`);
      }
    });

    await page.goto(url, { waitUntil: 'load' });
    try {
      await Promise.race([
        page.waitForFunction(() => window.__ready === true, { timeout: readyTimeout, polling: 100 }),
        loadFailed,
      ]);
    } catch (error) {
      throw new Error(
        `GPU test page at ${url} did not become ready: ${(error as Error).message}` +
          (consoleErrors.length > 0 ? `\n${consoleErrors.join('\n')}` : ''),
        { cause: error },
      );
    }
    ready = true;

    const call = async (suite: string, fn: string, ...args: unknown[]): Promise<unknown> => {
      const outcome = await page.evaluate(
        async (suiteName: string, fnName: string, fnArgs: unknown[]): Promise<CallOutcome> => {
          try {
            const target = window.__suites?.[suiteName];
            if (!target) {
              throw new Error(
                `no suite '${suiteName}' (have: ${Object.keys(window.__suites ?? {}).join(', ')})`,
              );
            }
            const f = target[fnName];
            if (typeof f !== 'function') {
              throw new Error(`suite '${suiteName}' exports no function '${fnName}'`);
            }
            return { ok: true, value: await (f as (...a: unknown[]) => unknown)(...fnArgs) };
          } catch (e) {
            const error = e instanceof Error ? e : new Error(String(e));
            return { ok: false, name: error.name, message: error.message, stack: error.stack ?? '' };
          }
        },
        suite,
        fn,
        args,
      );
      if (!outcome.ok) {
        const error = new Error(`${suite}.${fn}: ${outcome.message}`);
        error.name = outcome.name;
        error.stack = `${error.name}: ${error.message}\n  --- in the page ---\n${outcome.stack}`;
        throw error;
      }
      return outcome.value;
    };

    return {
      page,
      url,
      executablePath: launched.executablePath,
      browserArgs: launched.args,
      // The page checked `fn` exists at run time; the types come from the page's module.
      call: call as GpuCall<Api>,
      consoleErrors,
      consoleWarnings,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function startServer(root: string): Promise<ViteDevServer> {
  const server = await createServer({
    configFile: false,
    root,
    // Keep this server's dependency cache apart from Vitest's own.
    cacheDir: `${repoRoot}node_modules/.vite/gpu-page`,
    logLevel: 'warn',
    clearScreen: false,
    appType: 'mpa',
    server: {
      host: '127.0.0.1',
      port: 0,
      strictPort: false,
      // Suites import /src and /shaders from the repository, outside the page root.
      fs: { allow: [repoRoot], strict: true },
      hmr: false,
      watch: null,
    },
    // No discovery-triggered re-optimisation: it reloads the page, which would drop the suites
    // in the middle of a test. ESM dependencies are served as they are.
    optimizeDeps: { noDiscovery: true, include: [] },
  });
  await server.listen();
  return server;
}
