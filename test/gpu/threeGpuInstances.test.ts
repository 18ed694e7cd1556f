/**
 * Storage-instanced three.js meshes as GPU-sourced sets (src/three/ThreeGpuInstances.ts) and the
 * example that uses them (examples/three-gpu-instances/), built with its own Vite config and
 * driven in headless Chromium with a WebGPU canvas (SwiftShader here):
 * - the installed three.js is a revision ThreeGpuInstances was tested on, and another is refused
 *   by name (so upgrading three fails here until the private lookup is checked again);
 * - the GPUBuffer found through three's private backend data is the one three reads: a value
 *   written to it comes back through three's public `getArrayBufferAsync`;
 * - bad arguments (a plain InstancedMesh, a buffer three has not made yet, a moved mesh, an
 *   ObbGpu on another device, a renderer without WebGPU) are refused with one line each;
 * - the example starts on the renderer's own device, animates with a TSL compute node, draws
 *   (pixel statistics of a screenshot, to test/artifacts/three-gpu-instances.png), and a
 *   real mouse move picks an instance (read back for display only);
 * - a frame read back (`readBack`) is judged in float64: every box the GPU derived from the
 *   matrices, and the frame's pick against the reference pick on the GPU's boxes (0 mismatches);
 * - no console errors.
 */
import { REVISION } from 'three';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THREE_GPU_INSTANCES_REVISIONS, checkThreeRevision } from '../../src/three/ThreeGpuInstances.ts';
import { writeFile } from 'node:fs/promises';
import { ARTIFACTS, openThreeGpuInstances, pixelStats, type DemoPage } from './demoPage.ts';

/**
 * Small enough for SwiftShader: every frame derives and refits all of them on the CPU.
 * `WEBGPU_OBB_GPU_INSTANCES=100000` in front of the command runs the example's default count.
 */
const COUNT = Number(process.env['WEBGPU_OBB_GPU_INSTANCES'] ?? 3000);
const WIDTH = 800, HEIGHT = 500;
const BACKGROUND = [14, 17, 22] as const; // scene.background 0x0e1116

describe('three.js revision check', () => {
  it(`the installed three.js (r${REVISION}) is within the tested range`, () => {
    const r = Number(REVISION);
    expect(r).toBeGreaterThanOrEqual(THREE_GPU_INSTANCES_REVISIONS.min);
    expect(r).toBeLessThanOrEqual(THREE_GPU_INSTANCES_REVISIONS.max);
    expect(() => checkThreeRevision()).not.toThrow();
  });

  it('another revision is refused, naming it', () => {
    expect(() => checkThreeRevision(String(THREE_GPU_INSTANCES_REVISIONS.max + 1))).toThrow(
      new RegExp(`three is r${THREE_GPU_INSTANCES_REVISIONS.max + 1}: .*renderer\\.backend\\.get\\(attribute\\)\\.buffer`));
    expect(() => checkThreeRevision('169')).toThrow(/r169/);
  });
});

