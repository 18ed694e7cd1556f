/**
 * Running a scene's queries: on the float64 reference (runReference, runSceneCpu) or on an
 * ObbGpu (runSceneGpuRaw, runSceneGpu), the set uploaded once and reused by every query.
 *
 * @example
 * const cpu = runSceneCpu(scene); // { backend: 'cpu', adapter: 'cpu reference (float64)', … }
 */
import type { Accel, ObbGpu } from '../ObbGpu.ts';
import { count, type Scene } from '../files/scene.ts';
import { sceneResultFromCpu, sceneResultFromGpu, type GpuSceneRaw, type LidarImages, type SceneResult } from '../files/results.ts';
import { hasReturnNoise } from '../core/lidar.ts';
import { runReference, sceneMotion, type ProgressFn } from '../judge/judge.ts';
import type { LidarSensor } from '../lidar/LidarSensor.ts';

export { runReference, type ProgressFn } from '../judge/judge.ts';

/**
 * Runs a scene on the float64 CPU reference: closest hit per ray (within its max distance), SAT
 * per listed pair, and every overlapping pair when asked.
 *
 * @example
 * runSceneCpu(parseScene(json)) // { backend: 'cpu', adapter: 'cpu reference (float64)', rays: [...] }
 */
export function runSceneCpu(scene: Scene, onProgress?: ProgressFn): SceneResult {
  return sceneResultFromCpu(scene, runReference(scene, onProgress));
}

/**
 * Awaits `wait` (one GPU submission, which has no progress of its own to report) and, after two
 * seconds, says so once a second with its counts and the time so far, so that a long sweep is
 * not silent; the lines are periodic (a caller printing one summary per scene may drop them).
 *
 * @example
 * declare const jobs: Parameters<typeof gpu.lidarSweepMany>[1]; // two sensors' sweeps
 * const sweeps = await heartbeat(console.error, 'LiDAR: 2 sweeps, 524,288 rays', gpu.lidarSweepMany(set, jobs));
 * // LiDAR: 2 sweeps, 524,288 rays: waiting for the GPU, 3 s so far
 */
export async function heartbeat<T>(onProgress: ProgressFn | undefined, what: string, wait: Promise<T>, now: () => number = () => Date.now()): Promise<T> {
  if (!onProgress) {
    return wait;
  }
  const started = now();
  const timer = setInterval(() => {
    const s = Math.round((now() - started) / 1000);
    if (s >= 2) {
      onProgress(`${what}: waiting for the GPU, ${s} s so far`, true);
    }
  }, 1000);
  try {
    return await wait;
  } finally {
    clearInterval(timer);
  }
}

/**
 * Runs a scene on the GPU and returns the typed results as plain arrays ({@link GpuSceneRaw}).
 * The boxes are uploaded once; every query reuses the set.
 *
 * @example
 * const raw = await runSceneGpuRaw(scene, await ObbGpu.create());
 */
