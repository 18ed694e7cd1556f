/**
 * A three.js `InstancedMesh` whose instance matrices live in a storage buffer (WebGPURenderer:
 * `mesh.instanceMatrix` a `StorageInstancedBufferAttribute`, e.g. `instancedArray(n, 'mat4').value`,
 * written by a TSL compute node) as a GPU-sourced box set: the boxes are derived on the GPU from
 * the very buffer three draws from, with no CPU copy (GpuSourcedBoxSet; the guide:
 * docs/queries.md, "Boxes that live on the GPU").
 *
 * three.js has no public way to reach the `GPUBuffer` behind a storage attribute: the WebGPU
 * backend keeps it in its per-object data, `renderer.backend.get(attribute).buffer`
 * (WebGPUAttributeUtils.createAttribute). This module reads it there, behind a revision check
 * ({@link THREE_GPU_INSTANCES_REVISIONS}: the three.js revisions it was tested on), and
 * test/gpu/threeGpuInstances.test.ts proves on every run that the buffer found is the one three
 * reads (a value written to it comes back through three's public `getArrayBufferAsync`).
 */
import { REVISION } from 'three';
import type { InstancedMesh } from 'three';
import type { GpuSourcedBoxSet, RefreshOptions, RefreshResult, GpuSourcedReadBack } from '../boxes/GpuSourcedBoxSet.ts';
import type { Aabb, Vec3 } from '../core/types.ts';
import { ValidationError } from '../errors.ts';
import type { ObbGpu } from '../ObbGpu.ts';
import type { RendererLike } from './index.ts';

/**
 * The three.js revisions ThreeGpuInstances reads the private `renderer.backend.get(attribute).buffer`
 * on: those it was tested on. Another revision is refused by name (widen the range after
 * test/gpu/threeGpuInstances.test.ts passes on it).
 */
export const THREE_GPU_INSTANCES_REVISIONS = { min: 187, max: 187 } as const;

/** Options of {@link ThreeGpuInstances.create}. */
export interface ThreeGpuInstancesOptions {
  /** Floating origin of the set (float64, world; default [0, 0, 0]): put it amid the instances. */
  readonly origin?: Vec3;
  readonly label?: string;
}

/** What the adapter reads of a storage instance-matrix attribute (three's StorageInstancedBufferAttribute). */
interface StorageMatrices {
  readonly isStorageInstancedBufferAttribute?: boolean;
  readonly count: number;
  readonly itemSize: number;
}

/** The WebGPU backend's private per-object data (three r187: Backend.get / has). */
interface BackendLike {
  readonly device?: GPUDevice | null;
  has?(object: object): boolean;
  get?(object: object): { buffer?: GPUBuffer } | undefined;
}

/**
 * Refuses a three.js revision outside {@link THREE_GPU_INSTANCES_REVISIONS} (default: the
 * installed one), naming it.
 *
 * @example
 * checkThreeRevision();        // passes on r187
 * checkThreeRevision('188');   // ValidationError: … three.js r188 …
 */
export function checkThreeRevision(revision: string = REVISION): void {
  const r = Number.parseInt(revision, 10);
  const { min, max } = THREE_GPU_INSTANCES_REVISIONS;
  if (!(r >= min && r <= max)) {
    throw new ValidationError('argument', undefined, 'three',
      `is r${revision}: ThreeGpuInstances reads the GPUBuffer of a storage attribute through three's private renderer.backend.get(attribute).buffer, tested on r${min}${max > min ? `–r${max}` : ''} only (see docs/three.md, "Storage-instanced meshes")`);
  }
}

/**
 * The GPUBuffer three.js made for a storage attribute (its private backend data; undefined until
 * three has created it: a compute node or a draw that uses the attribute).
 */
function bufferOf(backend: BackendLike, attribute: object): GPUBuffer | undefined {
  if (typeof backend.get !== 'function' || typeof backend.has !== 'function') {
    throw new ValidationError('argument', undefined, 'renderer.backend',
      `has no get/has (three.js r${REVISION}'s WebGPU backend has both): ThreeGpuInstances needs a WebGPURenderer on its WebGPU backend`);
  }
  if (!backend.has(attribute)) {
    return undefined;
  }
  const buffer = backend.get(attribute)?.buffer;
  return buffer !== undefined && typeof buffer === 'object' && typeof buffer.size === 'number' ? buffer : undefined;
}