describe('the three.js GPU-instances example', () => {
  let app: DemoPage;
  beforeAll(async () => {
    app = await openThreeGpuInstances({ width: WIDTH, height: HEIGHT, query: `n=${COUNT}`, readyTimeout: 240_000 });
  }, 300_000);
  afterAll(async () => {
    await app?.close();
  });

  const waitFrames = async (n: number): Promise<void> => {
    const start = await app.page.evaluate(() => window.__gpuInstances!.frames);
    await app.page.waitForFunction((s: number, k: number) => window.__gpuInstances!.frames >= s + k, { timeout: 240_000, polling: 100 }, start, n);
  };

  it(`animates ${COUNT} instances with a compute node on the renderer's device`, async () => {
    const { count, adapter } = await app.page.evaluate(() => ({ count: window.__gpuInstances!.count, adapter: window.__gpuInstances!.adapter }));
    console.log(`three-gpu-instances: ${count} instances on ${adapter}`);
    expect(count).toBe(COUNT);
    await waitFrames(3);
  });

  it('draws the instances from the storage buffer (screenshot to test/artifacts/three-gpu-instances.png)', async () => {
    await writeFile(`${ARTIFACTS}three-gpu-instances.png`, await app.page.screenshot({ type: 'png' }));
    const middle = await app.page.screenshot({ type: 'png', clip: { x: WIDTH / 4, y: HEIGHT / 4, width: WIDTH / 2, height: HEIGHT / 2 } });
    const s = await pixelStats(app.page, middle, BACKGROUND);
    console.log(`pixels: ${s.distinct} distinct colours, ${(s.nonBackground * 100).toFixed(1)}% not background`);
    expect(s.distinct).toBeGreaterThanOrEqual(8); // lit faces, not flat silhouettes
    expect(s.nonBackground).toBeGreaterThan(0.2);
  });

  it("the GPUBuffer found is three's own: a value written to it comes back through getArrayBufferAsync", async () => {
    const r = await app.page.evaluate(() => window.__gpuInstances!.bufferCheck());
    expect(r.three).toEqual(r.wrote);
  });

  it('bad arguments are refused with one line naming the field', async () => {
    const r = await app.page.evaluate(() => window.__gpuInstances!.refusals());
    console.log(Object.entries(r).map(([k, v]) => `${k}: ${v}`).join('\n'));
    expect(r['ok']).toBe('accepted');
    expect(r['plain']).toMatch(/^ValidationError: argument: mesh\.instanceMatrix is a plain InstancedBufferAttribute/);
    expect(r['unused']).toMatch(/^ValidationError: argument: mesh\.instanceMatrix has no GPUBuffer yet: run the compute node/);
    expect(r['moved']).toMatch(/^ValidationError: argument: mesh\.matrixWorld is not the identity/);
    expect(r['otherDevice']).toMatch(/^ValidationError: argument: gpu is on another GPUDevice than the renderer's: make it with obbGpuFor\(renderer\)/);
    expect(r['webgl']).toMatch(/^ValidationError: argument: renderer has no WebGPU device/);
    for (const v of Object.values(r)) {
      expect(v).not.toContain('\n');
    }
  });

  it('a real mouse move picks an instance; the frame read back agrees with the float64 reference (derivation and pick)', async () => {
    const { page } = app;
    let judged = 0;
    for (const [px, py] of [[400, 250], [360, 275], [440, 225]] as const) {
      await page.mouse.move(px, py);
      await page.waitForFunction(() => window.__gpuInstances!.picked !== -1, { timeout: 60_000, polling: 50 }).catch(() => undefined);
      const x = (px / WIDTH) * 2 - 1, y = 1 - (py / HEIGHT) * 2;
      const r = await page.evaluate((ax: number, ay: number) => window.__gpuInstances!.check(ax, ay), x, y);
      console.log(`at (${px}, ${py}): GPU picked ${r.gpuBox} (t ${r.t.toFixed(4)}), reference ${r.refBox} (t ${r.refT.toFixed(4)}); ` +
        `derived: ${r.derived.agree} agree, ${r.derived.ambiguous} ambiguous, ${r.derived.mismatch} mismatch; pick: ${r.pick.agree}/${r.pick.total}`);
      expect(r.derived.total).toBeGreaterThanOrEqual(COUNT);
      expect(r.derived.mismatch, r.detail).toBe(0);
      expect(r.flagged, r.detail).toBe(0);
      expect(r.pick.total).toBe(1);
      expect(r.pick.mismatch, r.detail).toBe(0);
      expect(r.gpuBox).toBe(r.refBox);
      if (r.refBox >= 0) {
        expect(Math.abs(r.t - r.refT)).toBeLessThan(1e-3 * Math.max(1, r.refT));
        judged++;
      }
      await page.evaluate(() => window.__gpuInstances!.animate(true));
      await waitFrames(2);
    }
    expect(judged).toBeGreaterThanOrEqual(1);
  });

  it('logged no console errors', () => {
    expect(app.consoleErrors).toEqual([]);
    expect(app.consoleWarnings.filter((w) => /webgpu|wgsl|validation|gpu/i.test(w))).toEqual([]);
  });
});
