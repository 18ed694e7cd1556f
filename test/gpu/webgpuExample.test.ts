/**
 * The plain-WebGPU picking example (examples/webgpu-picking/), built with its own Vite config and
 * driven in headless Chromium with a WebGPU canvas (SwiftShader here), as a user would run it:
 * - it starts on its own device without console or WebGPU errors and draws the boxes (pixel
 *   statistics of a screenshot, to test/artifacts/webgpu-picking.png);
 * - hovering a known box (the float64 reference's closest hit under a 9 × 9 pixel patch) turns
 *   that patch amber: the render pass read the pick from the GPU hit buffer; moving onto the
 *   background turns it back;
 * - a click reads the hit back once (screenshot to test/artifacts/webgpu-picking-picked.png), and
 *   the HUD names the reference's box with its t and face normal; every click's pick is judged
 *   by compareClosestHits (webgpu-obb/judge's comparator, imported from its source) with zero
 *   mismatch;
 * - no readback per frame: GPUBuffer.prototype.mapAsync is wrapped before the page loads, and
 *   30 hovered frames (each casting the mouse ray) make no call, while N clicks make N.
 * The page is built and served here (vite build + vite preview on 127.0.0.1, as
 * test/gpu/demoPage.ts does for the demo and the three.js example) so that the mapAsync wrapper
 * can be installed before the page's own scripts run.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'puppeteer';
import { build, preview } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAY_F64, type BoxArray, type RayArray } from '../../src/core/types.ts';
import { boxAt } from '../../src/core/canonical.ts';
import { closestHit, faceNormal } from '../../src/reference/index.ts';
// The source of the `webgpu-obb/judge` entry.
import { compareClosestHits, formatComparison } from '../../src/judge/index.ts';
import { launchBrowser } from '../../src/node/browser.ts';
import type { ClickPick } from '../../examples/webgpu-picking/main.ts';
import { ARTIFACTS, pixelStats } from './demoPage.ts';

declare global {
  interface Window {
    /** Calls of GPUBuffer.prototype.mapAsync in the page, counted by the wrapper installed below. */
    __mapAsyncCalls?: number;
  }
}

const COUNT = 4000;
const WIDTH = 960, HEIGHT = 600;
const BACKGROUND = [14, 17, 22] as const; // the render pass's clear colour, 0x0e1116
const PATCH = 4; // the hovered patch: (2 PATCH + 1)² pixels around the cursor
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const configFile = `${repoRoot}examples/webgpu-picking/vite.config.ts`;

let page: Page;
const consoleErrors: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
let boxes: BoxArray;
let origin: [number, number, number];

beforeAll(async () => {
  const outDir = `${ARTIFACTS}webgpu-picking-build`;
  await build({ configFile, logLevel: 'warn', build: { outDir, emptyOutDir: true, sourcemap: false } });
  const server = await preview({ configFile, logLevel: 'warn', build: { outDir }, preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false } });
  cleanups.push(() => server.close());
  const address = server.httpServer.address();
  if (!address || typeof address === 'string') {
    throw new Error('vite preview did not report a TCP address');
  }
  const launched = await launchBrowser({ canvas: true });
  cleanups.push(() => launched.close());
  page = await launched.browser.newPage();
  await page.setViewport({ width: WIDTH, height: HEIGHT, deviceScaleFactor: 1 });
  page.on('console', (m) => {
    if (m.type() === 'error') {
      consoleErrors.push(`console.error: ${m.text()}`);
    }
  });
  page.on('pageerror', (e) => consoleErrors.push(`page error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`));
  page.on('requestfailed', (r) => consoleErrors.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  // Every readback in WebGPU goes through mapAsync: count them all, the library's included.
  await page.evaluateOnNewDocument(() => {
    window.__mapAsyncCalls = 0;
    if (typeof GPUBuffer !== 'undefined') {
      const mapAsync = GPUBuffer.prototype.mapAsync;
      GPUBuffer.prototype.mapAsync = function (this: GPUBuffer, ...args: Parameters<GPUBuffer['mapAsync']>) {
        window.__mapAsyncCalls = (window.__mapAsyncCalls ?? 0) + 1;
        return mapAsync.apply(this, args);
      };
    }
  });
  await page.goto(`http://127.0.0.1:${address.port}/?n=${COUNT}`, { waitUntil: 'load' });
  await page.waitForFunction(() => window.__webgpuPicking?.ready === true || window.__webgpuPicking?.error !== undefined, { timeout: 240_000, polling: 200 });
  const error = await page.evaluate(() => window.__webgpuPicking!.error ?? null);
  if (error !== null) {
    throw new Error(`the example did not start: ${error}\n${consoleErrors.join('\n')}`);
  }
  const scene = await page.evaluate(() => ({ data: window.__webgpuPicking!.boxes(), origin: window.__webgpuPicking!.origin }));
  boxes = { count: scene.data.length / 15, data: Float64Array.from(scene.data) };
  origin = scene.origin;
  await settled();
}, 300_000);
afterAll(async () => {
  while (cleanups.length > 0) {
    await cleanups.pop()?.().catch(() => {});
  }
});

