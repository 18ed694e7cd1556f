/**
 * The GPU brute-force path: every ray against every box, every pair of boxes (src/gpu). Timed end
 * to end (validation, packing, upload, dispatch, readback) and, for rays, the kernel alone.
 */
import type { BoxArray, RayArray } from '../../../src/index.ts';
import { timeClosestKernel } from './gpuKernel.ts';
import { gpuVersion, movingAllPairs, uploaded } from './gpuScene.ts';
import type { Implementation, KernelTiming } from './types.ts';

export const gpuBrute: Implementation = {
  name: 'gpu-brute',
  kind: 'gpu',
  bruteForce: true,
  device: 'gpu',
  version: gpuVersion,

  async buildRays(boxes: BoxArray) {
    const { g, set } = await uploaded(boxes);
    return {
      origin: set.origin,
      closestHit: (rays: RayArray) => g.closestHit(set, rays, { accel: 'brute' }),
      timeKernel: (rays: RayArray, runs: number): Promise<KernelTiming> => timeClosestKernel(g, set, rays, runs),
      destroy: () => set.destroy(),
    };
  },

  async pairs(boxes: BoxArray, pairs: Uint32Array) {
    const { g, set } = await uploaded(boxes);
    return {
      origin: set.origin,
      run: () => g.obbPairs(set, pairs),
      destroy: () => set.destroy(),
    };
  },

  moving: (boxes: BoxArray) => movingAllPairs(boxes, 'brute'),
};
