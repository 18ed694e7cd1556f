/**
 * The GPU BVH path (issue #4): boxes uploaded and a linear BVH built on the GPU (timed as the
 * `build` rows), rays walking it, and all-pairs by the BVH broad phase with a rebuild per frame.
 */
import type { BoxArray, RayArray } from '../../../src/index.ts';
import { sharedGpu } from '../gpu.ts';
import { timeClosestKernel } from './gpuKernel.ts';
import type { Implementation, KernelTiming } from './types.ts';

export const gpuBvh: Implementation = {
  name: 'gpu-bvh',
  kind: 'gpu',
  bruteForce: false,
  device: 'gpu',

  async version() {
    return (await sharedGpu()).adapterName;
  },

  async buildRays(boxes: BoxArray) {
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

  async moving(boxes: BoxArray) {
    const g = await sharedGpu();
    const set = g.createBoxSet(boxes);
    await g.ctx.device.queue.onSubmittedWorkDone();
    return {
      origin: set.origin,
      async frame(next: BoxArray) {
        // set() replaces the boxes: the next BVH query rebuilds the tree (rebuild + query).
        await set.set(next);
        return (await g.allPairs(set, { accel: 'bvh' })).pairs;
      },
      destroy: () => set.destroy(),
    };
  },
};
