/**
 * What the GPU implementations share: their version (the adapter), a set uploaded and ready, and
 * a moving scene answered by `allPairs` with a given `accel`.
 */
import type { BoxArray, BoxSet, ObbGpu } from '../../../src/index.ts';
import { sharedGpu } from '../gpu.ts';
import type { MovingScene } from './types.ts';

export async function gpuVersion(): Promise<string> {
  return (await sharedGpu()).adapterName;
}

/** `boxes` as a BoxSet on the shared GPU, once the GPU has them (the upload is queued). */
export async function uploaded(boxes: BoxArray): Promise<{ g: ObbGpu; set: BoxSet }> {
  const g = await sharedGpu();
  const set = g.createBoxSet(boxes);
  await g.ctx.device.queue.onSubmittedWorkDone();
  return { g, set };
}

/** Each frame replaces the boxes (BoxSet.set: a BVH is rebuilt on its next query) and lists every pair. */
export async function movingAllPairs(boxes: BoxArray, accel: 'brute' | 'bvh' | 'grid'): Promise<MovingScene> {
  const { g, set } = await uploaded(boxes);
  return {
    origin: set.origin,
    async frame(next: BoxArray) {
      await set.set(next);
      return (await g.allPairs(set, { accel })).pairs;
    },
    destroy: () => set.destroy(),
  };
}
