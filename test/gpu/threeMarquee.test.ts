/**
 * ThreeBoxes.select's 'intersect' mode is exact (suite `threeMarquee`; issue 33): a box 1.27
 * units outside the marquee's frustum beside a side edge, which the plane test keeps (the old
 * answer), is no longer selected, in both clip spaces; random marquees over a 4,000-mesh scene
 * equal the exact float64 twin through the comparator; 'inside' is unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectClean } from './expect.ts';
import { openGpuPage, type GpuPage } from './harness.ts';

let gpu: GpuPage;
beforeAll(async () => {
  gpu = await openGpuPage();
});
afterAll(async () => {
  await gpu?.close();
});

describe('exact marquee (three.js)', () => {
  it.each(['webgpu', 'webgl'] as const)('a box 1.27 outside the frustum beside a side edge is not selected (%s clip space); the plane test keeps it', async (clip) => {
    const r = await gpu.call('threeMarquee', 'outsideEdge', clip);
    console.log(`${clip}: selected ${JSON.stringify(r.selected)}, plane test ${JSON.stringify(r.planeTest)}, plate ${r.distance.toFixed(3)} outside, plane margins ${r.margins.map((m) => m.toFixed(3)).join(', ')}`);
    expect(r.distance).toBeCloseTo(1.27, 9);
    // The plane test keeps it: no single plane has it wholly outside.
    expect(r.margins.every((m) => m > 0.1)).toBe(true);
    expect(r.planeTest).toEqual(['inside', 'outside']);
    expect(r.selected).toEqual(['inside']);
    expect(r.twinExact).toBe(1);
    expect(r.inside).toEqual(['inside']);
  });

  it('24 marquees over 4,000 meshes, both clip spaces: select equals the exact twin (seed 3350)', async () => {
    const r = await gpu.call('threeMarquee', 'randomMarquees', 3350, 4000, 24);
    let selected = 0, planeOnly = 0, ambiguous = 0;
    for (const rep of r.reports) {
      expectClean(rep.summary, 1e-2);
      selected += rep.selected;
      planeOnly += rep.planeOnly;
      ambiguous += rep.summary.ambiguous;
    }
    console.log(`${r.reports.length} marquees over ${r.boxes} boxes: ${selected} selected, ${ambiguous} ambiguous, ${planeOnly} outside boxes the plane test would have added`);
    expect(selected).toBeGreaterThan(200);
    expect(planeOnly).toBeGreaterThan(0);
  });

  it('the page logged no errors', () => {
    expect(gpu.consoleErrors).toEqual([]);
  });
});
