/**
 * Ray workloads: picking (1 and 1,024 rays against 10k / 100k / 1M boxes, with the `build` rows:
 * what it costs to make the boxes queryable), the LiDAR sweep, and brute-force tests per second.
 * Every registered implementation that can cast rays runs on the same scene and rays; its answers
 * are checked against the float64 reference.
 */
import { type BoxArray, type ClosestHits, type RayArray } from '../../../src/index.ts';
import { closestHit } from '../../../src/reference/index.ts';
import { checkClosestHits } from '../check.ts';
import type { BenchConfig, SuiteResult } from '../config.ts';
import { selectImplementations, type Implementation } from '../impls/index.ts';
import type { BenchHits, RayScene } from '../impls/types.ts';
import { makeRow, stats, timeBudget, timeInterleaved, type Row } from '../measure.ts';
import { LIDAR, lidarRays, lidarScene, pickingRays, pickingScene, raySlice } from '../scenes.ts';

const fmt = (x: number): string => x.toLocaleString('en-US');

/** Rays a brute-force CPU implementation runs per timed call (a prefix of the workload's rays). */
function cpuSlice(impl: Implementation, boxes: number, rays: number, cfg: BenchConfig): number {
  if (impl.device !== 'cpu' || !impl.bruteForce) {
    return rays;
  }
  return Math.max(1, Math.min(rays, Math.floor(cfg.cpuTestsPerRun / boxes)));
}

/** Builds every implementation's scene `budget` times (timed as `build` rows); keeps the last. */
async function buildAll(
  impls: Implementation[], boxes: BoxArray, cfg: BenchConfig, out: SuiteResult, timed: boolean,
): Promise<Map<Implementation, RayScene>> {
  const scenes = new Map<Implementation, RayScene>();
  for (const impl of impls) {
    if (!impl.buildRays) {
      continue;
    }
    if (!timed || impl.kind === 'reference') {
      // The reference queries the float64 box array as it is: nothing to build.
      scenes.set(impl, await impl.buildRays(boxes));
      continue;
    }
    let last: RayScene | undefined;
    const s = await timeBudget(async () => {
      last?.destroy();
      last = await impl.buildRays?.(boxes);
    }, cfg.buildBudget);
    if (last) {
      scenes.set(impl, last);
    }
    out.rows.push(makeRow({
      workload: 'build', implementation: impl.name, n: boxes.count, queries: 0, stats: s, work: boxes.count,
      unit: 'boxes/s', agrees: null, timing: impl.device === 'gpu' ? 'end-to-end' : 'cpu',
      note: buildNote(impl),
    }));
  }
  return scenes;
}

function buildNote(impl: Implementation): string {
  switch (impl.name) {
    case 'gpu-brute': return 'validate, pack, upload, wait for the queue';
    case 'gpu-bvh': return 'validate, pack, upload, BVH build on the GPU (bounds, Morton codes, radix sort, hierarchy, refit)';
    case 'rapier':
    case 'rapier-simd': return 'World + one cuboid collider per box + world.step() (castRay sees nothing before it)';
    case 'three': return 'world matrix and its inverse per box';
    case 'three-mesh-bvh-gpu': return 'a Mesh per box (own BoxGeometry, rigid matrix), BVHComputeData.update() (a MeshBVH per box, SAH TLAS, packing), first dispatch (upload)';
    case 'three-mesh-bvh-gpu-instanced': return 'one InstancedMesh (unit BoxGeometry, scaled matrices), BVHComputeData.update() (one shared MeshBVH, SAH TLAS, packing), first dispatch (upload)';
    default: return '';
  }
}

/**
 * Times closest-hit queries of `rays` on each scene, interleaved (one sample of each per round),
 * and checks them against the reference on the reference's slice of the rays. Rows are in
 * registry order.
 */
