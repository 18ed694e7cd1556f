/**
 * The implementation registry: every row of `npm run bench` comes from one of these, keyed by
 * its row name. Workloads iterate over the registry and use whatever capability each entry has
 * (buildRays, buildLidar, pairs, moving), so adding a backend is adding an entry here.
 */
import { gpuBrute } from './gpuBrute.ts';
import { gpuBvh } from './gpuBvh.ts';
import { gpuGrid } from './gpuGrid.ts';
import { gpuRaster } from './gpuRaster.ts';
import { rapier, rapierSimd } from './rapier.ts';
import { reference } from './reference.ts';
import { three } from './three.ts';
import { threeMeshBvhGpu, threeMeshBvhGpuInstanced } from './threeMeshBvhGpu.ts';
import type { Implementation } from './types.ts';

export type { Implementation } from './types.ts';

/** In row order: GPU paths first, then the reference, then peers. */
export const IMPLEMENTATIONS: readonly Implementation[] = [
  gpuBrute,
  gpuBvh,
  gpuRaster,
  gpuGrid,
  reference,
  rapier,
  rapierSimd,
  three,
  threeMeshBvhGpu,
  threeMeshBvhGpuInstanced,
];

/** The registered implementations whose names are in `names` (all when undefined). */
export function selectImplementations(names: readonly string[] | undefined): Implementation[] {
  return IMPLEMENTATIONS.filter((i) => !names || names.includes(i.name));
}
