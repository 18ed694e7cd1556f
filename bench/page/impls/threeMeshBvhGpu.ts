/**
 * Peer: three-mesh-bvh 0.9.17's WebGPU compute raycasting (`three-mesh-bvh/webgpu`), driven the
 * way its own WebGPU examples drive it (its repository's example/webgpu_gpuPathTracingSimple.js): a
 * `WebGPURenderer`, a `BVHComputeData` over the scene's objects (`update()`: a SAH TLAS over the
 * objects built on the CPU, the objects' geometry BVHs as BLASes, all packed into storage
 * buffers), and a compute kernel written with `wgslFn` that calls its WGSL `bvh_RaycastFirstHit`
 * per ray; `renderer.compute()` dispatches it and `renderer.getArrayBufferAsync()` reads the hits
 * back. The renderer is given the library's own GPUDevice (`new WebGPURenderer({ device })`, an
 * option of three's WebGPU backend), so both run on one device and one queue.
 *
 * The same boxes, two ways a three.js scene holds them:
 * - `three-mesh-bvh-gpu`: one `Mesh` per box, each with its own `BoxGeometry` of the box's size
 *   and the box's rigid matrix (rotation and centre): one BLAS per box;
 * - `three-mesh-bvh-gpu-instanced`: one `InstancedMesh` of a unit `BoxGeometry`, the box's axes
 *   scaled by its full sizes as the instance matrix: one BLAS shared by every instance.
 * The geometries' six material groups are cleared (one material): with them a `MeshBVH` has a
 * root per group and the TLAS six leaves per box.
 *
 * Answers: the kernel writes, per ray, the hit's transform slot (`IntersectionResult.objectIndex`,
 * a slot in the TLAS's order, not the object's) and its distance (world units: the shapecast
 * rescales the local t by the matrix's scale); the slot is mapped back to the box on the CPU
 * through a table filled where the library writes each slot's transform (`writeTransformData`,
 * the subclass hook its documentation offers for per-object data). Triangles, float32: its t is
 * the distance to the hit triangle; a ray that grazes an edge may fall between two triangles.
 *
 * One BVHComputeData per row, over a Group whose child is replaced by each build, and `update()`
 * called again, as its documentation says to when the objects change: its WGSL then stays the same
 * and three reuses the compiled shader (a new BVHComputeData names a variable at random, which
 * costs a pipeline compile, about 100 ms on SwiftShader, per build). `build` times, to the first
 * answer: the three.js objects, `update()` (the CPU builds: a MeshBVH per distinct geometry, the
 * TLAS, the packing), the kernel (three's node build, its pipeline) and one dispatch of one ray,
 * which uploads the buffers. One scene per row at a time: a build while the last is alive throws.
 */
import { BoxGeometry, Group, InstancedMesh, Matrix4, Mesh, MeshBasicMaterial, REVISION, Vector3, type Object3D } from 'three';
import { StorageBufferAttribute, WebGPURenderer, type ComputeNode, type Node, type UniformNode } from 'three/webgpu';
import { globalId, storage, uniform, wgslFn } from 'three/tsl';
import { BVHComputeData } from 'three-mesh-bvh/webgpu';
import { BOX_F64, RAY_F64, type BoxArray, type RayArray } from '../../../src/index.ts';
import { sharedGpu } from '../gpu.ts';
import type { BenchHits, Implementation, RayScene } from './types.ts';

const ORIGIN = [0, 0, 0] as const;
const WORKGROUP = 64;
/** Slot written for a miss (no box). */
const MISS = 0xffffffff;

let renderer: Promise<WebGPURenderer> | undefined;

/** One WebGPURenderer for the page, on the library's device (the bench's shared ObbGpu). */
function sharedRenderer(): Promise<WebGPURenderer> {
  return (renderer ??= (async () => {
    const g = await sharedGpu();
    const r = new WebGPURenderer({ device: g.ctx.device });
    await r.init();
    return r;
  })());
}

/** What `writeTransformData` is given per TLAS transform slot (BVHComputeData.js, `_getTransformMap`). */
interface TransformInfo {
  object: Object3D;
  instanceId: number;
}

/** The transform-writing hook of BVHComputeData 0.9.17 (in its JS, not in its .d.ts). */
interface TransformHook {
  writeTransformData(info: TransformInfo, premultiply: Matrix4, slot: number, target: ArrayBuffer): void;
}

/** BVHComputeData that records, per transform slot, which box it is. */
class BoxComputeData extends BVHComputeData {
  /** Box index per transform slot (−1: none). */
  slots = new Int32Array(0);
  /** Which box a slot's object (or instance) is; set before each `update()`. */
  boxOf: (info: TransformInfo) => number = () => -1;

