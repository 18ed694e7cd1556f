/**
 * Node-side helper for the page tests (the demo, the three.js example): builds an app with its
 * own Vite config into test/artifacts/NAME-build, serves the build with `vite preview` on
 * 127.0.0.1 (a secure context), opens it in headless Chromium with the flags a WebGPU canvas
 * needs to show in screenshots (launchBrowser({ canvas: true })), and waits for the app's hook
 * (`window.__demo`, `window.__example`, `window.__gpuInstances`) to say ready. Console errors, page errors, failed
 * requests and GPU-looking warnings are collected for the test to assert on.
 */
import { fileURLToPath } from 'node:url';
import type { Page } from 'puppeteer';
import { build, preview, type PreviewServer } from 'vite';
import { launchBrowser, type LaunchedBrowser } from '../../src/node/browser.ts';
import type {} from '../../demo/app.ts';
import type {} from '../../examples/three-picking/main.ts';
import type {} from '../../examples/three-gpu-instances/main.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const ARTIFACTS = `${repoRoot}test/artifacts/`;

export interface DemoPage {
  page: Page;
  url: string;
  consoleErrors: string[];
  consoleWarnings: string[];
  close(): Promise<void>;
}

export interface PageOptions {
  width?: number;
  height?: number;
  readyTimeout?: number;
  /** Query string of the page, without `?`. */
  query?: string;
}

/** The demo (demo/vite.config.ts), ready when `window.__demo.ready`. */
export function openDemo(options: PageOptions = {}): Promise<DemoPage> {
  return openApp('demo', `${repoRoot}demo/vite.config.ts`, '__demo', options);
}

/** The three.js picking example (examples/three-picking/), ready when `window.__example.ready`. */
export function openThreeExample(options: PageOptions = {}): Promise<DemoPage> {
  return openApp('three-picking', `${repoRoot}examples/three-picking/vite.config.ts`, '__example', options);
}

/** The three.js storage-instancing example (examples/three-gpu-instances/), ready when `window.__gpuInstances.ready`. */
export function openThreeGpuInstances(options: PageOptions = {}): Promise<DemoPage> {
  return openApp('three-gpu-instances', `${repoRoot}examples/three-gpu-instances/vite.config.ts`, '__gpuInstances', options);
}

async function openApp(name: string, configFile: string, hook: '__demo' | '__example' | '__gpuInstances', options: PageOptions): Promise<DemoPage> {
  const { width = 1280, height = 720, readyTimeout = 120_000, query } = options;
  const cleanups: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    while (cleanups.length > 0) {
      await cleanups.pop()?.().catch(() => {});
    }
  };
  try {
    const outDir = `${ARTIFACTS}${name}-build`;
    await build({ configFile, logLevel: 'warn', build: { outDir, emptyOutDir: true, sourcemap: false } });
    const server: PreviewServer = await preview({
      configFile, logLevel: 'warn', build: { outDir },
      preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
    });
    cleanups.push(() => server.close());
    const address = server.httpServer.address();
    if (!address || typeof address === 'string') {
      throw new Error('vite preview did not report a TCP address');
    }
    const url = `http://127.0.0.1:${address.port}/${query === undefined ? '' : `?${query}`}`;

    const launched: LaunchedBrowser = await launchBrowser({ canvas: true });
    cleanups.push(() => launched.close());
    const page = await launched.browser.newPage();
    await page.setViewport({ width, height, deviceScaleFactor: 1 });
    const consoleErrors: string[] = [];
    const consoleWarnings: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') {
        consoleErrors.push(`console.error: ${message.text()}`);
      } else if (message.type() === 'warn') {
        consoleWarnings.push(`console.warn: ${message.text()}`);
      }
    });
    page.on('pageerror', (error) => {
      consoleErrors.push(`page error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    });
    page.on('requestfailed', (request) => {
      consoleErrors.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ''}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) {
        consoleErrors.push(`HTTP ${response.status()}: ${response.url()}`);
      }
    });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction((h: typeof hook) => window[h]?.ready === true || (window[h]?.error ?? null) !== null, { timeout: readyTimeout, polling: 200 }, hook);
    const error = await page.evaluate((h: typeof hook) => window[h]?.error ?? null, hook);
    if (error !== null) {
      throw new Error(`${name} did not start: ${error}\n${consoleErrors.join('\n')}`);
    }
    return { page, url, consoleErrors, consoleWarnings, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Pixel statistics of a PNG, decoded in the page (createImageBitmap + a 2D canvas). */
export interface PixelStats {
  width: number;
  height: number;
  /** Distinct colours after quantising each channel to 4 bits. */
  distinct: number;
  /** Fraction of pixels that differ from the clear colour by more than 12 per channel. */
  nonBackground: number;
}

export async function pixelStats(page: Page, png: Uint8Array, background: readonly [number, number, number]): Promise<PixelStats> {
  const base64 = Buffer.from(png).toString('base64');
  return page.evaluate(async (data: string, bg: readonly number[]) => {
    const blob = await (await fetch(`data:image/png;base64,${data}`)).blob();
    const bitmap = await createImageBitmap(blob);
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const g = canvas.getContext('2d')!;
    g.drawImage(bitmap, 0, 0);
    const px = g.getImageData(0, 0, bitmap.width, bitmap.height).data;
    const colours = new Set<number>();
    let other = 0;
    for (let i = 0; i < px.length; i += 4) {
      const r = px[i]!, gg = px[i + 1]!, b = px[i + 2]!;
      colours.add(((r >> 4) << 8) | ((gg >> 4) << 4) | (b >> 4));
      if (Math.abs(r - bg[0]!) > 12 || Math.abs(gg - bg[1]!) > 12 || Math.abs(b - bg[2]!) > 12) {
        other++;
      }
    }
    return { width: bitmap.width, height: bitmap.height, distinct: colours.size, nonBackground: other / (px.length / 4) };
  }, base64, background);
}
