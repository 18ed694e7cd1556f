/**
 * `webgpu-obb/three`: three.js scenes on the GPU box queries. three.js is an optional peer
 * dependency; nothing of this entry is in the main one.
 *
 * - {@link ThreeBoxes}: every Mesh and InstancedMesh instance of a scene as a box, `sync()` of
 *   what moved, `pick` / `pickAt` / `pickEach` returning three.js intersections, and marquee
 *   `select`.
 * - {@link ThreeGpuInstances}: an InstancedMesh whose matrices a compute node writes (storage
 *   instancing) as a GPU-sourced set, with no CPU copy.
 * - {@link obbGpuFor}: an ObbGpu on a WebGPURenderer's own device (so its buffers can feed the
 *   renderer's passes), or on a device of its own for a WebGLRenderer.
 *
 * @example
 * import { ThreeBoxes, obbGpuFor } from 'webgpu-obb/three';
 * const gpu = await obbGpuFor(renderer);
 * const boxes = await ThreeBoxes.create(gpu, [scene]);
 * canvas.onpointerdown = async (e) => {
 *   const [hit] = await boxes.pickAt((e.offsetX / canvas.clientWidth) * 2 - 1, 1 - (e.offsetY / canvas.clientHeight) * 2, camera);
 *   if (hit) console.log(hit.object.name, hit.instanceId, hit.distance);
 * };
 */
import { ObbGpu, type ObbGpuOptions } from '../ObbGpu.ts';

export { ThreeGpuInstances, THREE_GPU_INSTANCES_REVISIONS, checkThreeRevision, type ThreeGpuInstancesOptions } from './ThreeGpuInstances.ts';
export { ThreeBoxes, type LayersLike, type NdcRect, type Selected, type ShearPolicy, type SyncReport, type ThreeBoxesOptions } from './ThreeBoxes.ts';

/** What obbGpuFor reads of a renderer: a WebGPURenderer's backend device, after `init()`. */
export interface RendererLike {
  /** WebGPURenderer's `init()`: resolves once the backend and its device exist. */
  init?(): Promise<unknown>;
  readonly backend?: object | null;
}

/**
 * An ObbGpu for a three.js renderer: on the renderer's own GPUDevice when it is a WebGPURenderer
 * on a WebGPU backend (awaits its `init()` first), so result buffers of the library can be bound
 * in the renderer's passes; else on a device of its own (a WebGLRenderer, or the WebGL 2 fallback
 * of a WebGPURenderer). The renderer keeps ownership of a shared device: `gpu.destroy()` leaves
 * it alone.
 *
 * @example
 * const gpu = await obbGpuFor(renderer); // no cast needed
 */
export async function obbGpuFor(renderer: RendererLike | undefined, options: Omit<ObbGpuOptions, 'device'> = {}): Promise<ObbGpu> {
  if (renderer?.init) {
    await renderer.init();
  }
  // three's declared Backend type has no `device`; the WebGPU backend has one after init().
  const device = (renderer?.backend as { device?: GPUDevice | null } | null | undefined)?.device ?? undefined;
  return ObbGpu.create(device ? { ...options, device } : options);
}
