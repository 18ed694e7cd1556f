/**
 * Suite `rays`: the ray kernels (closestHit, anyHit, allHits) on random and adversarial inputs,
 * each result classified against the float64 reference by the comparator, in the page.
 */
import { ObbGpu, validateRayArray, type BoxSet, type RayArray, type RaycastOptions } from '../../../../src/index.ts';
import { adversarialRayGroups, compareAllHits, compareAnyHits, compareClosestHits, mulberry32, randomBoxes, randomRays, type Comparison, type RayCompareInput } from '../../../../src/judge/index.ts';
import { closestHit } from '../../../../src/reference/index.ts';
import { withMaxDistance } from '../../../../src/judge/index.ts';
import { scoped, summarize, type ComparisonSummary, type Tuning } from '../shared.ts';

export type Family = 'closest' | 'any' | 'all';

async function runFamily(gpu: ObbGpu, family: Family, set: BoxSet, rays: RayArray, options: RaycastOptions): Promise<{ cmp: Comparison; gpuMs: number }> {
  const input: RayCompareInput = { boxes: set.boxes, rays, options, origin: set.origin };
  const q = {
    ...(options.solid === undefined ? {} : { solid: options.solid }),
    ...(options.rayMasks ? { rayMasks: options.rayMasks } : {}),
    ...(options.exclude ? { exclude: options.exclude } : {}),
  };
  const t0 = performance.now();
  if (family === 'closest') {
    const hits = await gpu.closestHit(set, rays, q);
    const gpuMs = performance.now() - t0;
    return { cmp: compareClosestHits(input, hits), gpuMs };
  }
  if (family === 'any') {
    const flags = await gpu.anyHit(set, rays, q);
    const gpuMs = performance.now() - t0;
    return { cmp: compareAnyHits(input, flags), gpuMs };
  }
  const all = await gpu.allHits(set, rays, q);
  const gpuMs = performance.now() - t0;
  return { cmp: compareAllHits(input, all), gpuMs };
}

export interface RandomReport {
  summary: ComparisonSummary;
  gpuMs: number;
  hits: number;
}

/** `rayCount` random rays against `boxCount` random boxes (seeded). */
export async function random(family: Family, seed: number, rayCount: number, boxCount: number, solid = true, tuning: Tuning = 'default') {
  return scoped(async (gpu): Promise<RandomReport> => {
    const rnd = mulberry32(seed);
    const boxes = randomBoxes(boxCount, rnd, { extent: 20, halfMin: 0.1, halfMax: 2 });
    const rays = randomRays(rayCount, boxes, rnd, { extent: 25 });
    const set = gpu.createBoxSet(boxes);
    try {
      const { cmp, gpuMs } = await runFamily(gpu, family, set, rays, { solid });
      const hits = family === 'closest' ? closestHit(boxes, rays, { solid }).box.filter((b) => b >= 0).length : 0;
      return { summary: summarize(cmp), gpuMs, hits };
    } finally {
      set.destroy();
    }
  }, tuning);
}

/** Every adversarial group through one family. */
export async function adversarial(family: Family, seed: number, tuning: Tuning = 'default') {
  return scoped(async (gpu) => {
    const groups: { name: string; summary: ComparisonSummary }[] = [];
    for (const g of adversarialRayGroups(seed)) {
      const set = gpu.createBoxSet(g.boxes, g.boxMasks ? { masks: g.boxMasks } : {});
      try {
        const options: RaycastOptions = {
          solid: g.solid,
          ...(g.boxMasks ? { boxMasks: g.boxMasks } : {}),
          ...(g.rayMasks ? { rayMasks: g.rayMasks } : {}),
          ...(g.exclude ? { exclude: g.exclude } : {}),
        };
        const { cmp } = await runFamily(gpu, family, set, g.rays, options);
        groups.push({ name: g.name, summary: summarize(cmp, 3) });
      } finally {
        set.destroy();
      }
    }
    return { groups };
  }, tuning);
}

/** Max distance at t × (1 ∓ 1e-4) of each ray's reference closest hit: misses, then hits. */
export async function maxDistanceAroundHit(seed: number, rayCount: number) {
  return scoped(async (gpu) => {
    const rnd = mulberry32(seed);
    const boxes = randomBoxes(64, rnd, { extent: 10, halfMin: 0.2, halfMax: 2 });
    const rays = randomRays(rayCount, boxes, rnd, { extent: 15, aimed: 1 });
    const ref = closestHit(boxes, rays);
    const set = gpu.createBoxSet(boxes);
    try {
      const short = withMaxDistance(rays, ref.t, 1 - 1e-4);
      const past = withMaxDistance(rays, ref.t, 1 + 1e-4);
      const a = await runFamily(gpu, 'closest', set, short, {});
      const b = await runFamily(gpu, 'closest', set, past, {});
      return { short: summarize(a.cmp), past: summarize(b.cmp), refHits: ref.box.filter((x) => x >= 0).length };
    } finally {
      set.destroy();
    }
  });
}

