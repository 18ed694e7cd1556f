/**
 * Ray kernels in Node on Dawn (src/node/runtime.ts; SwiftShader here, a real GPU where present)
 * against the float64 reference through the comparator, as test/gpu/rays.test.ts does in the
 * browser with larger counts: zero mismatches on random and adversarial suites.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BoxSet, type ObbGpu, type RayArray, type RaycastOptions } from '../../src/index.ts';
import { adversarialRayGroups, compareAllHits, compareAnyHits, compareClosestHits, mulberry32, randomBoxes, randomRays, type Comparison } from '../../src/judge/index.ts';
import { closestHit } from '../../src/reference/index.ts';
import { expectClean, openNodeGpu, scoped, type Tuning } from './shared.ts';

type Family = 'closest' | 'any' | 'all';
const families: readonly Family[] = ['closest', 'any', 'all'];

const instances = new Map<Tuning, ObbGpu>();
async function gpuFor(tuning: Tuning): Promise<ObbGpu> {
  let gpu = instances.get(tuning);
  if (!gpu) {
    gpu = await openNodeGpu(tuning);
    instances.set(tuning, gpu);
  }
  return gpu;
}

beforeAll(async () => {
  await gpuFor('default');
});
afterAll(() => {
  for (const gpu of instances.values()) {
    gpu.destroy();
  }
});

async function runFamily(gpu: ObbGpu, family: Family, set: BoxSet, rays: RayArray, options: RaycastOptions): Promise<Comparison> {
  const input = { boxes: set.boxes, rays, options, origin: set.origin };
  const q = {
    ...(options.solid === undefined ? {} : { solid: options.solid }),
    ...(options.rayMasks ? { rayMasks: options.rayMasks } : {}),
    ...(options.exclude ? { exclude: options.exclude } : {}),
  };
  if (family === 'closest') {
    return compareClosestHits(input, await gpu.closestHit(set, rays, q));
  }
  if (family === 'any') {
    return compareAnyHits(input, await gpu.anyHit(set, rays, q));
  }
  return compareAllHits(input, await gpu.allHits(set, rays, q));
}

async function random(gpu: ObbGpu, family: Family, seed: number, rayCount: number, boxCount: number, solid = true): Promise<Comparison> {
  return scoped(gpu, async () => {
    const rnd = mulberry32(seed);
    const boxes = randomBoxes(boxCount, rnd, { extent: 20, halfMin: 0.1, halfMax: 2 });
    const rays = randomRays(rayCount, boxes, rnd, { extent: 25 });
    const set = gpu.createBoxSet(boxes);
    try {
      return await runFamily(gpu, family, set, rays, { solid });
    } finally {
      set.destroy();
    }
  });
}

async function adversarial(gpu: ObbGpu, family: Family, seed: number): Promise<void> {
  await scoped(gpu, async () => {
    const groups = adversarialRayGroups(seed);
    expect(groups.length).toBeGreaterThanOrEqual(12);
    for (const g of groups) {
      const set = gpu.createBoxSet(g.boxes, g.boxMasks ? { masks: g.boxMasks } : {});
      try {
        const options: RaycastOptions = {
          solid: g.solid,
          ...(g.boxMasks ? { boxMasks: g.boxMasks } : {}),
          ...(g.rayMasks ? { rayMasks: g.rayMasks } : {}),
          ...(g.exclude ? { exclude: g.exclude } : {}),
        };
        expectClean(await runFamily(gpu, family, set, g.rays, options), 1, g.name);
      } finally {
        set.destroy();
      }
    }
  });
}

describe.each(families)('%s hit (node)', (family) => {
  const seed = 1000 + families.indexOf(family);
  it(`random: 20,000 rays × 64 boxes (seed ${seed})`, async () => {
    const cmp = await random(await gpuFor('default'), family, seed, 20_000, 64);
    expect(cmp.total).toBe(20_000);
    expectClean(cmp, 1e-3);
  });

  it('random, solid: false: 5,000 rays × 64 boxes (seed 2024)', async () => {
    expectClean(await random(await gpuFor('default'), family, 2024, 5_000, 64, false), 1e-3);
  });

  it('adversarial groups (seed 7)', async () => {
    await adversarial(await gpuFor('default'), family, 7);
  });
});

// The kernel path the adapter does not get by default is proven too (the default is the plain
// loop on CPU adapters, workgroup tiling + sphere cull on GPUs); the default path ran above.
describe('the other ray-kernel path (node)', () => {
  it.each(families)('%s: random 5,000 rays × 200 boxes (seed 3000) and adversarial groups (seed 8)', async (family) => {
    const usual = (await gpuFor('default')).rays.tuning;
    const other: Tuning = usual.tiled && usual.cull ? 'flat' : 'tiled-cull';
    const gpu = await gpuFor(other);
    expect(`tiled=${gpu.rays.tuning.tiled} cull=${gpu.rays.tuning.cull}`).toBe(other === 'flat' ? 'tiled=false cull=false' : 'tiled=true cull=true');
    expectClean(await random(gpu, family, 3000, 5_000, 200), 1e-3);
    await adversarial(gpu, family, 8);
  });
});

describe('geometry (node)', () => {
  it('hit points and normals match the reference (seed 33)', async () => {
    const gpu = await gpuFor('default');
    await scoped(gpu, async () => {
      const rnd = mulberry32(33);
      const boxes = randomBoxes(64, rnd, { extent: 10, halfMin: 0.2, halfMax: 2 });
      const rays = randomRays(5000, boxes, rnd, { extent: 15, aimed: 1 });
      const set = gpu.createBoxSet(boxes);
      try {
        const hits = await gpu.closestHit(set, rays, { geometry: true });
        expectClean(compareClosestHits({ boxes: set.boxes, rays, origin: set.origin }, hits), 1e-3);
        const ref = closestHit(boxes, rays);
        let compared = 0;
        for (let r = 0; r < rays.count; r++) {
          if (ref.box[r] !== hits.box[r] || hits.box[r]! < 0 || hits.face[r] === 0xff) {
            continue;
          }
          compared++;
          const f = hits.face[r]!;
          const b = hits.box[r]!;
          const axis = boxes.data.subarray(b * 15 + 6 + 3 * (f >> 1), b * 15 + 9 + 3 * (f >> 1));
          const s = f & 1 ? -1 : 1;
          const n = hits.normal!.subarray(3 * r, 3 * r + 3);
          expect(Math.hypot(n[0]! - s * axis[0]!, n[1]! - s * axis[1]!, n[2]! - s * axis[2]!)).toBeLessThan(1e-5);
        }
        expect(compared).toBeGreaterThan(1000);
      } finally {
        set.destroy();
      }
    });
  });
});
