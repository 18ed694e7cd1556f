/**
 * The GPU brute-force path: every ray against every box, every pair of boxes (src/gpu). Timed end
 * to end (validation, packing, upload, dispatch, readback) and, for rays, the kernel alone.
 */
import type { BoxArray, RayArray } from '../../../src/index.ts';
import { sharedGpu } from '../gpu.ts';
import { timeClosestKernel } from './gpuKernel.ts';
import type { Implementation, KernelTiming } from './types.ts';

export const gpuBrute: Implementation = {
  name: 'gpu-brute',
  kind: 'gpu',
  bruteForce: true,
  device: 'gpu',

  async version() {
    return (await sharedGpu()).adapterName;
  },

  async buildRays(boxes: BoxArray) {
    const g = await sharedGpu();
    const set = g.createBoxSet(boxes);
    // The upload is queued; the scene is ready once the GPU has it.
    await g.ctx.device.queue.onSubmittedWorkDone();
    return {
      origin: set.origin,
      closestHit: (rays: RayArray) => g.closestHit(set, rays, { accel: 'brute' }),
      timeKernel: (rays: RayArray, runs: number): Promise<KernelTiming> => timeClosestKernel(g, set, rays, runs),
      destroy: () => set.destroy(),
    };
  },

  async pairs(boxes: BoxArray, pairs: Uint32Array) {
    const g = await sharedGpu();
    const set = g.createBoxSet(boxes);
    await g.ctx.device.queue.onSubmittedWorkDone();
    return {
      origin: set.origin,
      run: () => g.obbPairs(set, pairs),
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
        await set.set(next);
        return (await g.allPairs(set, { accel: 'brute' })).pairs;
      },
      destroy: () => set.destroy(),
    };
  },
};