/** Directions scaled by 1e-3 … 1e3 give exactly the answers of their unit directions. */
export async function nonUnitDirections(seed: number, rayCount: number) {
  return scoped(async (gpu) => {
    const rnd = mulberry32(seed);
    const boxes = randomBoxes(64, rnd, { extent: 10, halfMin: 0.2, halfMax: 2 });
    const unit = randomRays(rayCount, boxes, rnd, { extent: 15 });
    const scaled = unit.data.slice();
    for (let r = 0; r < unit.count; r++) {
      const s = 10 ** (6 * rnd() - 3);
      for (let k = 3; k < 6; k++) {
        scaled[r * 7 + k]! *= s;
      }
    }
    const canonical = validateRayArray(scaled);
    const set = gpu.createBoxSet(boxes);
    try {
      const hits = await gpu.closestHit(set, { count: unit.count, data: scaled });
      const cmp = compareClosestHits({ boxes: set.boxes, rays: canonical, origin: set.origin }, hits);
      return { summary: summarize(cmp) };
    } finally {
      set.destroy();
    }
  });
}

/**
 * Crosses the 65,535-workgroup limit: workgroup size 1 and 70,000 rays need a 2D grid (65,535 × 2).
 */
export async function largeDispatch(rayCount: number) {
  const out: Record<string, ComparisonSummary> = {};
  for (const tiled of [false, true]) {
    const gpu = await ObbGpu.create({ workgroupSize: 1, rayTuning: { tiled, cull: tiled } });
    try {
      const rnd = mulberry32(99);
      const boxes = randomBoxes(8, rnd, { extent: 5, halfMin: 0.5, halfMax: 2 });
      const rays = randomRays(rayCount, boxes, rnd, { extent: 8 });
      const set = gpu.createBoxSet(boxes);
      out[tiled ? 'closestTiled' : 'closest'] = summarize((await runFamily(gpu, 'closest', set, rays, {})).cmp);
      out[tiled ? 'anyTiled' : 'any'] = summarize((await runFamily(gpu, 'any', set, rays, {})).cmp);
    } finally {
      gpu.destroy();
    }
  }
  return out;
}

/** All hits with a capacity far too small: the host re-runs and nothing is dropped. */
export async function allHitsOverflow(seed: number, capacity: number) {
  return scoped(async (gpu) => {
    const rnd = mulberry32(seed);
    const boxes = randomBoxes(200, rnd, { extent: 5, halfMin: 0.5, halfMax: 2 });
    const rays = randomRays(2000, boxes, rnd, { extent: 8 });
    const set = gpu.createBoxSet(boxes);
    try {
      const all = await gpu.allHits(set, rays, { capacity });
      const cmp = compareAllHits({ boxes: set.boxes, rays, origin: set.origin }, all);
      return { summary: summarize(cmp), count: all.count, runs: all.runs };
    } finally {
      set.destroy();
    }
  });
}

/** Points and normals written by the kernel (geometry option) against the reference's. */
export async function geometry(seed: number, rayCount: number) {
  return scoped(async (gpu) => {
    const rnd = mulberry32(seed);
    const boxes = randomBoxes(64, rnd, { extent: 10, halfMin: 0.2, halfMax: 2 });
    const rays = randomRays(rayCount, boxes, rnd, { extent: 15, aimed: 1 });
    const set = gpu.createBoxSet(boxes);
    try {
      const hits = await gpu.closestHit(set, rays, { geometry: true });
      const cmp = compareClosestHits({ boxes: set.boxes, rays, origin: set.origin }, hits);
      // The normal must be the outward unit normal of the reported face of the reported box.
      let normalErrors = 0;
      let hitCount = 0;
      for (let r = 0; r < rays.count; r++) {
        const b = hits.box[r]!;
        if (b < 0 || hits.face[r] === 0xff) {
          continue;
        }
        hitCount++;
        const f = hits.face[r]!;
        const axis = boxes.data.subarray(b * 15 + 6 + 3 * (f >> 1), b * 15 + 9 + 3 * (f >> 1));
        const s = f & 1 ? -1 : 1;
        const n = hits.normal!.subarray(3 * r, 3 * r + 3);
        const err = Math.hypot(n[0]! - s * axis[0]!, n[1]! - s * axis[1]!, n[2]! - s * axis[2]!);
        if (err > 1e-5) {
          normalErrors++;
        }
      }
      return { summary: summarize(cmp), normalErrors, hitCount };
    } finally {
      set.destroy();
    }
  });
}
