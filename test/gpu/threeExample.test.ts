/**
 * The three.js picking example (examples/three-picking/), built with its own Vite config and
 * driven in headless Chromium with a WebGPU canvas (SwiftShader here), as a user would run it:
 * - it starts on the WebGPURenderer's own device without console or WebGPU errors, and draws
 *   (pixel statistics of a screenshot, to test/artifacts/three-picking.png);
 * - while animating, every frame's `sync()` moves what moved (1% of the instances) in one scatter;
 * - a real mouse move picks the instance three.js's Raycaster finds under the cursor, and
 *   colours it;
 * - `pickAt` equals the Raycaster at 40 points over the still scene (instance, distance to
 *   float32);
 * - a marquee selects exactly the instances of the float64 reference cull (three.js's Frustum of
 *   the rectangle as the planes) and colours them;
 * - under 4× CPU throttling (DevTools protocol) while animating (20,000 instances, the page
 *   reloaded), at most two frames of GPU work are in flight and real pointer picks keep
 *   arriving, each within a few frames;
 * - no console errors, and no deprecation warning from three (render(), not renderAsync()).
 */
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/scenes/generate.ts';
import { ARTIFACTS, openThreeExample, pixelStats, type DemoPage } from './demoPage.ts';

const COUNT = 100_000;
const WIDTH = 960, HEIGHT = 600;
const BACKGROUND = [14, 17, 22] as const; // scene.background 0x0e1116
const PICKED = 0xebcb8b, SELECTED = 0x88c0d0;
/**
 * DevTools' "4× slowdown"; the scene of the throttled run (a SwiftShader frame of 100,000
 * instances takes seconds here: the bound is the same, the run shorter); the picks, and how many
 * frames may be submitted while one waits (MAX_FRAMES_IN_FLIGHT, with room for the frames
 * started as its answer comes back).
 */
const THROTTLE = 4, THROTTLED_COUNT = 20_000, PICKS = 8, PICK_FRAMES = 4;

let app: DemoPage;
beforeAll(async () => {
  app = await openThreeExample({ width: WIDTH, height: HEIGHT, query: `n=${COUNT}`, readyTimeout: 240_000 });
}, 300_000);
afterAll(async () => {
  await app?.close();
});

const frames = (): Promise<number> => app.page.evaluate(() => window.__example!.frames);

async function waitFrames(n: number): Promise<void> {
  const start = await frames();
  await app.page.waitForFunction((s: number, k: number) => window.__example!.frames >= s + k, { timeout: 240_000, polling: 100 }, start, n);
}