const counters = (): Promise<{ frames: number; casts: number; readbacks: number; mapAsync: number }> => page.evaluate(() => {
  const h = window.__webgpuPicking!;
  return { frames: h.frames, casts: h.casts, readbacks: h.readbacks, mapAsync: window.__mapAsyncCalls ?? -1 };
});

/** Waits until no frame is pending or in flight, then two animation frames (the canvas is presented). */
async function settled(): Promise<void> {
  await page.waitForFunction(() => window.__webgpuPicking!.idle, { timeout: 120_000, polling: 20 });
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

/** Moves the mouse and waits for the frame that it caused to be drawn. */
async function hover(x: number, y: number): Promise<void> {
  const before = (await counters()).frames;
  await page.mouse.move(x, y);
  await page.waitForFunction((f: number) => window.__webgpuPicking!.frames > f, { timeout: 120_000, polling: 20 }, before);
  await settled();
}

/** RGBA of the (2 PATCH + 1)² pixels around (x, y), from a screenshot of the page. */
async function patch(x: number, y: number): Promise<number[][]> {
  const png = await page.screenshot({ type: 'png', clip: { x: x - PATCH, y: y - PATCH, width: 2 * PATCH + 1, height: 2 * PATCH + 1 } });
  const base64 = Buffer.from(png).toString('base64');
  return page.evaluate(async (data: string) => {
    const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${data}`)).blob());
    const g = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d')!;
    g.drawImage(bitmap, 0, 0);
    const px = g.getImageData(0, 0, bitmap.width, bitmap.height).data;
    return Array.from({ length: px.length / 4 }, (_, i) => [px[4 * i]!, px[4 * i + 1]!, px[4 * i + 2]!]);
  }, base64);
}

/** The rays the page casts at these pixels (rayFromScreen with its camera), as one RayArray. */
async function raysAt(points: readonly (readonly [number, number])[]): Promise<RayArray> {
  const data = await page.evaluate((ps: [number, number][]) => ps.flatMap(([x, y]) => window.__webgpuPicking!.rayAt(x, y)), points.map(([x, y]) => [x, y] as [number, number]));
  return { count: points.length, data: Float64Array.from(data) };
}

/** A pixel whose whole patch the reference says shows one box's face (not the ray's start inside it). */
async function knownBox(): Promise<{ x: number; y: number; box: number }> {
  for (const [fx, fy] of [[0.5, 0.55], [0.45, 0.6], [0.55, 0.5], [0.4, 0.5], [0.6, 0.6], [0.5, 0.7], [0.35, 0.65], [0.65, 0.45]] as const) {
    const x = Math.round(WIDTH * fx), y = Math.round(HEIGHT * fy);
    const points: [number, number][] = [];
    for (let dy = -PATCH; dy <= PATCH; dy++) {
      for (let dx = -PATCH; dx <= PATCH; dx++) {
        points.push([x + dx, y + dy]);
      }
    }
    const ref = closestHit(boxes, await raysAt(points));
    const box = ref.box[0]!;
    if (box >= 0 && ref.box.every((b) => b === box) && ref.inside.every((i) => i === 0)) {
      return { x, y, box };
    }
  }
  throw new Error('no 9 × 9 patch near the centre shows a single box');
}

describe('the plain-WebGPU picking example', () => {
  const clicks: ClickPick[] = [];
  let known: { x: number; y: number; box: number };

  it(`starts with ${COUNT.toLocaleString('en-US')} boxes on its own device and draws them (screenshot to test/artifacts/webgpu-picking.png)`, async () => {
    const { count, adapter } = await page.evaluate(() => ({ count: window.__webgpuPicking!.count, adapter: window.__webgpuPicking!.adapter }));
    console.log(`webgpu-picking: ${count} boxes on ${adapter}`);
    expect(count).toBe(COUNT);
    expect(boxes.count).toBe(COUNT);
    await writeFile(`${ARTIFACTS}webgpu-picking.png`, await page.screenshot({ type: 'png' }));
    const middle = await page.screenshot({ type: 'png', clip: { x: WIDTH / 4, y: HEIGHT / 4, width: WIDTH / 2, height: HEIGHT / 2 } });
    const s = await pixelStats(page, middle, BACKGROUND);
    console.log(`pixels: ${s.distinct} distinct colours, ${(s.nonBackground * 100).toFixed(1)}% not background`);
    expect(s.distinct).toBeGreaterThanOrEqual(8); // lit faces in several colours, not flat silhouettes
    expect(s.nonBackground).toBeGreaterThan(0.2);
  });

  it('hovering a known box turns its pixels amber (the render pass read the GPU pick), and moving off turns them back', async () => {
    known = await knownBox();
    const { x, y } = known;
    const before = await patch(x, y);
    // Base colours have blue ≥ red; the highlight is amber (red well above blue).
    expect(before.filter(([r, , b]) => r! > b! + 8)).toEqual([]);
    const c0 = await counters();
    await hover(x, y);
    const lit = await patch(x, y);
    console.log(`hovered box ${known.box} at (${x}, ${y}): rgb ${before[0]!.join(',')} → ${lit[0]!.join(',')}`);
    expect(lit.filter(([r, , b]) => !(r! > b! + 50))).toEqual([]);
    expect((await counters()).casts).toBeGreaterThan(c0.casts);

    // A pixel of background (the reference's ray misses every box): nothing is highlighted.
    const corners: [number, number][] = [[WIDTH - 6, HEIGHT - 6], [6, HEIGHT - 6], [WIDTH - 6, HEIGHT / 2], [WIDTH / 2, HEIGHT - 6]];
    const misses = closestHit(boxes, await raysAt(corners));
    const k = [...misses.box].findIndex((b) => b < 0);
    expect(k, 'a corner of the view shows background').toBeGreaterThanOrEqual(0);
    await hover(...corners[k]!);
    const after = await patch(x, y);
    expect(after.every((p, i) => p.every((v, c) => Math.abs(v - before[i]![c]!) <= 2))).toBe(true);
  });

  it('a click reads the pick back once; the HUD names the reference\'s box, t and normal (judged: zero mismatch)', async () => {
    const { x, y, box } = known;
    const c0 = await counters();
    await page.mouse.click(x, y);
    await page.waitForFunction((n: number) => window.__webgpuPicking!.readbacks > n, { timeout: 120_000, polling: 20 }, c0.readbacks);
    await settled();
    const c1 = await counters();
    const pick = await page.evaluate(() => window.__webgpuPicking!.lastPick!);
    const hud = await page.$eval('#hud', (e) => e.textContent ?? '');
    console.log(hud.split('\n')[1]);
    await writeFile(`${ARTIFACTS}webgpu-picking-picked.png`, await page.screenshot({ type: 'png' }));
    expect(c1.readbacks - c0.readbacks).toBe(1);
    expect(c1.mapAsync - c0.mapAsync).toBe(1);
    expect([pick.x, pick.y]).toEqual([x, y]);
    expect(pick.ray).toEqual(Array.from((await raysAt([[x, y]])).data)); // the ray rayFromScreen gives there
    clicks.push(pick);

    const ray: RayArray = { count: 1, data: Float64Array.from(pick.ray) };
    const ref = closestHit(boxes, ray);
    expect(ref.box[0]).toBe(box);
    expect(pick.box).toBe(box);
    expect(pick.face).toBe(ref.face[0]);
    const normal = faceNormal(boxAt(boxes, box), ref.face[0]!)!;
    for (let c = 0; c < 3; c++) {
      expect(Math.abs(pick.normal[c]! - normal[c]!)).toBeLessThan(1e-5); // float32 axes, unit length
    }
    const m = /pick: box (\d+) at t = ([\d.]+), face \S+, normal \(([-\d.]+), ([-\d.]+), ([-\d.]+)\)/.exec(hud);
    expect(m, hud).not.toBeNull();
    expect(Number(m![1])).toBe(box);
    // The HUD prints 4 decimals: within half a unit of the last digit, plus float32's error.
    expect(Math.abs(Number(m![2]) - ref.t[0]!)).toBeLessThan(0.5e-4 + 1e-5 * ref.t[0]!);
    for (let c = 0; c < 3; c++) {
      expect(Math.abs(Number(m![3 + c]) - normal[c]!)).toBeLessThan(0.5e-4 + 1e-5);
    }
  });

  it('no readback per frame: 30 hovered frames make no mapAsync call, 3 clicks make 3; every click judged', async () => {
    const c0 = await counters();
    for (let k = 0; k < 30; k++) {
      const a = (k / 30) * 2 * Math.PI;
      await hover(Math.round(WIDTH / 2 + 150 * Math.cos(a)), Math.round(HEIGHT / 2 + 100 * Math.sin(a)));
    }
    const c1 = await counters();
    console.log(`30 hovers: ${c1.frames - c0.frames} frames, ${c1.casts - c0.casts} ray casts, ${c1.mapAsync - c0.mapAsync} mapAsync calls`);
    expect(c1.frames - c0.frames).toBeGreaterThanOrEqual(30);
    expect(c1.casts - c0.casts).toBeGreaterThanOrEqual(30);
    expect(c1.mapAsync - c0.mapAsync).toBe(0);
    expect(c1.readbacks - c0.readbacks).toBe(0);

    for (const [x, y] of [[WIDTH * 0.45, HEIGHT * 0.45], [WIDTH * 0.6, HEIGHT * 0.55], [WIDTH * 0.52, HEIGHT * 0.62]] as const) {
      const before = (await counters()).readbacks;
      await page.mouse.click(Math.round(x), Math.round(y));
      await page.waitForFunction((n: number) => window.__webgpuPicking!.readbacks > n, { timeout: 120_000, polling: 20 }, before);
      clicks.push(await page.evaluate(() => window.__webgpuPicking!.lastPick!));
    }
    await settled();
    const c2 = await counters();
    expect(c2.mapAsync - c1.mapAsync).toBe(3);
    expect(c2.readbacks - c1.readbacks).toBe(3);

    const rays: RayArray = { count: clicks.length, data: Float64Array.from(clicks.flatMap((p) => p.ray)) };
    expect(rays.data.length).toBe(clicks.length * RAY_F64.STRIDE);
    const gpuHits = {
      count: clicks.length,
      box: Int32Array.from(clicks, (p) => p.box),
      t: Float32Array.from(clicks, (p) => (p.box >= 0 ? p.t : 0)),
      face: Uint8Array.from(clicks, (p) => p.face),
      inside: Uint8Array.from(clicks, (p) => (p.inside ? 1 : 0)),
    };
    const cmp = compareClosestHits({ boxes, rays, origin }, gpuHits);
    console.log(formatComparison(cmp));
    expect(cmp.mismatch).toBe(0);
    expect(cmp.total).toBe(clicks.length);
    expect(clicks.filter((p) => p.box >= 0).length).toBeGreaterThanOrEqual(3);
  });

  it('the page logged no errors', () => {
    expect(consoleErrors).toEqual([]);
  });
});
