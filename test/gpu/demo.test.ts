/**
 * The demo (demo/, `npm run demo`), built with its own Vite config and driven in headless
 * Chromium with a WebGPU canvas (SwiftShader here): it starts without console or WebGPU errors,
 * draws something (pixel statistics of a screenshot), and each view's GPU answer equals the
 * float64 reference computed here in Node on the very boxes the page gave the GPU (fetched
 * through the hook, and checked against the seeded generators run here):
 * - picking: a real mouse move over known boxes; the picked index equals `closestHit` for the
 *   ray `rayFromScreen` makes from the page's own camera matrices;
 * - LiDAR: the point count of a sweep equals the reference's hit count (`lidarRays` +
 *   `closestHitGrid`);
 * - overlaps: the contact count equals `allPairsSweep` (full and face-axes-only);
 * - instances (GPU-animated matrices, a GPU-sourced set): frames pick and find all pairs in their
 *   own encoder, each phase's GPU time shows (or 'n/a'), and "verify" judges a frame read back
 *   (derivation, pick, contacts) with 0 mismatches.
 * A screenshot of each view goes to test/artifacts/; the picking view's is also written to
 * docs/images/demo-picking.jpg, the README's picture, so every run refreshes it.
 * Without WebGPU, the page says so and what to do.
 */
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateBoxArray, rayArrayFrom } from '../../src/core/canonical.ts';
import { rayFromScreen } from '../../src/core/helpers.ts';
import { BOX_F64, type BoxArray } from '../../src/core/types.ts';
import { closestHit } from '../../src/reference/raycast.ts';
import { allPairsSweep, closestHitGrid } from '../../src/reference/accel.ts';
import { lidarRays } from '../../src/reference/lidar.ts';
import { project } from '../../demo/gfx/mat4.ts';
import { boxChecksum, cityScene, KIND, tumbleBoxes, tumbleScene } from '../../demo/scenes.ts';
import { INSTANCES_DEFAULT_SIZE, LIDAR_DEFAULTS, OVERLAP_DEFAULT_SIZE, PICKING_DEFAULT_SIZE, PICKING_SEED } from '../../demo/config.ts';
import type { PickInfo, VerifyReport } from '../../demo/app.ts';
import { ARTIFACTS, openDemo, pixelStats, type DemoPage, type PixelStats } from './demoPage.ts';

const BACKGROUND = [14, 17, 22] as const; // the page's background (canvas clear colour ≈ 0.055, 0.065, 0.085)

let demo: DemoPage;
beforeAll(async () => {
  demo = await openDemo({ width: 1280, height: 720 });
});
afterAll(async () => {
  await demo?.close();
});

/** Screenshot of the page (panels included) to test/artifacts/NAME, and the pixel statistics of the canvas area outside the panels. */
async function screenshot(name: string, docsCopy?: string): Promise<PixelStats> {
  const { page } = demo;
  await page.evaluate(() => window.__demo!.waitFrames(2));
  const png = await page.screenshot({ type: 'png' });
  await writeFile(`${ARTIFACTS}${name}`, png);
  if (docsCopy) {
    await writeFile(new URL(`../../docs/images/${docsCopy}`, import.meta.url), await page.screenshot({ type: 'jpeg', quality: 80 }));
  }
  // The middle of the canvas, clear of the stats, help and GUI panels.
  const middle = await page.screenshot({ type: 'png', clip: { x: 520, y: 260, width: 480, height: 360 } });
  return pixelStats(page, middle, BACKGROUND);
}

function expectNotBlank(s: PixelStats): void {
  console.log(`pixels: ${s.distinct} distinct colours, ${(s.nonBackground * 100).toFixed(1)}% not background`);
  expect(s.distinct).toBeGreaterThanOrEqual(24);
  expect(s.nonBackground).toBeGreaterThan(0.3);
}

