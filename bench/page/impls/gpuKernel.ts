/**
 * Times the closest-hit kernel alone (rays already on the GPU, nothing read back), for the GPU
 * implementations: brute force, or a walk of `tree` when given.
 */
import { type BoxSet, type ObbGpu, type RayArray } from '../../../src/index.ts';
import { HIT, RAY, packRays, type Bvh } from '../../../src/advanced.ts';
import { timeGpu } from '../measure.ts';
import type { KernelTiming } from './types.ts';

export async function timeClosestKernel(g: ObbGpu, set: BoxSet, rays: RayArray, runs: number, tree?: Bvh): Promise<KernelTiming> {
  const device = g.ctx.device;
  const n = rays.count;
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
}
