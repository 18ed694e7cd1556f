/**
 * All pairs among moving boxes through a uniform grid built for each query (ObbGpu.allPairs with
 * `accel: 'grid'`): no tree to rebuild or refit. Serves the all-pairs workload only.
 */
import type { BoxArray } from '../../../src/index.ts';
import { sharedGpu } from '../gpu.ts';
import type { Implementation } from './types.ts';

export const gpuGrid: Implementation = {
  name: 'gpu-grid',
  kind: 'gpu',
  bruteForce: false,
  device: 'gpu',

  async version() {
    return (await sharedGpu()).adapterName;
  },

  async moving(boxes: BoxArray) {
    const g = await sharedGpu();
    const set = g.createBoxSet(boxes);
    await g.ctx.device.queue.onSubmittedWorkDone();
    return {
      origin: set.origin,
      async frame(next: BoxArray) {
        await set.set(next);
        return (await g.allPairs(set, { accel: 'grid' })).pairs;
      },
      destroy: () => set.destroy(),
    };
  },
};