describe('the three.js picking example', () => {
  it(`starts with ${COUNT.toLocaleString('en-US')} instances on the renderer's device and syncs 1% of them a frame`, async () => {
    const { count, adapter } = await app.page.evaluate(() => ({ count: window.__example!.count, adapter: window.__example!.adapter }));
    console.log(`three-picking: ${count} instances on ${adapter}`);
    expect(count).toBe(COUNT);
    await waitFrames(3);
    const sync = await app.page.evaluate(() => window.__example!.lastSync);
    expect(sync).toBeDefined();
    // 1% of the instances are placed again each frame (some twice): every one moved, one scatter.
    expect(sync!.moved).toBeGreaterThan(COUNT / 100 * 0.98);
    expect(sync!.moved).toBeLessThanOrEqual(COUNT / 100);
    expect(sync!.rebuilt).toBe(false);
    const last = await app.page.evaluate(() => window.__example!.lastFrame);
    console.log(`a frame: sync ${last?.sync.toFixed(1)} ms, render ${last?.render.toFixed(1)} ms (JS), GPU after the last submit ${last?.gpu.toFixed(1)} ms`);
  });

  it('draws the scene (screenshot to test/artifacts/three-picking.png)', async () => {
    await app.page.evaluate(() => window.__example!.animate(false));
    await waitFrames(1); // drawn on demand: one frame after the change
    const png = await app.page.screenshot({ type: 'png' });
    await writeFile(`${ARTIFACTS}three-picking.png`, png);
    const middle = await app.page.screenshot({ type: 'png', clip: { x: WIDTH / 4, y: HEIGHT / 4, width: WIDTH / 2, height: HEIGHT / 2 } });
    const s = await pixelStats(app.page, middle, BACKGROUND);
    console.log(`pixels: ${s.distinct} distinct colours, ${(s.nonBackground * 100).toFixed(1)}% not background`);
    expect(s.distinct).toBeGreaterThanOrEqual(8); // lit faces, not flat silhouettes
    expect(s.nonBackground).toBeGreaterThan(0.2);
  });

  it('pickAt equals three.js\'s Raycaster at 40 points over the still scene', async () => {
    const rnd = mulberry32(1501);
    let hits = 0;
    let worst = 0;
    for (let k = 0; k < 40; k++) {
      const x = rnd() * 0.8 - 0.4, y = rnd() * 0.8 - 0.4;
      const r = await app.page.evaluate((px: number, py: number) => window.__example!.pickAt(px, py), x, y);
      expect(r.ours?.instanceId, `at (${x}, ${y})`).toBe(r.three?.instanceId);
      if (r.ours && r.three) {
        hits++;
        worst = Math.max(worst, Math.abs(r.ours.distance - r.three.distance) / r.three.distance);
      }
    }
    console.log(`pickAt: ${hits} of 40 points hit; worst relative distance ${worst.toExponential(2)}`);
    expect(hits).toBeGreaterThan(20);
    expect(worst).toBeLessThan(1e-5);
  });

  it('a real mouse move picks the instance under the cursor and colours it', async () => {
    const { page } = app;
    let tried = 0;
    for (const [px, py] of [[WIDTH / 2, HEIGHT / 2], [WIDTH * 0.45, HEIGHT * 0.55], [WIDTH * 0.55, HEIGHT * 0.45], [WIDTH * 0.4, HEIGHT * 0.4]] as const) {
      tried++;
      const x = (px / WIDTH) * 2 - 1, y = 1 - (py / HEIGHT) * 2;
      const expected = await page.evaluate((ax: number, ay: number) => window.__example!.pickAt(ax, ay), x, y);
      if (expected.three?.instanceId === undefined) {
        continue;
      }
      await page.mouse.move(px, py);
      await page.waitForFunction((id: number) => window.__example!.picked === id, { timeout: 60_000, polling: 50 }, expected.three.instanceId);
      expect(await page.evaluate((id: number) => window.__example!.colourOf(id), expected.three.instanceId)).toBe(PICKED);
      return;
    }
    throw new Error(`none of ${tried} cursor positions is over an instance`);
  });

  it('a marquee selects exactly the instances of the float64 reference cull and colours them', async () => {
    const rects = [{ x0: -0.05, y0: -0.04, x1: 0.03, y1: 0.05 }, { x0: 0.3, y0: 0.25, x1: 0.18, y1: 0.1 }];
    for (const rect of rects) {
      const r = await app.page.evaluate((rc: typeof rect) => window.__example!.select(rc), rect);
      console.log(`marquee ${JSON.stringify(rect)}: ${r.ids.length} selected, reference ${r.reference.length}`);
      expect(r.ids.length).toBeGreaterThan(50);
      expect(r.ids.length).toBeLessThan(COUNT / 4);
      expect([...r.ids].sort((a, b) => a - b)).toEqual([...r.reference].sort((a, b) => a - b));
      const colours = await app.page.evaluate((ids: number[]) => ids.map((i) => window.__example!.colourOf(i)), r.ids.slice(0, 200));
      const picked = await app.page.evaluate(() => window.__example!.picked);
      expect(colours.filter((c, k) => c !== SELECTED && r.ids[k] !== picked)).toEqual([]);
    }
  });

  it(`under ${THROTTLE}× CPU throttling while animating ${THROTTLED_COUNT.toLocaleString('en-US')} instances: at most 2 frames in flight, ${PICKS} pointer picks each answered within ${PICK_FRAMES} frames`, async () => {
    const { page } = app;
    await page.goto(app.url.replace(/n=\d+/, `n=${THROTTLED_COUNT}`), { waitUntil: 'load' });
    await page.waitForFunction(() => window.__example?.ready === true || window.__example?.error !== undefined, { timeout: 240_000, polling: 200 });
    expect(await page.evaluate(() => window.__example!.error ?? window.__example!.count)).toBe(THROTTLED_COUNT);
    const cdp = await page.createCDPSession();
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
    try {
      await page.evaluate(() => {
        window.__example!.animate(true);
        window.__example!.resetStats();
      });
      const start = await frames();
      const t0 = Date.now();
      for (let k = 0; k < PICKS; k++) {
        // Distinct positions around the middle, so each move is a pointermove and a new pick.
        await page.mouse.move(WIDTH * (0.35 + 0.04 * k), HEIGHT * (0.6 - 0.025 * k));
        await page.waitForFunction((n: number) => window.__example!.pickLog.length >= n, { timeout: 120_000, polling: 20 }, k + 1);
      }
      await waitFrames(5);
      const r = await page.evaluate(() => ({ max: window.__example!.maxInFlight, log: window.__example!.pickLog, frames: window.__example!.frames, last: window.__example!.lastFrame }));
      const seconds = (Date.now() - t0) / 1000;
      const last = r.last ? `sync ${r.last.sync.toFixed(0)} ms, render ${r.last.render.toFixed(0)} ms, GPU after submit ${r.last.gpu.toFixed(0)} ms` : '';
      console.log(`throttled ${THROTTLE}×: ${r.frames - start} frames in ${seconds.toFixed(1)} s (last: ${last}), at most ${r.max} in flight; picks: frames waited ${r.log.map((p) => p.frames).join(' ')}, ms ${r.log.map((p) => p.ms.toFixed(0)).join(' ')}`);
      expect(r.max).toBeLessThanOrEqual(2);
      expect(r.log.length).toBeGreaterThanOrEqual(PICKS);
      expect(Math.max(...r.log.map((p) => p.frames))).toBeLessThanOrEqual(PICK_FRAMES);
      expect(r.frames - start).toBeGreaterThanOrEqual(5); // the animation went on meanwhile
    } finally {
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      await page.evaluate(() => window.__example!.animate(false));
      await cdp.detach();
    }
  });

  it('the page logged no errors', () => {
    expect(app.consoleErrors).toEqual([]);
  });

  it('and no deprecation warnings (render() after init(), not renderAsync())', () => {
    expect(app.consoleWarnings.filter((w) => /deprecat/i.test(w))).toEqual([]);
  });
});