  /** Frees its storage buffers (BVHComputeData.dispose: in its JS, not in its .d.ts). */
  dispose(): void {
    (BVHComputeData.prototype as unknown as { dispose(): void }).dispose.call(this);
  }

  writeTransformData(info: TransformInfo, premultiply: Matrix4, slot: number, target: ArrayBuffer): void {
    (BVHComputeData.prototype as unknown as TransformHook).writeTransformData.call(this, info, premultiply, slot, target);
    if (slot >= this.slots.length) {
      const grown = new Int32Array(Math.max(slot + 1, 2 * this.slots.length)).fill(-1);
      grown.set(this.slots);
      this.slots = grown;
    }
    this.slots[slot] = this.boxOf(info);
  }
}

/** Column-major matrix of box i: its axes (scaled by the full sizes when `scaled`), then the centre. */
function boxMatrix(d: Float64Array, i: number, scaled: boolean, out: Matrix4): Matrix4 {
  const o = i * BOX_F64.STRIDE;
  const axis = (a: number): Vector3 => {
    const s = scaled ? 2 * d[o + BOX_F64.HALF + a]! : 1;
    const p = o + BOX_F64.U + 3 * a;
    return new Vector3(d[p]! * s, d[p + 1]! * s, d[p + 2]! * s);
  };
  return out.makeBasis(axis(0), axis(1), axis(2)).setPosition(d[o]!, d[o + 1]!, d[o + 2]!);
}

/** The boxes as one Mesh each (own BoxGeometry, rigid matrix) under a Group. */
function meshesOf(boxes: BoxArray): { root: Object3D; boxOf: (info: TransformInfo) => number; dispose: () => void } {
  const d = boxes.data;
  const root = new Group();
  const material = new MeshBasicMaterial();
  const index = new Map<Object3D, number>();
  const geometries: BoxGeometry[] = [];
  for (let i = 0; i < boxes.count; i++) {
    const h = i * BOX_F64.STRIDE + BOX_F64.HALF;
    const geometry = new BoxGeometry(2 * d[h]!, 2 * d[h + 1]!, 2 * d[h + 2]!);
    geometry.clearGroups();
    geometries.push(geometry);
    const mesh = new Mesh(geometry, material);
    mesh.matrixAutoUpdate = false;
    boxMatrix(d, i, false, mesh.matrix);
    root.add(mesh);
    index.set(mesh, i);
  }
  root.updateMatrixWorld(true);
  return {
    root,
    boxOf: (info) => index.get(info.object) ?? -1,
    dispose: () => {
      for (const g of geometries) {
        g.dispose();
      }
      material.dispose();
    },
  };
}

/** The boxes as one InstancedMesh of a unit BoxGeometry (instance matrix: scaled axes, centre). */
function instancedOf(boxes: BoxArray): { root: Object3D; boxOf: (info: TransformInfo) => number; dispose: () => void } {
  const geometry = new BoxGeometry(1, 1, 1);
  geometry.clearGroups();
  const material = new MeshBasicMaterial();
  const mesh = new InstancedMesh(geometry, material, boxes.count);
  const m = new Matrix4();
  for (let i = 0; i < boxes.count; i++) {
    mesh.setMatrixAt(i, boxMatrix(boxes.data, i, true, m));
  }
  mesh.updateMatrixWorld(true);
  return {
    root: mesh,
    boxOf: (info) => info.instanceId,
    dispose: () => {
      geometry.dispose();
      material.dispose();
      mesh.dispose();
    },
  };
}

/** The ray-casting kernel over one BVHComputeData, for up to `capacity` rays. */
interface Kernel {
  capacity: number;
  rays: StorageBufferAttribute;
  hits: StorageBufferAttribute;
  count: UniformNode<'uint', number>;
  node: ComputeNode;
}

/**
 * Per ray: two vec4f in (origin, maxDist; direction, 0), one vec2u out (transform slot or MISS,
 * the distance's bits). `maxDist` 0 means unbounded, as three-mesh-bvh's Ray has it.
 */
const CAST_RAYS = /* wgsl */ `
  fn castRays(
    rays: ptr<storage, array<vec4f>, read>,
    hits: ptr<storage, array<vec2u>, read_write>,
    count: u32,
    id: vec3u,
  ) -> void {
    let i = id.x;
    if ( i >= count ) {
      return;
    }
    let a = (*rays)[ 2u * i ];
    let b = (*rays)[ 2u * i + 1u ];
    var ray: Ray;
    ray.origin = a.xyz;
    ray.direction = b.xyz;
    ray.maxDist = a.w;
    var hit: IntersectionResult;
    bvh_RaycastFirstHit( ray, &hit );
    if ( hit.didHit ) {
      (*hits)[ i ] = vec2u( hit.objectIndex, bitcast<u32>( hit.dist ) );
    } else {
      (*hits)[ i ] = vec2u( ${MISS}u, 0u );
    }
  }
`;