export async function runSceneGpuRaw(scene: Scene, gpu: ObbGpu, onProgress?: ProgressFn, accel: Accel = 'auto'): Promise<GpuSceneRaw> {
  const set = gpu.createBoxSet(scene.boxes);
  try {
    const out: { -readonly [K in keyof GpuSceneRaw]: GpuSceneRaw[K] } = {
      adapter: gpu.adapterName,
      origin: [set.origin[0], set.origin[1], set.origin[2]],
    };
    if (scene.rays) {
      onProgress?.(`closest hit: ${count(scene.rays.count, 'ray', 'rays')} × ${count(scene.boxes.count, 'box', 'boxes')}${gpu.accelFor('rays', scene.boxes.count, accel) === 'bvh' ? ' (BVH)' : ''}…`);
      const h = await gpu.closestHit(set, scene.rays, { geometry: true, accel });
      const n = h.count;
      const box = Array.from(h.box);
      // Misses carry t = Infinity, which JSON cannot hold; box -1 already says "miss".
      const t = Array.from(h.t, (x, r) => (box[r] === -1 ? 0 : x));
      const normal = h.normal ? Array.from(h.normal) : new Array<number>(3 * n).fill(0);
      out.rays = { box, t, face: Array.from(h.face), inside: Array.from(h.inside), normal };
    }
    if (scene.pairs) {
      onProgress?.(`pairs: ${count(scene.pairs.length / 2, 'SAT test', 'SAT tests')}…`);
      const p = await gpu.obbPairs(set, scene.pairs);
      out.pairs = { overlap: Array.from(p.overlap), gap: Array.from(p.gap), axis: Array.from(p.axis) };
    }
    if (scene.allPairs) {
      const n = scene.boxes.count;
      const path = gpu.accelFor('allPairs', n, accel);
      const broad = path === 'bvh' ? ' (BVH)' : path === 'grid' ? ' (grid, or BVH if crowded)' : undefined;
      onProgress?.(broad ? `all pairs: ${count(n, 'box', 'boxes')}${broad}…` : `all pairs: ${count(n, 'box', 'boxes')}, ${count((n * (n - 1)) / 2, 'SAT test', 'SAT tests')}…`);
      out.allPairs = Array.from((await gpu.allPairs(set, { accel })).pairs);
    }
    if (scene.lidars && scene.lidars.length > 0) {
      const rays = scene.lidars.reduce((n, l) => n + l.desc.elevations.length * l.desc.azimuthSteps, 0);
      onProgress?.(`LiDAR: ${count(scene.lidars.length, 'sweep', 'sweeps')}, ${count(rays, 'ray', 'rays')} × ${count(scene.boxes.count, 'box', 'boxes')}, one submission…`);
      const sensors: LidarSensor[] = [];
      try {
        for (const l of scene.lidars) {
          sensors.push(await gpu.createLidar(l.desc));
        }
        if (scene.materials) {
          await set.setMaterials(scene.materials);
        }
        const sweeps = await heartbeat(onProgress, `LiDAR: ${count(scene.lidars.length, 'sweep', 'sweeps')}, ${count(rays, 'ray', 'rays')}`, gpu.lidarSweepMany(set, scene.lidars.map((l, k) => ({
          sensor: sensors[k]!, pose: l.pose,
          // What the beam sees: the intensities when the result carries them, the seed, each pass of a returns stage (what the judge checks).
          options: { ...sceneMotion(scene, l), seed: l.seed, intensity: l.intensity, passes: hasReturnNoise(l.desc) || l.desc.beam !== undefined },
        }))));
        out.lidars = sweeps.map((s) => {
          const images = (i: { range: ArrayLike<number>; box: ArrayLike<number>; intensity: ArrayLike<number> }): LidarImages =>
            ({ range: Array.from(i.range), box: Array.from(i.box), intensity: Array.from(i.intensity) });
          return {
            range: Array.from(s.range), box: Array.from(s.box), returnsPerBox: Array.from(s.returnsPerBox),
            ...(s.intensity ? { intensity: Array.from(s.intensity) } : {}),
            ...(s.returnCount ? { returnCount: Array.from(s.returnCount) } : {}),
            ...(s.second ? { second: images(s.second) } : {}),
            ...(s.passes ? { passes: s.passes.map(images) } : {}),
          };
        });
      } finally {
        for (const sensor of sensors) {
          sensor.destroy();
        }
      }
    } else if (scene.lidars) {
      out.lidars = [];
    }
    return out;
  } finally {
    set.destroy();
  }
}

/**
 * Runs a scene on the GPU: the result file and the raw typed results (for the comparator).
 *
 * @example
 * const { result, raw } = await runSceneGpu(scene, gpu);
 */
export async function runSceneGpu(
  scene: Scene, gpu: ObbGpu, onProgress?: ProgressFn,
): Promise<{ result: SceneResult; raw: GpuSceneRaw }> {
  const raw = await runSceneGpuRaw(scene, gpu, onProgress);
  return { result: sceneResultFromGpu(scene, raw), raw };
}
