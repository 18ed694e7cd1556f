/**
 * `webgpu-obb verify`: the GPU's raw results for a scene, classified against the float64
 * reference by the comparator (src/compare/), and a printable report.
 *
 * Browser- and Node-safe; the CLI runs it in Node on the arrays the GPU page returned. The
 * comparisons themselves are the judge's (src/judge/judge.ts), which any implementation's result
 * file goes through too.
 */
import type { ClosestHits } from '../reference/raycast.ts';
import type { PairResults } from '../reference/pairs.ts';
import type { Scene } from '../files/scene.ts';
import type { CpuSceneRaw, GpuSceneRaw, LidarImages } from '../files/results.ts';
import type { ParsedImages } from '../judge/result.ts';
import { compareAnswers, type ProgressFn, type SceneComparison } from '../judge/judge.ts';

export { formatSceneComparison, type SceneComparison } from '../judge/judge.ts';

function gpuClosestHits(raw: NonNullable<GpuSceneRaw['rays']>): ClosestHits {
  const n = raw.box.length;
  const box = Int32Array.from(raw.box);
  const t = Float32Array.from(raw.t, (x, r) => (box[r] === -1 ? Infinity : x));
  return { count: n, box, t, face: Uint8Array.from(raw.face), inside: Uint8Array.from(raw.inside) };
}

function gpuPairResults(raw: NonNullable<GpuSceneRaw['pairs']>): PairResults {
  return {
    count: raw.gap.length,
    overlap: Uint8Array.from(raw.overlap),
    gap: Float32Array.from(raw.gap),
    axis: Uint8Array.from(raw.axis),
  };
}

/**
 * Classifies every GPU result of a scene against the reference (computed here unless `ref` is
 * given). Throws when the GPU results do not cover the scene's queries.
 *
 * @example
 * const cmp = compareScene(scene, raw);
 * if (!cmp.ok) process.exitCode = 1;
 */
export function compareScene(scene: Scene, gpu: GpuSceneRaw, ref?: CpuSceneRaw, onProgress?: ProgressFn): SceneComparison {
  if (scene.rays && (!gpu.rays || gpu.rays.box.length !== scene.rays.count)) {
    throw new Error(`GPU returned ${gpu.rays?.box.length ?? 'no'} closest hits for ${scene.rays.count} rays`);
  }
  if (scene.pairs && (!gpu.pairs || gpu.pairs.gap.length !== scene.pairs.length / 2)) {
    throw new Error(`GPU returned ${gpu.pairs?.gap.length ?? 'no'} pair results for ${scene.pairs.length / 2} pairs`);
  }
  if (scene.allPairs && !gpu.allPairs) {
    throw new Error('GPU returned no all-pairs list');
  }
  if (scene.lidars && gpu.lidars?.length !== scene.lidars.length) {
    throw new Error(`GPU returned ${gpu.lidars?.length ?? 'no'} LiDAR sweeps for ${scene.lidars.length}`);
  }
  return compareAnswers(scene, {
    ...(gpu.rays ? { hits: gpuClosestHits(gpu.rays) } : {}),
    ...(gpu.pairs ? { pairs: gpuPairResults(gpu.pairs) } : {}),
    ...(gpu.allPairs ? { allPairs: Uint32Array.from(gpu.allPairs) } : {}),
    ...(gpu.lidars ? {
      lidars: gpu.lidars.map((l) => {
        const images = (i: LidarImages): ParsedImages => ({ range: Float64Array.from(i.range), box: Int32Array.from(i.box), intensity: Float64Array.from(i.intensity) });
        return {
          range: Float64Array.from(l.range), box: Int32Array.from(l.box), returnsPerBox: Uint32Array.from(l.returnsPerBox),
          ...(l.intensity ? { intensity: Float64Array.from(l.intensity) } : {}),
          ...(l.returnCount ? { returnCount: Uint8Array.from(l.returnCount) } : {}),
          ...(l.second ? { second: images(l.second) } : {}),
          ...(l.passes ? { passes: l.passes.map(images) } : {}),
        };
      }),
    } : {}),
  }, { origin: gpu.origin, ...(ref ? { reference: ref } : {}), ...(onProgress ? { onProgress } : {}) });
}