function isIdentity(e: ArrayLike<number>): boolean {
  for (let k = 0; k < 16; k++) {
    if (e[k] !== (k % 5 === 0 ? 1 : 0)) {
      return false;
    }
  }
  return true;
}

function localBoxOf(mesh: InstancedMesh): Aabb {
  const g = mesh.geometry;
  if (!g.boundingBox) {
    g.computeBoundingBox();
  }
  const bb = g.boundingBox;
  if (!bb || bb.isEmpty()) {
    throw new ValidationError('argument', undefined, 'mesh.geometry', 'has an empty bounding box (no vertices?): an instance needs a box in its local space');
  }
  return { min: [bb.min.x, bb.min.y, bb.min.z], max: [bb.max.x, bb.max.y, bb.max.z] };
}

const sameBox = (a: Aabb, b: Aabb): boolean => a.min.every((v, k) => v === b.min[k]) && a.max.every((v, k) => v === b.max[k]);

/**
 * @example
 * import { InstancedMesh, StorageInstancedBufferAttribute, type ComputeNode } from 'three/webgpu';
 * declare const matrices: StorageInstancedBufferAttribute, animate: ComputeNode; // a compute node writes storage(matrices, 'mat4', n)
 * declare const rayBuffer: GPUBuffer, hits: GPUBuffer, geometry: GPUBuffer;      // yours: Ray in, Hit and HitGeometry out
 * const instanced = new InstancedMesh(mesh.geometry, mesh.material, matrices.count);
 * instanced.instanceMatrix = matrices;
 * renderer.compute(animate);                                  // three makes the GPUBuffer on first use
 * const gpu = await obbGpuFor(renderer);                      // the renderer's own device
 * const instances = ThreeGpuInstances.create(gpu, renderer, instanced);
 * // every frame, after renderer.compute(animate):
 * const enc = gpu.ctx.device.createCommandEncoder();
 * await instances.refresh(enc);                               // derive the boxes, refit the tree
 * await gpu.rays.encodeClosestHit(enc, instances.set, rayBuffer, 1, hits, geometry);
 * gpu.ctx.device.queue.submit([enc.finish()]);
 */
export class ThreeGpuInstances {
  readonly gpu: ObbGpu;
  readonly mesh: InstancedMesh;
  private readonly backend: BackendLike;
  private readonly sourced: GpuSourcedBoxSet;
  private buffer: GPUBuffer;
  private count: number;
  private localBox: Aabb;

  private constructor(gpu: ObbGpu, backend: BackendLike, mesh: InstancedMesh, buffer: GPUBuffer, localBox: Aabb, capacity: number, options: ThreeGpuInstancesOptions) {
    this.gpu = gpu;
    this.mesh = mesh;
    this.backend = backend;
    this.buffer = buffer;
    this.count = mesh.count;
    this.localBox = localBox;
    this.sourced = gpu.createBoxSet({
      source: { buffer, layout: 'mat4x4f', count: mesh.count, localBox },
      capacity,
      label: options.label ?? 'three-gpu-instances',
      ...(options.origin ? { origin: options.origin } : {}),
    });
  }