function expectVerified(r: VerifyReport): void {
  console.log(`verify: ${r.what}: ${r.agree} agree, ${r.ambiguous} ambiguous, ${r.mismatch} mismatch\n${r.detail}`);
  expect(r.total).toBeGreaterThan(0);
  expect(r.mismatch).toBe(0);
}

const canonical = (boxes: BoxArray): BoxArray => validateBoxArray(boxes.data, boxes.count);

/**
 * The page's boxes (float64, as the GPU got them), checked against the same seeded scene
 * generated here. Not bit for bit: Chromium's V8 and Node's compute Math.sin, cos and exp with
 * different libms (about 3% of results differ in the last bit), so the two copies may differ by
 * an ulp here and there; the reference runs on the page's copy.
 */
async function pageBoxes(expected: BoxArray): Promise<BoxArray> {
  const b64 = await demo.page.evaluate(() => window.__demo!.sceneBoxes());
  const data = new Float64Array(new Uint8Array(Buffer.from(b64, 'base64')).buffer);
  expect(data.length).toBe(expected.count * BOX_F64.STRIDE);
  let worst = 0;
  for (let i = 0; i < data.length; i++) {
    worst = Math.max(worst, Math.abs(data[i]! - expected.data[i]!) / Math.max(1, Math.abs(expected.data[i]!)));
  }
  expect(worst).toBeLessThan(1e-12);
  const boxes = { count: expected.count, data };
  return boxes;
}

describe('demo page', () => {
  it('starts on a WebGPU adapter and opens the picking view', async () => {
    const { page } = demo;
    const state = await page.evaluate(() => ({ adapter: window.__demo!.adapter, view: window.__demo!.view(), errors: window.__demo!.errors }));
    console.log(`adapter: ${state.adapter}`);
    expect(state.adapter.length).toBeGreaterThan(0);
    expect(state.view).toBe('picking');
    expect(state.errors).toEqual([]);
  });
});

describe('picking view', () => {
  let boxes: BoxArray;

  it(`has the seeded city (${PICKING_DEFAULT_SIZE} boxes, seed ${PICKING_SEED})`, async () => {
    const info = await demo.page.evaluate(() => window.__demo!.scene());
    expect(info).toMatchObject({ view: 'picking', size: PICKING_DEFAULT_SIZE, seed: PICKING_SEED });
    boxes = await pageBoxes(canonical(cityScene(PICKING_DEFAULT_SIZE, PICKING_SEED).boxes));
    expect(info.checksum).toBe(boxChecksum(boxes));
  });

  it('a mouse move over known boxes picks what the float64 reference picks for the same ray', async () => {
    const { page } = demo;
    const cam = await page.evaluate(() => window.__demo!.camera());
    const viewProj = Float64Array.from(cam.viewProj);
    // Known boxes: the first buildings and cars of the centre blocks whose centre is on screen,
    // clear of the panels (stats top-left, GUI top-right, help bottom-left).
    const city = cityScene(PICKING_DEFAULT_SIZE, PICKING_SEED);
    const targets: { box: number; x: number; y: number }[] = [];
    for (const want of [KIND.building, KIND.car, KIND.building]) {
      for (let b = 1; b < 2000 && targets.length < 3; b++) {
        if (city.kind[b] !== want || targets.some((t) => t.box === b)) {
          continue;
        }
        const o = b * BOX_F64.STRIDE;
        const p = project(viewProj, [boxes.data[o]!, boxes.data[o + 1]!, boxes.data[o + 2]!], cam.width, cam.height);
        if (p && p[0] > 540 && p[0] < 1000 && p[1] > 240 && p[1] < 620) {
          targets.push({ box: b, x: Math.round(p[0]), y: Math.round(p[1]) });
          break;
        }
      }
    }
    expect(targets.length).toBe(3);
    let hitTarget = 0;
    for (const { box, x, y } of targets) {
      await page.mouse.move(cam.left + x, cam.top + y);
      const pick = await page.waitForFunction((px: number, py: number) => {
        const p = window.__demo!.lastPick();
        return p && p.x === px && p.y === py ? p : null;
      }, { timeout: 60_000, polling: 50 }, x, y).then((h) => h.jsonValue() as Promise<PickInfo>);
      const ray = rayFromScreen(x, y, cam.width, cam.height, Float64Array.from(cam.invViewProj));
      const ref = closestHit(boxes, rayArrayFrom([ray]));
      console.log(`mouse at (${x}, ${y}) over box ${box}: GPU picked ${pick.box} (t ${pick.t.toFixed(3)}), reference ${ref.box[0]} (t ${ref.t[0]!.toFixed(3)})`);
      expect(ref.box[0]).toBeGreaterThanOrEqual(0);
      expect(pick.box).toBe(ref.box[0]);
      expect(Math.abs(pick.t - ref.t[0]!)).toBeLessThan(1e-3 * Math.max(1, ref.t[0]!));
      hitTarget += pick.box === box ? 1 : 0;
    }
    // The boxes were aimed at: most rays land on them (one may be hidden behind another box).
    expect(hitTarget).toBeGreaterThanOrEqual(1);
    expectVerified(await page.evaluate(() => window.__demo!.verify()));
    expectNotBlank(await screenshot('demo-picking.png', 'demo-picking.jpg'));
  });
});

