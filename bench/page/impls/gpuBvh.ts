/**
 * The GPU BVH path (issue #4): boxes uploaded and a linear BVH built on the GPU (timed as the
 * `build` rows), rays walking it, and all-pairs by the BVH broad phase with a rebuild per frame.
 */
import { HIT, RAY, packRays, type BoxArray, type RayArray } from '../../../src/index.ts';
import { sharedGpu } from '../gpu.ts';
import { timeGpu } from '../measure.ts';
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
        const device = g.ctx.device;
        const n = rays.count;
        const tree = await g.bvhOf(set);
        const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
        const rayBuf = device.createBuffer({ label: 'bench:rays', size: Math.max(16, n * RAY.SIZE), usage });
        const hitBuf = device.createBuffer({ label: 'bench:hits', size: Math.max(16, n * HIT.SIZE), usage: GPUBufferUsage.STORAGE });
        const geoBuf = device.createBuffer({ label: 'bench:geometry', size: 32, usage: GPUBufferUsage.STORAGE });
        try {
          device.queue.writeBuffer(rayBuf, 0, packRays(rays, set.origin));
          const k = await timeGpu(device, (enc, ts) => g.rays.encodeClosestHit(enc, set, rayBuf, n, hitBuf, geoBuf,
            { geometry: false, ...(ts ? { timestampWrites: ts } : {}), ...(tree ? { tree } : {}) }), runs, 0);
          return { samples: k.samples, wallSamples: k.wallSamples, timing: k.timing };
        } finally {
          rayBuf.destroy();
          hitBuf.destroy();
          geoBuf.destroy();
        }
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
