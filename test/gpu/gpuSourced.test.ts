/**
 * Boxes that live on the GPU, in headless Chromium (suite `gpuSourced`; the same scenarios as
 * test/node/gpuSourced.test.ts on Dawn, test/fixtures/gpuSourced.ts): the derivation of a set
 * sourced from a caller's buffer, in each layout, against float64 on random and adversarial
 * sources; bad boxes named and never returned by any query; a frame loop with no CPU copy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGpuPage, type GpuPage } from './harness.ts';

let gpu: GpuPage;
beforeAll(async () => {
  gpu = await openGpuPage();
});
afterAll(async () => {
  expect(gpu?.consoleErrors ?? []).toEqual([]);
  await gpu?.close();
});

interface Summary { total: number; agree: number; ambiguous: number; mismatch: number; report: string }

function expectNoMismatch(s: Summary, maxAmbiguous = 0): void {
  console.log(s.report);
  expect(s.mismatch, s.report).toBe(0);
  expect(s.agree + s.ambiguous).toBe(s.total);
  expect(s.ambiguous, s.report).toBeLessThanOrEqual(maxAmbiguous);
}

describe('the derivation against float64 (browser)', () => {
  it.each([
    ['mat4x4f', false, 1e6], ['mat4x4f', true, 1e3], ['mat3x4f', false, 1e6], ['mat3x4f', true, 1e3], ['obb', false, 1e6],
  ] as const)('random %s (per-instance local boxes: %s; within %d of an origin 1e6 out), 40,000 boxes (seed 121): zero mismatches', async (layout, perInstance, spread) => {
    const r = await gpu.call('gpuSourced', 'random', 121, 40_000, layout, perInstance, spread);
    console.log(`${r.name} (${r.adapter}): ${r.ms.toFixed(0)} ms`);
    expectNoMismatch(r.derived, 40);
    expect(r.flagged).toBe(0);
  });

  it.each([
    ['mat4x4f', false], ['mat3x4f', false], ['obb', false], ['mat4x4f', true], ['mat3x4f', true],
  ] as const)('adversarial %s (per-instance local boxes: %s) ×100: each bad box flagged by name', async (layout, perInstance) => {
    const r = await gpu.call('gpuSourced', 'adversarial', layout, perInstance, 100);
    expectNoMismatch(r.derived, 10);
    expect(r.twinVsExpected).toEqual([]);
    expect(r.gpuVsExpected).toEqual([]);
    expect(r.statusFlagged).toBe(r.flagged);
    expect(r.flagged).toBeGreaterThan(0);
  });
});

describe('bad boxes are never returned (browser)', () => {
  it('mat4x4f: rays (brute and BVH), pairs, cross, one vs many, listed pairs, frustum (plane and exact), LiDAR (seed 131)', async () => {
    const r = await gpu.call('gpuSourced', 'queries', 131, 2000, 'mat4x4f');
    expect(r.bad).toBe(400);
    for (const [family, f] of Object.entries(r.families)) {
      expect(f.returnedBad, family).toEqual([]);
      expectNoMismatch(f.summary, Math.ceil(f.summary.total * 1e-3));
    }
    expect(r.lidarReturns).toBeGreaterThan(0);
    expect(r.lidarReturnsOnBad).toBe(0);
  });
});

describe('a frame loop with no CPU copy (browser)', () => {
  it('brute-force picks: no queue.writeBuffer and no mapAsync in 20 frames of 10,000 animated instances; the last frame proven', async () => {
    const r = await gpu.call('gpuSourced', 'frames', 10_000, 20, false);
    console.log(`${r.frames} frames (${r.adapter}), ${r.msPerFrame.toFixed(1)} ms each, ${r.flagged} flagged in the last`);
    expect(r.writes).toEqual([]);
    expect(r.maps).toEqual([]);
    expect(r.flagged).toBeGreaterThan(0);
    expectNoMismatch(r.derived, 10);
    expectNoMismatch(r.hits, 2);
    expect(r.hitsOnBad).toBe(0);
  });

  it('picks walking the tree kept in the same encoder: no upload but the tree\'s parameters when the count changes, and its SAH read-back every 16 refits', async () => {
    const frames = 32;
    const r = await gpu.call('gpuSourced', 'frames', 10_000, frames, true);
    console.log(`${r.frames} frames, ${r.msPerFrame.toFixed(1)} ms each, trees ${JSON.stringify(r.trees)}, ${r.writes.length} writes, maps ${JSON.stringify(r.maps)}`);
    expect(r.writes.every((w) => w.label.endsWith(':bvh:params') && w.bytes === 16), JSON.stringify(r.writes)).toBe(true);
    expect(r.writes.length).toBeLessThanOrEqual(1);
    expect(r.maps.every((m) => m.endsWith(':bvh:status-read'))).toBe(true);
    expect(r.maps.length).toBeLessThanOrEqual(Math.ceil(frames / 16) + 1);
    expectNoMismatch(r.derived, 10);
    expectNoMismatch(r.hits, 2);
    expect(r.hitsOnBad).toBe(0);
  });
});
