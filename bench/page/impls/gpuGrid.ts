/**
 * All pairs among moving boxes through a uniform grid built for each query (ObbGpu.allPairs with
 * `accel: 'grid'`): no tree to rebuild or refit. Serves the all-pairs workload only.
 */
import type { BoxArray } from '../../../src/index.ts';
import { gpuVersion, movingAllPairs } from './gpuScene.ts';
import type { Implementation } from './types.ts';

export const gpuGrid: Implementation = {
  name: 'gpu-grid',
  kind: 'gpu',
  bruteForce: false,
  device: 'gpu',
  version: gpuVersion,
  moving: (boxes: BoxArray) => movingAllPairs(boxes, 'grid'),
};
