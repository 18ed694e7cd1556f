/** Suite `smoke`: the first end-to-end query through the public API. */
import { getGpu } from '../shared.ts';

export async function oneRay(): Promise<{ box: number; t: number; face: number; adapter: string }> {
  const gpu = await getGpu();
  const set = gpu.createBoxSet([{ center: [0, 0, 0], halfExtents: [1, 1, 1], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] }], { origin: [0, 0, 0] });
  const hits = await gpu.closestHit(set, [{ origin: [-10, 0, 0], direction: [1, 0, 0] }]);
  set.destroy();
  return { box: hits.box[0]!, t: hits.t[0]!, face: hits.face[0]!, adapter: gpu.adapterName };
}