function makeKernel(data: BVHComputeData, capacity: number): Kernel {
  const rays = new StorageBufferAttribute(new Float32Array(8 * capacity), 4);
  const hits = new StorageBufferAttribute(new Uint32Array(2 * capacity), 2);
  const count = uniform(0, 'uint');
  const fn = wgslFn(CAST_RAYS, [data.fns.raycastFirstHit as Node]);
  const node = fn({
    rays: storage(rays, 'vec4', 2 * capacity).toReadOnly(),
    hits: storage(hits, 'uvec2', capacity),
    count,
    id: globalId,
  }).computeKernel([WORKGROUP]);
  return { capacity, rays, hits, count, node };
}

async function cast(r: WebGPURenderer, k: Kernel, rays: RayArray, slots: () => Int32Array): Promise<BenchHits> {
  const n = rays.count;
  const src = rays.data;
  const dst = k.rays.array as Float32Array;
  for (let i = 0; i < n; i++) {
    const o = i * RAY_F64.STRIDE;
    const max = src[o + RAY_F64.MAX]!;
    dst.set([src[o]!, src[o + 1]!, src[o + 2]!, Number.isFinite(max) ? max : 0, src[o + 3]!, src[o + 4]!, src[o + 5]!, 0], 8 * i);
  }
  k.rays.needsUpdate = true;
  k.count.value = n;
  await r.computeAsync(k.node, [Math.max(1, Math.ceil(n / WORKGROUP))]);
  const back = new Uint32Array(await r.getArrayBufferAsync(k.hits, null, 0, 8 * Math.max(1, n)) as ArrayBuffer);
  const asFloat = new Float32Array(back.buffer);
  const table = slots();
  const box = new Int32Array(n).fill(-1);
  const t = new Float32Array(n).fill(Infinity);
  for (let i = 0; i < n; i++) {
    const slot = back[2 * i]!;
    if (slot !== MISS) {
      box[i] = table[slot] ?? -2;
      t[i] = asFloat[2 * i + 1]!;
    }
  }
  return { box, t };
}

function peer(name: string, scene: (boxes: BoxArray) => ReturnType<typeof meshesOf>): Implementation {
  const root = new Group();
  let shared: BoxComputeData | undefined;
  let live = false;
  return {
    name,
    kind: 'peer',
    bruteForce: false,
    device: 'gpu',

    async version() {
      const r = await sharedRenderer();
      return `three-mesh-bvh/webgpu (BVHComputeData, bvh_RaycastFirstHit) on three r${REVISION} WebGPURenderer, ` +
        `${(r.backend as unknown as { device: GPUDevice }).device === (await sharedGpu()).ctx.device ? 'the library\'s GPUDevice' : 'its own GPUDevice'}`;
    },

    async buildRays(boxes: BoxArray): Promise<RayScene> {
      if (live) {
        throw new Error(`${name}: one scene at a time (destroy the last before building another)`);
      }
      const r = await sharedRenderer();
      const objects = scene(boxes);
      root.clear();
      root.add(objects.root);
      root.updateMatrixWorld(true);
      const data = (shared ??= new BoxComputeData(root));
      data.boxOf = objects.boxOf;
      data.update();
      const kernels = new Map<number, Kernel>();
      const kernel = (n: number): Kernel => {
        // One kernel (and pair of buffers) per power-of-two capacity, made on first use.
        const capacity = 2 ** Math.ceil(Math.log2(Math.max(1, n)));
        let k = kernels.get(capacity);
        if (!k) {
          k = makeKernel(data, capacity);
          kernels.set(capacity, k);
        }
        return k;
      };
      // To the first answer: uploads the buffers (and, the first time, compiles the pipeline).
      await cast(r, kernel(1), { count: 1, data: Float64Array.of(0, 0, 0, 1, 0, 0, Infinity) }, () => data.slots);
      live = true;
      return {
        origin: ORIGIN,
        closestHit: (rays: RayArray) => cast(r, kernel(rays.count), rays, () => data.slots),
        destroy() {
          for (const k of kernels.values()) {
            k.node.dispose();
            k.rays.dispose();
            k.hits.dispose();
          }
          data.dispose();
          objects.dispose();
          root.clear();
          live = false;
        },
      };
    },
  };
}

export const threeMeshBvhGpu: Implementation = peer('three-mesh-bvh-gpu', meshesOf);
export const threeMeshBvhGpuInstanced: Implementation = peer('three-mesh-bvh-gpu-instanced', instancedOf);
