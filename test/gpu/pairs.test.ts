/**
 * SAT kernels on the GPU against the float64 reference through the comparator: zero mismatches
 * on the published random suite (100,000 pairs), adversarial groups, sets and pair lists.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectClean } from './expect.ts';
import { openGpuPage, type GpuPage } from './harness.ts';
import type { BoxInput } from '../../src/index.ts';

let gpu: GpuPage;
beforeAll(async () => {
  gpu = await openGpuPage();
});
afterAll(async () => {
  await gpu?.close();
});


describe('obbPairs', () => {
  it('published random suite distribution: 100,000 pairs (seed 11423)', async () => {
    const r = await gpu.call('pairs', 'published', 11423, 100_000);
    expect(r.full.total).toBe(100_000);
    expectClean(r.full, 1e-3);
    expectClean(r.faceOnly, 1e-3);
    console.log(`face-only false contacts: GPU ${r.faceOnlyFalse}, reference ${r.refFaceOnlyFalse} of 100,000`);
    expect(r.faceOnlyFalse).toBeGreaterThan(1000);
    expect(Math.abs(r.faceOnlyFalse - r.refFaceOnlyFalse)).toBeLessThanOrEqual(r.full.ambiguous + r.faceOnly.ambiguous);
  });

  it('adversarial groups (seed 5)', async () => {
    const r = await gpu.call('pairs', 'adversarial', 5);
    expect(r.groups.length).toBeGreaterThanOrEqual(7);
    for (const g of r.groups) {
      console.log(`[${g.name}]`);
      expectClean(g.full);
      expectClean(g.faceOnly);
    }
  });

  it('the published case: separated on A1xB2 only, in both orders', async () => {
    const fixture = JSON.parse(readFileSync(new URL('../fixtures/seed-sat-case.json', import.meta.url), 'utf8')) as { boxes: BoxInput[] };
    const r = await gpu.call('pairs', 'publishedCase', fixture.boxes);
    expectClean(r.summary);
    expect(r.overlap).toEqual([0, 0]);
    expect(r.axis[0]).toBe(11); // A1xB2
    expect(r.axis[1]).toBe(13); // swapped: A2xB1
    expect(r.gap[0]).toBeCloseTo(0.1467145, 5);
    expect(r.gap[1]).toBeCloseTo(0.1467145, 5);
    expect(r.faceOverlap).toEqual([1, 1]);
    expect(r.faceGap[0]).toBeCloseTo(-0.0076245, 5);
  });
});

describe('sets', () => {
  it('one box against 20,000 (seed 8)', async () => {
    const r = await gpu.call('pairs', 'oneVsMany', 8, 20_000);
    expect(r.overlaps).toBeGreaterThan(10);
    expectClean(r.summary, 1e-3);
  });

  it('all pairs within 3,000 boxes, dense (seed 9)', async () => {
    const r = await gpu.call('pairs', 'allPairs', 9, 3000, 12);
    expect(r.count).toBeGreaterThan(1000);
    expectClean(r.summary, 1e-3);
  });

  it('all pairs with capacity 1: re-runs, nothing dropped (seed 10)', async () => {
    const r = await gpu.call('pairs', 'allPairs', 10, 1000, 6, 1);
    expect(r.count).toBeGreaterThan(100);
    expect(r.runs).toBe(2);
    expectClean(r.summary);
  });

  it('cross product of two sets with different floating origins (seed 12)', async () => {
    const r = await gpu.call('pairs', 'cross', 12, 1500, 1200);
    expect(r.count).toBeGreaterThan(100);
    expectClean(r.summary, 1e-3);
  });

  it('the page logged no errors', () => {
    expect(gpu.consoleErrors).toEqual([]);
  });
});