  /**
   * The instances of `mesh` as a GPU-sourced set on `gpu` (which must share the renderer's
   * device: `obbGpuFor(renderer)`). Box i is instance i: the geometry's bounding box through
   * instance i's matrix; `mesh.count` boxes (up to the attribute's count, the set's capacity).
   * three.js must have created the attribute's buffer already: run the compute node that writes
   * it (or draw the mesh) once first. The mesh's world matrix must be the identity (the
   * matrices are taken as world matrices).
   */
  static create(gpu: ObbGpu, renderer: RendererLike, mesh: InstancedMesh, options: ThreeGpuInstancesOptions = {}): ThreeGpuInstances {
    checkThreeRevision();
    const backend = renderer?.backend as BackendLike | null | undefined;
    const device = backend?.device ?? undefined;
    if (!backend || !device) {
      throw new ValidationError('argument', undefined, 'renderer',
        'has no WebGPU device (a WebGLRenderer, the WebGL 2 fallback, or init() not awaited): storage instancing needs a WebGPURenderer on WebGPU');
    }
    if (device !== gpu.ctx.device) {
      throw new ValidationError('argument', undefined, 'gpu',
        "is on another GPUDevice than the renderer's: make it with obbGpuFor(renderer) (or ObbGpu.create({ device: renderer.backend.device })) so it can read three's buffers");
    }
    if ((mesh as { isInstancedMesh?: boolean } | null)?.isInstancedMesh !== true) {
      throw new ValidationError('argument', undefined, 'mesh', 'must be a three.js InstancedMesh');
    }
    const matrices = mesh.instanceMatrix as unknown as StorageMatrices;
    if (matrices.isStorageInstancedBufferAttribute !== true) {
      throw new ValidationError('argument', undefined, 'mesh.instanceMatrix',
        "is a plain InstancedBufferAttribute (its matrices live on the CPU): use ThreeBoxes, or give the mesh a StorageInstancedBufferAttribute (instancedArray(n, 'mat4').value)");
    }
    if (matrices.itemSize !== 16) {
      throw new ValidationError('argument', undefined, 'mesh.instanceMatrix', `must hold 4×4 matrices (itemSize 16, got ${matrices.itemSize})`);
    }
    const buffer = bufferOf(backend, matrices);
    if (!buffer) {
      throw new ValidationError('argument', undefined, 'mesh.instanceMatrix',
        'has no GPUBuffer yet: run the compute node that writes it (renderer.compute) or draw the mesh once before ThreeGpuInstances.create');
    }
    ThreeGpuInstances.checkPlacement(mesh, matrices.count);
    return new ThreeGpuInstances(gpu, backend, mesh, buffer, localBoxOf(mesh), matrices.count, options);
  }

  private static checkPlacement(mesh: InstancedMesh, capacity: number): void {
    if (!isIdentity(mesh.matrixWorld.elements)) {
      throw new ValidationError('argument', undefined, 'mesh.matrixWorld',
        'is not the identity: the storage matrices are taken as world matrices (put the mesh at the scene root, unmoved, and move its instances)');
    }
    if (!Number.isInteger(mesh.count) || mesh.count < 0 || mesh.count > capacity) {
      throw new ValidationError('argument', undefined, 'mesh.count', `= ${mesh.count} is not within the instance matrices' count ${capacity}`);
    }
  }

  /** The GPU-sourced set (box i is instance i). */
  get set(): GpuSourcedBoxSet {
    return this.sourced;
  }

  /** The object and instance of box `i`, as ThreeBoxes names them. */
  objectOf(i: number): { object: InstancedMesh; instanceId: number } {
    return { object: this.mesh, instanceId: i };
  }

  /**
   * Records the derivation (and the tree's refit or rebuild) into `encoder`, after whatever
   * wrote the matrices: call it after `renderer.compute(animate)` (three submits its compute
   * at once, so the queue orders it first). Follows the mesh first: a changed `mesh.count`,
   * geometry bounding box, or a buffer three made again (the attribute disposed and re-created)
   * becomes the set's new source. Nothing is uploaded or read back in a steady loop.
   */
  async refresh(encoder?: GPUCommandEncoder, options: RefreshOptions = {}): Promise<RefreshResult> {
    const mesh = this.mesh;
    const matrices = mesh.instanceMatrix as unknown as StorageMatrices;
    const buffer = bufferOf(this.backend, matrices);
    if (!buffer) {
      throw new ValidationError('argument', undefined, 'mesh.instanceMatrix', 'has no GPUBuffer any more (disposed?): run the compute node that writes it again before refresh()');
    }
    ThreeGpuInstances.checkPlacement(mesh, Math.min(matrices.count, this.sourced.boxCapacity));
    const localBox = localBoxOf(mesh);
    if (buffer !== this.buffer || mesh.count !== this.count || !sameBox(localBox, this.localBox)) {
      await this.sourced.setSource({ buffer, layout: 'mat4x4f', count: mesh.count, localBox });
      this.buffer = buffer;
      this.count = mesh.count;
      this.localBox = localBox;
    }
    return this.sourced.refresh(encoder, options);
  }

  /** The proof on demand: GpuSourcedBoxSet.readBack (the matrices, the GPU's boxes, and the float64 derivation). */
  readBack(options: { readonly refresh?: boolean } = {}): Promise<GpuSourcedReadBack> {
    return this.sourced.readBack(options);
  }

  /** Frees the set (never three's buffer). Idempotent. */
  destroy(): void {
    this.sourced.destroy();
  }
}
