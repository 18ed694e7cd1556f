/** The GPU host runtime: BoxSet state, ordering, buffers left on the GPU, errors, lifetime. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGpuPage, type GpuPage } from './harness.ts';

let gpu: GpuPage;
beforeAll(async () => {
  gpu = await openGpuPage();
});
afterAll(async () => {
  await gpu?.close();
});

describe('README', () => {
  it('the quick start runs and prints what the README says', async () => {
    const r = await gpu.call('host', 'quickStart');
    console.log(`quick start: ${r.report}; LiDAR (${r.method}) ${r.returns} returns of ${r.rays}`);
    expect([r.box, r.t, r.face]).toEqual([0, 9, 1]);
    expect(r.point).toEqual([-1, 0, 0]);
    expect(r.normal).toEqual([-1, 0, 0]);
    expect(r.report).toMatch(/^closestHit: 1 cases — 1 agree, 0 ambiguous, 0 mismatch/);
    expect(r.overlap).toBe(0);
    expect(r.allPairs).toEqual([]);
    expect(r.method).toBe('raster');
    expect(r.rays).toBe(262_144);
    expect(r.returns).toBeGreaterThan(0);
    expect(r.returns + r.noReturn).toBe(262_144);
  });
});

describe('BoxSet', () => {
  it('update, rejected update, growth and masks each match the reference (seed 3)', async () => {
    const r = await gpu.call('host', 'updates', 3);
    expect(r.reports.map((x) => x.label)).toHaveLength(5);
    for (const x of r.reports) {
      console.log(`[${x.label}] ${x.summary.report}`);
      expect(x.summary.mismatch, `${x.label}: ${x.summary.report}`).toBe(0);
      expect(x.hits).toBeGreaterThan(100);
    }
    expect(r.rejected).toMatch(/^box 3: center\[1\]/);
    expect(r.count).toBe(300);
  });

  it('32 queries in flight across updates each see the boxes they were issued against (seed 40)', async () => {
    const r = await gpu.call('host', 'concurrency', 40);
    expect(r.differ).toBe(true);
    expect(r.queries).toBe(32);
    expect(r.wrong).toBe(0);
  });
});

describe('results on the GPU', () => {
  it('closestHitBuffers and encodeClosestHit equal the typed-array results (seed 41)', async () => {
    const r = await gpu.call('host', 'buffers', 41);
    expect(r.hits).toBeGreaterThan(100);
    expect(r.differences).toBe(0);
    expect(r.encodedDifferences).toBe(0);
  });
});

describe('errors and lifetime', () => {
  it('a WGSL compile error points at the chunk file and line', async () => {
    const r = await gpu.call('host', 'compileError');
    console.log(r.message);
    expect(r.thrown).toBe(true);
    expect(r.file).toBe('shaders/test/broken.wgsl');
    expect(r.line).toBe(5);
  });

  it('empty sets and batches give empty results', async () => {
    const r = await gpu.call('host', 'empty');
    expect(r).toMatchObject({ missOnEmpty: -1, noRays: 0, noPairs: 0, noHits: 0, noPairResults: 0 });
  });

  it('1,000 create/query/destroy cycles (brute force and tree) leave no live buffer while the context lives', async () => {
    const r = await gpu.call('host', 'lifetime', 1000);
    console.log(r);
    expect(r.created).toBeGreaterThan(2000);
    // Only the caches (pool, staging) between cycles: no growth after the first two.
    expect(r.maxLive).toBe(r.liveAfterFirstTwo);
    expect(r.countedAgree).toBe(true);
    expect(r.afterTrim).toBe(0);
    expect(r.countedAfterTrim).toBe(0);
    expect(r.afterDestroy).toBe(0);
  });

  it('readbacks reuse staging buffers: 100 rounds of 5 sizes, each its own bytes, no growth after the first round', async () => {
    const r = await gpu.call('host', 'stagingReuse', 100);
    expect(r.wrong).toBe(0);
    // 500 sequential readbacks in 3 size classes, then 5 at once: a handful of staging buffers.
    expect(r.staged).toBeLessThanOrEqual(8);
    expect(r.liveAfterAll).toBeLessThanOrEqual(r.liveAfterFirst + 3);
    expect(r.concurrentSizes).toEqual([4, 1000, 300_000, 1000, 4]);
  });

  it('a destroyed set or context is refused with a clear error', async () => {
    const r = await gpu.call('host', 'misuse');
    expect(r.errors[0]).toMatch(/destroyed/);
    expect(r.errors[1]).toMatch(/DeviceLostError: .*destroyed/);
  });

  it('the page logged no errors', () => {
    expect(gpu.consoleErrors).toEqual([]);
  });
});