async function queryAll(
  workload: string, unit: 'rays/s' | 'tests/s', boxes: BoxArray, rays: RayArray,
  scenes: Map<Implementation, RayScene>, cfg: BenchConfig, out: SuiteResult, raysNote = '',
): Promise<void> {
  const n = boxes.count;
  const impls = [...scenes.keys()];
  const ref = impls.find((i) => i.kind === 'reference');
  // The reference's answers on its slice are what every implementation is checked against.
  const refCount = ref ? cpuSlice(ref, n, rays.count, cfg) : Math.min(rays.count, Math.max(1, Math.floor(cfg.cpuTestsPerRun / n)));
  const refRays = raySlice(rays, refCount);
  const order = ref ? [ref, ...impls.filter((i) => i !== ref)] : impls;
  const runs = order.map((impl) => {
    const count = Math.max(cpuSlice(impl, n, rays.count, cfg), impl.kind === 'reference' ? 0 : refCount);
    return { impl, scene: scenes.get(impl)!, count, rays: raySlice(rays, count), hits: undefined as BenchHits | undefined };
  });
  const timed = await timeInterleaved(runs.map((r) => async () => {
    r.hits = await r.scene.closestHit(r.rays);
  }), cfg.budget);
  const refHits: ClosestHits = ref ? (runs[0]!.hits as ClosestHits) : closestHit(boxes, refRays);
  const rowsByImpl = new Map<Implementation, Row[]>();
  for (const [k, { impl, scene, count, rays: mine, hits }] of runs.entries()) {
    const s = timed[k]!;
    const check = checkClosestHits(boxes, refRays, refHits, hits!, scene.origin, `${workload} n=${fmt(n)} ${impl.name}`);
    if (check.details) {
      out.notes.push(check.details);
    }
    const work = unit === 'rays/s' ? count : count * n;
    const sliceNote = count < rays.count ? `first ${fmt(count)} of ${fmt(rays.count)} rays (brute force on one CPU thread)` : '';
    const checkNote = refCount < rays.count ? `checked on the first ${fmt(refCount)} rays` : '';
    const rows: Row[] = [makeRow({
      workload, implementation: impl.name, n, queries: count, stats: s, work, unit,
      agrees: check.agrees, timing: impl.device === 'gpu' ? 'end-to-end' : 'cpu', check: check.summary,
      note: [raysNote, sliceNote, impl.kind !== 'reference' ? checkNote : ''].filter(Boolean).join('; '),
    })];
    if (scene.timeKernel) {
      const kernelRuns = Math.max(cfg.budget.minRuns, Math.min(cfg.budget.maxRuns, Math.round(cfg.budget.budgetMs / Math.max(s.median, 1e-3))));
      const kt = await scene.timeKernel(mine, kernelRuns);
      rows.push(makeRow({
        workload, implementation: `${impl.name}-kernel`, n, queries: count, stats: stats(kt.samples), work, unit,
        agrees: check.agrees, timing: kt.timing, wallMedian: stats(kt.wallSamples).median,
        note: [raysNote, 'kernel only: rays already on the GPU, no readback; timed after the interleaved rows'].filter(Boolean).join('; '),
      }));
    }
    rowsByImpl.set(impl, rows);
  }
  for (const impl of impls) {
    out.rows.push(...(rowsByImpl.get(impl) ?? []));
  }
}

function destroyAll(scenes: Map<Implementation, RayScene>): void {
  for (const s of scenes.values()) {
    s.destroy();
  }
}

/**
 * Picking: `rayCounts` camera rays (1 and 1,024) against `n` boxes; also the `build` rows for n.
 * Workload names: `build`, `picking-1`, `picking-1024` (n in the row).
 */
export async function picking(n: number, rayCounts: readonly number[], cfg: BenchConfig): Promise<SuiteResult> {
  const out: SuiteResult = { rows: [], notes: [] };
  const boxes = pickingScene(n);
  const impls = selectImplementations(cfg.implementations);
  const scenes = await buildAll(impls, boxes, cfg, out, true);
  try {
    for (const c of rayCounts) {
      await queryAll(`picking-${c}`, 'rays/s', boxes, pickingRays(c, n), scenes, cfg, out);
    }
  } finally {
    destroyAll(scenes);
  }
  return out;
}

/**
 * The LiDAR sweep: `elevations` × `azimuths` rays from one sensor (128 × 2,048 = 262,144 in full
 * mode) against `n` boxes. Always named `lidar-262k-10k`; quick mode runs fewer azimuth steps and
 * says so in the row.
 */
export async function lidar(n: number, elevations: number, azimuths: number, cfg: BenchConfig): Promise<SuiteResult> {
  const out: SuiteResult = { rows: [], notes: [] };
  const boxes = lidarScene(n);
  const rays = lidarRays(elevations, azimuths);
  const impls = selectImplementations(cfg.implementations);
  const scenes = await buildAll(impls, boxes, cfg, out, false);
  for (const impl of impls) {
    const scene = await impl.buildLidar?.(boxes, elevations, azimuths);
    if (scene) {
      scenes.set(impl, scene);
    }
  }
  const ordered = new Map(impls.filter((i) => scenes.has(i)).map((i) => [i, scenes.get(i)!] as const));
  const note = azimuths < LIDAR.azimuths || elevations < LIDAR.elevations
    ? `${elevations} × ${fmt(azimuths)} azimuth steps (${fmt(rays.count)} rays) of the full ${LIDAR.elevations} × ${fmt(LIDAR.azimuths)} sweep`
    : '';
  try {
    await queryAll('lidar-262k-10k', 'rays/s', boxes, rays, ordered, cfg, out, note);
  } finally {
    destroyAll(ordered);
  }
  return out;
}

/**
 * Brute-force ray–box tests per second: `rayCount` camera rays × `n` boxes, for the
 * implementations that test every box (not Rapier, whose BVH skips most).
 */
export async function bruteRays(rayCount: number, n: number, cfg: BenchConfig): Promise<SuiteResult> {
  const out: SuiteResult = { rows: [], notes: [] };
  const boxes = pickingScene(n);
  const impls = selectImplementations(cfg.implementations).filter((i) => i.bruteForce);
  const scenes = await buildAll(impls, boxes, cfg, out, false);
  try {
    await queryAll('brute-rays', 'tests/s', boxes, pickingRays(rayCount, n), scenes, cfg, out);
  } finally {
    destroyAll(scenes);
  }
  return out;
}
