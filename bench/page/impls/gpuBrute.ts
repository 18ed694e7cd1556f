/**
 * The GPU brute-force path: every ray against every box, every pair of boxes (src/gpu). Timed end
 * to end (validation, packing, upload, dispatch, readback) and, for rays, the kernel alone.
 */
import { HIT, RAY, packRays, type BoxArray, type RayArray } from '../../../src/index.ts';
import { sharedGpu } from '../gpu.ts';
import { timeGpu } from '../measure.ts';
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
      async timeKernel(rays: RayArray, runs: number): Promise<KernelTiming> {
        const device = g.ctx.device;
        const n = rays.count;
        const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
        const rayBuf = device.createBuffer({ label: 'bench:rays', size: Math.max(16, n * RAY.SIZE), usage });
        const hitBuf = device.createBuffer({ label: 'bench:hits', size: Math.max(16, n * HIT.SIZE), usage: GPUBufferUsage.STORAGE });
        const geoBuf = device.createBuffer({ label: 'bench:geometry', size: 32, usage: GPUBufferUsage.STORAGE });
        try {
          device.queue.writeBuffer(rayBuf, 0, packRays(rays, set.origin));
          const k = await timeGpu(device, (enc, ts) => g.rays.encodeClosestHit(enc, set, rayBuf, n, hitBuf, geoBuf,
            ts ? { geometry: false, timestampWrites: ts } : { geometry: false }), runs, 0);
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