describe('LiDAR view', () => {
  it(`a sweep's point count equals the reference's hit count (${LIDAR_DEFAULTS.channels} × ${LIDAR_DEFAULTS.azimuths} rays)`, async () => {
    const { page } = demo;
    await page.evaluate(() => window.__demo!.setView('lidar'));
    const info = await page.evaluate(() => window.__demo!.lidarSweep(12));
    expect(info.channels * info.azimuths).toBe(LIDAR_DEFAULTS.channels * LIDAR_DEFAULTS.azimuths);
    const boxes = await pageBoxes(canonical(cityScene(info.size, info.seed).boxes));
    expect(info.checksum).toBe(boxChecksum(boxes));
    const rays = lidarRays({ elevations: info.elevations, azimuthSteps: info.azimuths, maxRange: info.maxRange }, info.pose);
    const ref = closestHitGrid(boxes, rays);
    const refCount = ref.box.reduce((n, b) => n + (b >= 0 ? 1 : 0), 0);
    console.log(`LiDAR at s = ${info.s}: ${info.count} points on the GPU, ${refCount} reference hits of ${rays.count} rays`);
    expect(refCount).toBeGreaterThan(rays.count / 2);
    expect(info.count).toBe(refCount);
    expect(await page.evaluate(() => window.__demo!.lidarPointCount())).toBe(refCount);
    expectVerified(await page.evaluate(() => window.__demo!.verify()));
    expectNotBlank(await screenshot('demo-lidar.png'));
  });
});

describe('overlaps view', () => {
  it(`the contact count equals the reference's (${OVERLAP_DEFAULT_SIZE} tumbling boxes)`, async () => {
    const { page } = demo;
    await page.evaluate(() => window.__demo!.setView('overlaps'));
    const info = await page.evaluate(() => window.__demo!.overlapAt(2));
    expect(info.size).toBe(OVERLAP_DEFAULT_SIZE);
    const boxes = await pageBoxes(canonical(tumbleBoxes(tumbleScene(info.size, info.seed), info.t)));
    expect(info.checksum).toBe(boxChecksum(boxes));
    const ref = allPairsSweep(boxes);
    const refFace = allPairsSweep(boxes, { faceOnly: true });
    console.log(`overlaps at t = ${info.t}: ${info.count} pairs on the GPU, ${ref.length / 2} in the reference; face-only ${info.faceOnlyCount} vs ${refFace.length / 2}`);
    expect(ref.length / 2).toBeGreaterThan(50);
    expect(info.count).toBe(ref.length / 2);
    expect(info.head).toEqual(Array.from(ref.subarray(0, info.head.length)));
    expect(info.faceOnlyCount).toBe(refFace.length / 2);
    expect(refFace.length).toBeGreaterThan(ref.length); // the face-only test has false contacts here
    expect(await page.evaluate(() => window.__demo!.overlapCount())).toBe(ref.length / 2);
    expectVerified(await page.evaluate(() => window.__demo!.verify()));
    expectNotBlank(await screenshot('demo-overlaps.png'));
  });

  it('logged no console errors and no WebGPU errors', async () => {
    expect(await demo.page.evaluate(() => window.__demo!.errors)).toEqual([]);
    expect(demo.consoleErrors).toEqual([]);
    expect(demo.consoleWarnings.filter((w) => /webgpu|wgsl|validation|gpu/i.test(w))).toEqual([]);
  });
});

