/**
 * The GPU BVH path (issue #4): boxes uploaded and a linear BVH built on the GPU (timed as the
 * `build` rows), rays walking it, and all-pairs by the BVH broad phase with a rebuild per frame.
 */
import type { BoxArray, RayArray } from '../../../src/index.ts';
import { timeClosestKernel } from './gpuKernel.ts';
import { sharedGpu } from '../gpu.ts';
import { gpuVersion, movingAllPairs } from './gpuScene.ts';
import type { Implementation, KernelTiming } from './types.ts';

export const gpuBvh: Implementation = {
  name: 'gpu-bvh',
  kind: 'gpu',
  bruteForce: false,
  device: 'gpu',
  version: gpuVersion,

  async buildRays(boxes: BoxArray) {
    // Upload and build queued together: the `build` row times both.
    const g = await sharedGpu();
    const set = g.createBoxSet(boxes);
    await g.buildBvh(set);
    await g.ctx.device.queue.onSubmittedWorkDone();
    return {
      origin: set.origin,
      closestHit: (rays: RayArray) => g.closestHit(set, rays, { accel: 'bvh' }),
      async timeKernel(rays: RayArray, runs: number): Promise<KernelTiming> {
        return timeClosestKernel(g, set, rays, runs, await g.bvhOf(set));
      },
      destroy: () => set.destroy(),
    };
  },

  // set() replaces the boxes: the next BVH query rebuilds the tree (rebuild + query).
  moving: (boxes: BoxArray) => movingAllPairs(boxes, 'bvh'),
};
