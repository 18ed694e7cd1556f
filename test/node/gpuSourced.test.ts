/**
 * Boxes that live on the GPU, in Node on Dawn (test/gpu/gpuSourced.test.ts runs the same
 * scenarios in Chromium, test/fixtures/gpuSourced.ts): a set sourced from a caller's buffer in
 * each layout, its derivation proven against float64 on random and adversarial sources, bad boxes
 * named and never returned by any query, a frame loop with no CPU copy, and what the set refuses,
 * frees and keeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOX_FLAG_NAMES, CapacityError, GpuSourcedBoxSet, StaleObjectError, ValidationError, type ObbGpu } from '../../src/index.ts';
import { compareDerivedBoxes } from '../../src/judge/index.ts';
import { BufferUsage } from '../../src/runtime/flags.ts';
import { createNodeGpu } from '../../src/node/runtime.ts';
import {
  adversarialSource, deriveScenario, frameScenario, LAYOUTS, queryScenario, randomSource, sourcedSet, type DeriveResult, type QueryResult, type Summary,
} from '../fixtures/gpuSourced.ts';
import { openNodeGpu, scoped, TEST_DRIVER } from './shared.ts';

let gpu: ObbGpu;
beforeAll(async () => {
  gpu = await openNodeGpu();
});
afterAll(() => {
  gpu?.destroy();
});

function expectNoMismatch(s: Summary, maxAmbiguous = 0): void {
  console.log(s.report);
  expect(s.mismatch, s.report).toBe(0);
  expect(s.agree + s.ambiguous).toBe(s.total);
  expect(s.ambiguous, s.report).toBeLessThanOrEqual(maxAmbiguous);
}

function expectDerived(r: DeriveResult): void {
  console.log(`${r.name}: ${r.flagged} flagged, ${r.ms.toFixed(0)} ms (refresh + read-back)`);
  expectNoMismatch(r.derived, Math.ceil(r.derived.total * 1e-3));
  expect(r.twinVsExpected).toEqual([]);
  expect(r.gpuVsExpected).toEqual([]);
  expect(r.statusFlagged).toBe(r.flagged);
}

describe('the derivation against float64', () => {
  it.each([
    ['mat4x4f', false, 1e6], ['mat4x4f', true, 1e3], ['mat3x4f', false, 1e6], ['mat3x4f', true, 1e3], ['obb', false, 1e6],
  ] as const)('random %s (per-instance local boxes: %s; translations within %d of an origin 1e6 out), 60,000 boxes (seed 21): zero mismatches', async (layout, perInstance, spread) => {
    await scoped(gpu, async () => {
      const c = randomSource(21, 60_000, layout, { centre: [1e6, -1e6, 5e5], spread, origin: [1e6, -1e6, 5e5], perInstance, padWords: 2, offsetWords: 70 });
      expectDerived(await deriveScenario(gpu, c));
    });
  });

  it('random mat4x4f with the origin left at the world origin, translations up to 1e6 (seed 22): zero mismatches, a wider centre bound', async () => {
    await scoped(gpu, async () => {
      expectDerived(await deriveScenario(gpu, randomSource(22, 20_000, 'mat4x4f', { spread: 1e6 })));
    });
  });

  it.each([
    ...LAYOUTS.map((l) => [l, false] as const), ['mat4x4f', true] as const, ['mat3x4f', true] as const,
  ])('adversarial %s (per-instance local boxes: %s; NaN, ±∞, zero and subnormal scale, shear at the tolerance, 1e-4 and 1e4 scales, negative scales, range), ×300: each bad box flagged by name', async (layout, perInstance) => {
    await scoped(gpu, async () => {
      const r = await deriveScenario(gpu, adversarialSource(layout, perInstance, 300));
      expectDerived(r);
      expect(r.flagged).toBeGreaterThan(0);
    });
  });
});

describe('bad boxes are never returned', () => {
  it.each(['mat4x4f', 'mat3x4f'] as const)('%s: rays (closest, any, all; brute and BVH), all pairs, cross, one vs many, listed pairs, frustum (plane and exact), LiDAR (seed 31)', async (layout) => {
    await scoped(gpu, async () => {
      const r: QueryResult = await queryScenario(gpu, 31, 3000, layout);
      expect(r.bad).toBe(600);
      for (const [family, f] of Object.entries(r.families)) {
        expect(f.returnedBad, family).toEqual([]);
        expectNoMismatch(f.summary, Math.ceil(f.summary.total * 1e-3));
      }
      console.log(`LiDAR: ${r.lidarReturns} returns, ${r.lidarReturnsOnBad} on bad boxes`);
      expect(r.lidarReturns).toBeGreaterThan(0);
      expect(r.lidarReturnsOnBad).toBe(0);
    });
  });
});

describe('a frame loop: animation pass → refresh → picks, one submission, no CPU copy', () => {
  it('brute-force picks: no queue.writeBuffer and no mapAsync in 30 frames of 20,000 animated instances; the last frame proven', async () => {
    await scoped(gpu, async () => {
      const r = await frameScenario(gpu, 20_000, 30, false);
      console.log(`${r.frames} frames, ${r.msPerFrame.toFixed(1)} ms each, ${r.flagged} flagged in the last; writes ${JSON.stringify(r.writes)}, maps ${JSON.stringify(r.maps)}`);
      expect(r.writes).toEqual([]);
      expect(r.maps).toEqual([]);
      expect(r.flagged).toBeGreaterThan(0);
      expectNoMismatch(r.derived, 20);
      expectNoMismatch(r.hits, 2);
      expect(r.hitsOnBad).toBe(0);
    });
  });

  it('picks walking the tree kept in the same encoder: no upload but the tree\'s parameters when the count changes, and its SAH read-back every 16 refits', async () => {
    await scoped(gpu, async () => {
      const frames = 32;
      const r = await frameScenario(gpu, 20_000, frames, true);
      console.log(`${r.frames} frames, ${r.msPerFrame.toFixed(1)} ms each, trees ${JSON.stringify(r.trees)}; writes ${r.writes.length} (${[...new Set(r.writes.map((w) => `${w.label} ${w.bytes} B`))].join(', ')}), maps ${JSON.stringify(r.maps)}`);
      // The tree's 16-byte parameters are written only when the box count changes (src/tree/Bvh.ts):
      // at most once, nothing else is written; the SAH probe maps once every 16 refits.
      expect(r.writes.every((w) => w.label.endsWith(':bvh:params') && w.bytes === 16), JSON.stringify(r.writes)).toBe(true);
      expect(r.writes.length).toBeLessThanOrEqual(1);
      expect(r.maps.every((m) => m.endsWith(':bvh:status-read'))).toBe(true);
      expect(r.maps.length).toBeLessThanOrEqual(Math.ceil(frames / 16) + 1);
      expectNoMismatch(r.derived, 20);
      expectNoMismatch(r.hits, 2);
      expect(r.hitsOnBad).toBe(0);
    });
  });
});

describe('the set', () => {
  const local = { min: [-1, -1, -1] as [number, number, number], max: [1, 1, 1] as [number, number, number] };
  const buffer = (size: number, usage: number = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST): GPUBuffer =>
    gpu.ctx.device.createBuffer({ size, usage });

  it('refuses what can be known before the GPU reads the buffer, with one clear line each', () => {
    const b = buffer(64 * 10);
    const make = (source: Record<string, unknown>, more: Record<string, unknown> = {}): unknown =>
      gpu.createBoxSet({ source: { buffer: b, layout: 'mat4x4f', count: 10, localBox: local, ...source } as never, ...more });
    const cases: [Record<string, unknown>, RegExp, Record<string, unknown>?][] = [
      [{ buffer: buffer(640, BufferUsage.VERTEX | BufferUsage.COPY_DST) }, /source\.buffer needs GPUBufferUsage\.STORAGE .*COPY_DST \| VERTEX/],
      [{ buffer: {} }, /source\.buffer must be a GPUBuffer/],
      [{ layout: 'mat4' }, /source\.layout must be 'mat4x4f', 'mat3x4f' or 'obb'/],
      [{ offset: 2 }, /source\.offset must be a multiple of 4/],
      [{ stride: 60 }, /source\.stride must be a multiple of 4 bytes of at least 64/],
      [{ count: 11 }, /exceeds the set's capacity 10|end at byte 704, beyond the buffer's 640 bytes/, { capacity: 11 }],
      [{ count: 11 }, /source\.count = 11 exceeds the set's capacity 10/, { capacity: 10 }],
      [{ offset: 4 }, /end at byte 644, beyond the buffer's 640 bytes/],
      [{ localBox: undefined }, /localBox \(one for every instance\) or localBoxes/],
      [{ layout: 'obb', localBox: local }, /is for matrix layouts/],
      [{ localBox: { min: [1, 0, 0], max: [0, 1, 1] } }, /localBox\.min\[0\] is greater than localBox\.max\[0\]/],
      [{ localBoxes: { buffer: buffer(24 * 10), stride: 20 }, localBox: undefined }, /localBoxes\.stride must be a multiple of 4 bytes of at least 24/],
      [{ extra: 1 }, /source has unknown key "extra"/],
      [{}, /origin must lie within ±1e\+30/, { origin: [1e31, 0, 0] }],
      [{}, /masks must be a Uint32Array of one mask per box \(10/, { masks: new Uint32Array(3) }],
    ];
    for (const [source, message, more] of cases) {
      let error: unknown;
      try {
        make(source, more);
      } catch (e) {
        error = e;
      }
      expect(error, String(message)).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('a source range beyond maxStorageBufferBindingSize is a CapacityError, checked before anything is allocated', async () => {
    const small = await createNodeGpu({ driver: TEST_DRIVER, limits: { maxStorageBufferBindingSize: 4096 } });
    try {
      const b = small.ctx.device.createBuffer({ size: 64 * 100, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC });
      const live = small.ctx.liveBuffers;
      expect(() => small.createBoxSet({ source: { buffer: b, layout: 'mat4x4f', count: 100, localBox: local }, capacity: 100 })).toThrow(CapacityError);
      expect(small.ctx.liveBuffers).toBe(live);
      b.destroy();
    } finally {
      small.destroy();
    }
  });

  it('has no boxes before its first refresh; count, origin and source change at a refresh; set/update are refused', async () => {
    await scoped(gpu, async () => {
      const c = randomSource(41, 100, 'mat4x4f', { spread: 50 });
      const { set, buffers } = sourcedSet(gpu, c, 300);
      try {
        expect(set).toBeInstanceOf(GpuSourcedBoxSet);
        expect(set.count).toBe(0);
        expect((await gpu.closestHit(set, [{ origin: [0, 0, 0], direction: [1, 0, 0] }])).box[0]).toBe(-1);
        expect(await set.refresh()).toEqual({ count: 100, tree: 'none' });
        expect(set.count).toBe(100);
        await expect(set.update(0, [])).rejects.toThrow(/write that buffer and refresh\(\), or setSource\(\)/);
        await expect(set.set([])).rejects.toThrow(ValidationError);
        // A larger source (within the capacity) and a new origin: applied at the next refresh.
        const more = randomSource(42, 250, 'mat3x4f', { spread: 50, origin: [10, 0, 0] });
        const { set: other, buffers: moreBuffers } = sourcedSet(gpu, more);
        other.destroy();
        buffers.push(...moreBuffers);
        await set.setSource({ buffer: moreBuffers[0]!, layout: 'mat3x4f', count: 250, localBox: more.localBox! });
        await set.rebase([10, 0, 0]);
        expect(set.count).toBe(100);
        expect(set.origin).toEqual([0, 0, 0]);
        const version = set.shapeVersion;
        await set.refresh();
        expect(set.count).toBe(250);
        expect(set.origin).toEqual([10, 0, 0]);
        expect(set.shapeVersion).toBeGreaterThan(version);
        const back = await set.readBack();
        expect(back.count).toBe(250);
        const cmp = compareDerivedBoxes(back.input, back.gpu);
        expect(cmp.mismatch).toBe(0);
        await expect(set.setSource({ buffer: moreBuffers[0]!, layout: 'mat3x4f', count: 301, localBox: more.localBox! })).rejects.toThrow(/capacity 300/);
      } finally {
        set.destroy();
        buffers.forEach((b) => b.destroy());
      }
    });
  });

  it('masks: the caller\'s masks filter rays, a flagged box stays masked out whatever its mask', async () => {
    await scoped(gpu, async () => {
      const c = adversarialSource('mat4x4f');
      const { set, buffers } = sourcedSet(gpu, c);
      try {
        await set.refresh();
        const good = Array.from({ length: c.count }, (_, i) => i).filter((i) => (c.expect.get(i) ?? []).length === 0);
        const bad = Array.from({ length: c.count }, (_, i) => i).filter((i) => (c.expect.get(i) ?? []).length > 0);
        await set.setMasks(new Uint32Array(c.count).fill(0b10));
        await set.setMasksAt([good[0]!, bad[0]!], new Uint32Array([0b01, 0b01]));
        const back = await set.readBack();
        expect(back.gpu.masks[good[0]!]).toBe(0b01);
        expect(back.gpu.masks[good[1]!]).toBe(0b10);
        expect(back.gpu.masks[bad[0]!]).toBe(0);
        expect(set.masks[good[0]!]).toBe(0b01);
        expect(compareDerivedBoxes(back.input, back.gpu).mismatch).toBe(0);
        // The identity box sits at the origin: a ray with mask 0b01 hits it, one with 0b10 does not.
        const hits = await gpu.closestHit(set, [{ origin: [-10, 0, 0], direction: [1, 0, 0] }, { origin: [-10, 0, 0], direction: [1, 0, 0] }], { rayMasks: new Uint32Array([0b01, 0b10]) });
        expect(hits.box[0]).toBe(good[0]);
        expect(hits.box[1]).not.toBe(good[0]);
      } finally {
        set.destroy();
        buffers.forEach((b) => b.destroy());
      }
    });
  });

  it('readStatus counts the last refresh\'s bad boxes by reason; readBack needs COPY_SRC and names the bad boxes', async () => {
    await scoped(gpu, async () => {
      const c = adversarialSource('mat3x4f');
      const { set, buffers } = sourcedSet(gpu, c);
      try {
        await set.refresh();
        const status = await set.readStatus();
        const back = await set.readBack();
        expect(status.flagged).toBe(back.bad.length);
        for (const name of BOX_FLAG_NAMES) {
          expect(status.byFlag[name], name).toBe(back.bad.filter((b) => b.reasons.includes(name)).length);
        }
        expect(back.bad.find((b) => b.reasons.includes('shear'))).toBeDefined();
        const noCopy = gpu.ctx.device.createBuffer({ size: 48, usage: BufferUsage.STORAGE });
        const s2 = gpu.createBoxSet({ source: { buffer: noCopy, layout: 'mat3x4f', count: 1, localBox: local } });
        await s2.refresh();
        await expect(s2.readBack()).rejects.toThrow(/source\.buffer needs GPUBufferUsage\.COPY_SRC to be read back/);
        s2.destroy();
        noCopy.destroy();
      } finally {
        set.destroy();
        buffers.forEach((b) => b.destroy());
      }
    });
  });

  it('frees what it made and nothing of the caller\'s; its tree goes with it; readBack with refresh: true reads the same submission', async () => {
    await scoped(gpu, async () => {
      gpu.trim();
      const before = gpu.ctx.liveBuffers;
      const c = randomSource(43, 2000, 'mat4x4f', { spread: 40 });
      const { set, buffers } = sourcedSet(gpu, c);
      const r = await set.refresh(undefined, { tree: 'build' });
      expect(r.tree).toBe('rebuild');
      expect((await set.refresh()).tree).toBe('refit');
      const back = await set.readBack({ refresh: true });
      expect(compareDerivedBoxes(back.input, back.gpu).mismatch).toBe(0);
      set.destroy();
      set.destroy();
      gpu.trim();
      expect(gpu.ctx.liveBuffers).toBe(before);
      // The caller's buffer is still the caller's: mappable and intact.
      const copy = gpu.ctx.device.createBuffer({ size: 64, usage: BufferUsage.COPY_DST | BufferUsage.MAP_READ });
      const enc = gpu.ctx.device.createCommandEncoder();
      enc.copyBufferToBuffer(buffers[0]!, 0, copy, 0, 64);
      gpu.ctx.device.queue.submit([enc.finish()]);
      await copy.mapAsync(1);
      expect(Array.from(new Float32Array(copy.getMappedRange()))).toEqual(Array.from(c.words.subarray(0, 16)));
      copy.unmap();
      copy.destroy();
      buffers.forEach((b) => b.destroy());
      await expect(set.refresh()).rejects.toThrow(StaleObjectError);
    });
  });

  it('does not survive recover(): its source died with the old device (StaleObjectError)', async () => {
    const own = await openNodeGpu();
    try {
      const c = randomSource(44, 10, 'mat4x4f');
      const { set } = sourcedSet(own, c);
      await set.refresh();
      own.ctx.device.destroy();
      await own.recover();
      await expect(set.refresh()).rejects.toThrow(StaleObjectError);
      await expect(own.closestHit(set, [{ origin: [0, 0, 0], direction: [1, 0, 0] }])).rejects.toThrow(StaleObjectError);
    } finally {
      own.destroy();
    }
  });
});