describe('instances view', () => {
  it(`animates ${INSTANCES_DEFAULT_SIZE} instances on the GPU, picks and finds all pairs in the frame's encoder; a frame read back verifies with 0 mismatches`, async () => {
    const { page } = demo;
    await page.evaluate(() => window.__demo!.setView('instances'));
    await page.evaluate(() => window.__demo!.waitFrames(3));
    const cam = await page.evaluate(() => window.__demo!.camera());
    await page.mouse.move(cam.left + Math.round(cam.width / 2), cam.top + Math.round(cam.height / 2));
    await page.waitForFunction(() => {
      const i = window.__demo!.instances();
      return i.picked !== null && i.contacts !== null;
    }, { timeout: 120_000, polling: 100 });
    const before = await page.evaluate(() => window.__demo!.instances());
    const r = await page.evaluate(() => window.__demo!.verify());
    const info = await page.evaluate(() => window.__demo!.instances());
    console.log(`instances: ${info.count} on the GPU, tree ${info.tree}, ${info.contacts} contacts, picked ${info.picked}; timestamps ${info.timestamps}; phases ${JSON.stringify(info.phases)}`);
    expect(info.count).toBe(INSTANCES_DEFAULT_SIZE);
    expect(info.frame).toBeGreaterThan(before.frame); // frames ran through the verification
    expect(info.picked).toBeGreaterThanOrEqual(0); // the mouse is over the middle of the cloud
    expect(info.contacts).toBeGreaterThan(0);
    expect(info.tree).not.toBe('none'); // 10,000 boxes: the refresh keeps a tree for the pick
    expect(info.overflow).toBe(0);
    for (const phase of ['animate', 'derive', 'refit/rebuild', 'pick', 'pairs', 'draw']) {
      expect(info.phases[phase], phase).toMatch(info.timestamps ? /^\d+(\.\d+)? (µs|ms)$/ : /^n\/a$/);
    }
    expectVerified(r);
    // The derivation (one case per box), the pick and the contacts were all judged.
    expect(r.total).toBeGreaterThan(INSTANCES_DEFAULT_SIZE);
    expect(r.what).toMatch(/derivation of 10,000 boxes.*pick.*contacts/);
    await screenshot('demo-instances.png');
    expect(await page.evaluate(() => window.__demo!.errors)).toEqual([]);
    expect(demo.consoleErrors).toEqual([]);
  });
});

describe('without WebGPU', () => {
  it('the page says WebGPU is missing and what to do', async () => {
    const page = await demo.page.browser().newPage();
    try {
      await page.evaluateOnNewDocument(() => {
        Object.defineProperty(Navigator.prototype, 'gpu', { get: () => undefined, configurable: true });
      });
      await page.goto(demo.url, { waitUntil: 'load' });
      await page.waitForFunction(() => window.__demo?.error !== null && window.__demo?.error !== undefined, { timeout: 30_000 });
      const text = await page.evaluate(() => {
        const m = document.getElementById('message')!;
        return m.hidden ? '' : m.innerText;
      });
      expect(text).toContain('WebGPU is not available');
      expect(text).toContain('npm run demo');
      expect(text).toContain('--enable-unsafe-webgpu');
    } finally {
      await page.close();
    }
  });
});
