/**
 * three.js scenes as box sets: every `Mesh` one box (its geometry's bounding box through its
 * world matrix), every `InstancedMesh` instance one box (through the mesh's world matrix and the
 * instance's matrix, read from `instanceMatrix` in bulk). `sync()` finds what moved since the
 * last sync and updates only those boxes, in one scatter (`BoxSet.updateIndices`); picking returns
 * three.js's own `Intersection` records; marquee selection runs the GPU frustum cull.
 *
 * The boxes are the objects' geometry bounding boxes, so for box-shaped geometry (BoxGeometry) a
 * pick is the mesh's own first hit; for other shapes it is the first hit on their boxes.
 */
import { Raycaster, Vector2, Vector3, WebGLCoordinateSystem, type Camera, type Intersection, type Object3D } from 'three';
import type { BoxSet } from '../boxes/BoxSet.ts';
import { BOX_F64, type BoxArray, type Vec3 } from '../core/types.ts';
import { validateBoxArray, writeBoxRecord } from '../core/canonical.ts';
import { MATRIX_SHEAR_TOLERANCE, obbFromMatrix, obbFromPoints } from '../core/construct.ts';
import { frustumPlanes, type Plane } from '../core/frustum.ts';
import { ValidationError } from '../errors.ts';
import type { FrustumCuller } from '../frustum/FrustumCuller.ts';
import type { ObbGpu } from '../ObbGpu.ts';

/** What to do with an object whose world matrix is sheared (a rotated child of a non-uniformly scaled parent). */
export type ShearPolicy = 'fit' | 'error';

/** Options of {@link ThreeBoxes.create}. */
export interface ThreeBoxesOptions {
  /**
   * A sheared world matrix cannot be a box. 'fit' (default): the box PCA fits around the eight
   * transformed corners of the geometry's bounding box (obbFromPoints: it contains them all, and
   * is no longer tight). 'error': a ValidationError naming the object.
   */
  readonly shear?: ShearPolicy;
  /** Also take the descendants of the given objects (default true, like intersectObjects). */
  readonly recursive?: boolean;
  /**
   * Which meshes become boxes (default: all): an editor leaves out its gizmos and helpers here.
   * Read at create() and at every sync(), so an object whose answer changes is added or removed.
   * A BatchedMesh must be left out (not supported: which of its instances are live is private
   * to three.js r187).
   */
  readonly filter?: (object: Object3D) => boolean;
  readonly label?: string;
}

/** A screen rectangle in normalised device coordinates (x, y in [−1, 1], y up). */
export interface NdcRect {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** One object (and instance) of a marquee selection. */
export interface Selected {
  readonly object: Object3D;
  /** The instance, for an InstancedMesh. */
  readonly instanceId?: number;
  /** The box's index in the set. */
  readonly box: number;
}

/** What one sync did. */
export interface SyncReport {
  /** Boxes updated because their world matrix changed. */
  readonly moved: number;
  /** Boxes whose layer mask changed. */
  readonly relayered: number;
  /** True when objects or instances were added or removed: the whole set was replaced. */
  readonly rebuilt: boolean;
}

interface MeshLike extends Object3D {
  readonly isMesh?: boolean;
  readonly isInstancedMesh?: boolean;
  readonly count?: number;
  readonly geometry: { boundingBox: { min: Vector3; max: Vector3 } | null; computeBoundingBox(): void };
  readonly instanceMatrix?: { readonly array: ArrayLike<number>; readonly version: number };
}

/** The objects a source covers, with how many boxes each gives. */
interface Layout {
  readonly objects: readonly MeshLike[];
  /** First box of each object. */
  readonly first: Int32Array;
  readonly count: number;
}

const isMesh = (o: Object3D): o is MeshLike => (o as MeshLike).isMesh === true;

/** The matrix product a × b of two column-major 4×4 matrices (b read from offset `bo`), into `out`. */
function multiply4(a: ArrayLike<number>, b: ArrayLike<number>, bo: number, out: Float64Array): void {
  for (let c = 0; c < 4; c++) {
    const b0 = b[bo + 4 * c]!, b1 = b[bo + 4 * c + 1]!, b2 = b[bo + 4 * c + 2]!, b3 = b[bo + 4 * c + 3]!;
    for (let r = 0; r < 4; r++) {
      out[4 * c + r] = a[r]! * b0 + a[4 + r]! * b1 + a[8 + r]! * b2 + a[12 + r]! * b3;
    }
  }
}

/** {@link multiply4} with b a Float32Array (instance matrices): one shape for the JIT, per instance. */
function multiply4f(a: ArrayLike<number>, b: Float32Array, bo: number, out: Float64Array): void {
  for (let c = 0; c < 4; c++) {
    const b0 = b[bo + 4 * c]!, b1 = b[bo + 4 * c + 1]!, b2 = b[bo + 4 * c + 2]!, b3 = b[bo + 4 * c + 3]!;
    for (let r = 0; r < 4; r++) {
      out[4 * c + r] = a[r]! * b0 + a[4 + r]! * b1 + a[8 + r]! * b2 + a[12 + r]! * b3;
    }
  }
}

/**
 * @example
 * const gpu = await obbGpuFor(renderer);               // the renderer's device, or one of its own
 * const boxes = await ThreeBoxes.create(gpu, [scene]);  // every Mesh and instance under scene
 * const [hit] = await boxes.pickAt(0.2, -0.1, camera);  // { distance, point, face, object, instanceId }
 * await boxes.sync();                                   // after moving things: only what moved
 */
export class ThreeBoxes {
  readonly gpu: ObbGpu;
  private readonly roots: readonly Object3D[];
  private readonly shear: ShearPolicy;
  private readonly recursive: boolean;
  private readonly filter: ((object: Object3D) => boolean) | undefined;
  private layout: Layout;
  /** The world matrix each box was made from (16 numbers per box). */
  private matrices: Float64Array;
  /** What the objects looked like when their boxes were made (what sync() compares with). */
  private snapshot: Snapshot;
  /** Each object's layer mask at the last sync. */
  private layers: Uint32Array;
  private readonly boxSet: BoxSet;
  private culler: FrustumCuller | undefined;
  private readonly raycaster = new Raycaster();
  private readonly scratch = new Float64Array(16);

  private constructor(
    gpu: ObbGpu, roots: readonly Object3D[], options: ThreeBoxesOptions, layout: Layout, snapshot: Snapshot, boxes: BoxArray, matrices: Float64Array, masks: Uint32Array,
  ) {
    this.gpu = gpu;
    this.roots = roots;
    this.shear = options.shear ?? 'fit';
    this.recursive = options.recursive ?? true;
    this.filter = options.filter;
    this.layout = layout;
    this.matrices = matrices;
    this.snapshot = snapshot;
    this.layers = Uint32Array.from(layout.objects, (o) => o.layers.mask >>> 0);
    this.boxSet = gpu.createBoxSet(boxes, { masks, label: options.label ?? 'three' });
  }

  /**
   * Boxes for every Mesh and InstancedMesh instance in `objects` (and, by default, their
   * descendants), uploaded to `gpu`. World matrices are read as they are: call
   * `scene.updateMatrixWorld()` first if nothing has rendered since they changed.
   */
  static async create(gpu: ObbGpu, objects: readonly Object3D[], options: ThreeBoxesOptions = {}): Promise<ThreeBoxes> {
    if (!Array.isArray(objects)) {
      throw new ValidationError('argument', undefined, 'objects', 'must be an array of three.js Object3D');
    }
    const shear = options.shear ?? 'fit';
    if (shear !== 'fit' && shear !== 'error') {
      throw new ValidationError('argument', undefined, 'shear', `must be 'fit' or 'error' (got ${String(shear)})`);
    }
    if (options.filter !== undefined && typeof options.filter !== 'function') {
      throw new ValidationError('argument', undefined, 'filter', 'must be a function (object) => boolean');
    }
    const layout = collect(objects, options.recursive ?? true, options.filter);
    const snapshot = new Snapshot(layout);
    const matrices = new Float64Array(layout.count * 16);
    const boxes = boxesOf(layout, matrices, shear, undefined);
    const masks = masksOf(layout);
    return new ThreeBoxes(gpu, objects, options, layout, snapshot, boxes, matrices, masks);
  }

  /** The box set (box i is the i-th box of {@link objectOf}). */
  get set(): BoxSet {
    return this.boxSet;
  }

  /** Boxes in the set. */
  get count(): number {
    return this.layout.count;
  }

  /** The object (and instance) of box `i`. */
  objectOf(i: number): { object: Object3D; instanceId?: number } {
    const { objects, first } = this.layout;
    let lo = 0, hi = objects.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (first[mid]! <= i) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    const object = objects[lo]!;
    return object.isInstancedMesh ? { object, instanceId: i - first[lo]! } : { object };
  }

  /**
   * Brings the boxes up to date with the scene: the boxes whose world matrix (or instance
   * matrix) changed since the last sync are updated in one scatter, changed layer masks in
   * another; added or removed objects or instances replace the whole set.
   *
   * @example
   * mesh.position.x += 1; scene.updateMatrixWorld(); await boxes.sync(); // { moved: 1, … }
   */
  async sync(): Promise<SyncReport> {
    const layout = collect(this.roots, this.recursive, this.filter);
    // Everything is read before the first await: changes made while an upload is in flight are
    // the next sync's.
    if (!sameLayout(layout, this.layout)) {
      const next = new Snapshot(layout);
      const matrices = new Float64Array(layout.count * 16);
      const boxes = boxesOf(layout, matrices, this.shear, undefined);
      await this.boxSet.set(boxes, masksOf(layout));
      this.layout = layout;
      this.matrices = matrices;
      this.snapshot = next;
      this.layers = Uint32Array.from(layout.objects, (o) => o.layers.mask >>> 0);
      return { moved: layout.count, relayered: 0, rebuilt: true };
    }
    const { moved, commit } = this.snapshot.diff(layout);
    if (moved.length > 0) {
      const fresh = new Float64Array(moved.length * 16);
      const boxes = boxesOf(layout, fresh, this.shear, moved);
      await this.boxSet.updateIndices(moved, boxes);
      moved.forEach((b, k) => this.matrices.set(fresh.subarray(16 * k, 16 * k + 16), 16 * b));
      commit();
    }
    const relayered: number[] = [];
    const masks: number[] = [];
    layout.objects.forEach((o, k) => {
      const mask = o.layers.mask >>> 0;
      if (mask !== this.layers[k]) {
        this.layers[k] = mask;
        const n = boxesOfObject(o);
        for (let j = 0; j < n; j++) {
          relayered.push(layout.first[k]! + j);
          masks.push(mask);
        }
      }
    });
    if (relayered.length > 0) {
      await this.boxSet.setMasksAt(relayered, Uint32Array.from(masks));
    }
    return { moved: moved.length, relayered: relayered.length, rebuilt: false };
  }

  /**
   * The boxes a raycaster meets, as three.js intersections, nearest first: the closest only
   * (default), or every one with `all: true`. `distance` is measured from `raycaster.ray.origin`
   * as three.js measures it, `raycaster.near` / `far` bound it, and `raycaster.layers` is tested
   * against each object's layers. `face.normal` is the entered face's normal in the object's own
   * space (as three.js reports it); `face.a/b/c` are −1 (a box has no triangle indices).
   * A ray that starts inside a box hits it at its start (distance = near): the library's
   * `solid` rule, where a FrontSide mesh would not be hit from inside.
   */
  async pick(raycaster: Raycaster, options: { readonly all?: boolean } = {}): Promise<Intersection<Object3D>[]> {
    if (options.all) {
      const ray = rayOf(raycaster);
      const hits = await this.gpu.allHits(this.boxSet, [ray], { rayMasks: Uint32Array.of(raycaster.layers.mask >>> 0) });
      const out: Intersection<Object3D>[] = [];
      for (let k = 0; k < hits.count; k++) {
        out.push(this.intersection(raycaster, hits.box[k]!, hits.t[k]!, hits.face[k]!));
      }
      return out;
    }
    const [hit] = await this.pickEach([raycaster]);
    return hit ? [hit] : [];
  }

  /** Closest hits of many raycasters in one query (one GPU dispatch): one entry per raycaster. */
  async pickEach(raycasters: readonly Raycaster[]): Promise<(Intersection<Object3D> | undefined)[]> {
    const rays = raycasters.map(rayOf);
    const hits = await this.gpu.closestHit(this.boxSet, rays, { rayMasks: Uint32Array.from(raycasters, (r) => r.layers.mask >>> 0) });
    return raycasters.map((r, k) => (hits.box[k]! < 0 ? undefined : this.intersection(r, hits.box[k]!, hits.t[k]!, hits.face[k]!)));
  }

  /**
   * Picks at a screen position in normalised device coordinates (x, y in [−1, 1], y up) through
   * `camera`, perspective or orthographic, in either clip space (three's `setFromCamera` reads
   * `camera.coordinateSystem`). `layers` default: three's Raycaster default (layer 0).
   *
   * @example
   * canvas.onpointerdown = async (e) => {
   *   const [hit] = await boxes.pickAt((e.offsetX / canvas.clientWidth) * 2 - 1, 1 - (e.offsetY / canvas.clientHeight) * 2, camera);
   * };
   */
  async pickAt(ndcX: number, ndcY: number, camera: Camera, options: { readonly all?: boolean; readonly layers?: number } = {}): Promise<Intersection<Object3D>[]> {
    this.raycaster.setFromCamera(new Vector2(ndcX, ndcY), camera);
    this.raycaster.layers.mask = options.layers ?? 1;
    return this.pick(this.raycaster, options.all === undefined ? {} : { all: options.all });
  }

  /**
   * Marquee selection: the objects (and instances) whose boxes meet (`mode: 'intersect'`,
   * default) or lie wholly inside (`'inside'`) the frustum of the screen rectangle `rect` (NDC)
   * seen through `camera`, between its near and far planes. The GPU culls; 'inside' then keeps the
   * boxes that no plane cuts. Ascending by box index.
   */
  async select(rect: NdcRect, camera: Camera, options: { readonly mode?: 'intersect' | 'inside' } = {}): Promise<Selected[]> {
    const mode = options.mode ?? 'intersect';
    const planes = marqueePlanes(rect, camera);
    if (!this.culler || this.culler.capacity < this.boxSet.count) {
      this.culler?.destroy();
      this.culler = await this.gpu.createFrustumCuller(Math.max(1, this.boxSet.count));
    }
    const { visible } = await this.gpu.frustumCull(this.culler, this.boxSet, planes);
    const boxes = this.boxSet.boxes;
    const out: Selected[] = [];
    for (const b of visible) {
      if (mode === 'inside' && !insideAll(boxes, b, planes)) {
        continue;
      }
      out.push({ ...this.objectOf(b), box: b });
    }
    return out;
  }

  /** Frees the set and the culler (idempotent). */
  destroy(): void {
    this.culler?.destroy();
    this.culler = undefined;
    this.boxSet.destroy();
  }

  private intersection(raycaster: Raycaster, box: number, t: number, face: number): Intersection<Object3D> {
    const { object, instanceId } = this.objectOf(box);
    const o = raycaster.ray.origin, d = raycaster.ray.direction;
    const distance = t + raycaster.near;
    const point = new Vector3(o.x + distance * d.x, o.y + distance * d.y, o.z + distance * d.z);
    // The entered face's normal in the object's space: ±axis k of the box, taken back through
    // the world matrix the box was made from (local ∝ Mᵀ · world for a normal).
    const normal = new Vector3();
    if (face < 6) {
      const data = this.boxSet.boxes.data;
      const axis = Math.floor(face / 2);
      const sign = face % 2 === 0 ? 1 : -1;
      const a = box * BOX_F64.STRIDE + BOX_F64.U + 3 * axis;
      const n: Vec3 = [sign * data[a]!, sign * data[a + 1]!, sign * data[a + 2]!];
      const m = this.matrices.subarray(16 * box, 16 * box + 16);
      normal.set(
        m[0]! * n[0] + m[1]! * n[1] + m[2]! * n[2],
        m[4]! * n[0] + m[5]! * n[1] + m[6]! * n[2],
        m[8]! * n[0] + m[9]! * n[1] + m[10]! * n[2],
      ).normalize();
    }
    const hit: Intersection<Object3D> = { distance, point, object, face: { a: -1, b: -1, c: -1, normal, materialIndex: 0 } };
    if (instanceId !== undefined) {
      hit.instanceId = instanceId;
    }
    return hit;
  }
}

/** The library ray of a raycaster: from `origin + near · direction`, `far − near` long. */
function rayOf(r: Raycaster): { origin: Vec3; direction: Vec3; maxDistance: number } {
  const { origin: o, direction: d } = r.ray;
  const near = r.near;
  return {
    origin: [o.x + near * d.x, o.y + near * d.y, o.z + near * d.z],
    direction: [d.x, d.y, d.z],
    maxDistance: Math.max(0, r.far - near),
  };
}

/** The meshes under `roots` in traversal order, and where each one's boxes start. */
function collect(roots: readonly Object3D[], recursive: boolean, filter: ((object: Object3D) => boolean) | undefined): Layout {
  const objects: MeshLike[] = [];
  const visit = (o: Object3D): void => {
    if (isMesh(o) && (filter === undefined || filter(o))) {
      if ((o as { isBatchedMesh?: boolean }).isBatchedMesh) {
        throw new ValidationError('argument', undefined, 'objects',
          `contain the BatchedMesh ${o.name ? `"${o.name}"` : ''} (uuid ${o.uuid}): not supported (which of its instances are live is private to three.js); leave it out with the filter option`);
      }
      objects.push(o);
    }
  };
  for (const root of roots) {
    if (recursive) {
      root.traverse(visit);
    } else {
      visit(root);
    }
  }
  const first = new Int32Array(objects.length);
  let count = 0;
  objects.forEach((o, k) => {
    first[k] = count;
    count += boxesOfObject(o);
  });
  return { objects, first, count };
}

function boxesOfObject(o: MeshLike): number {
  return o.isInstancedMesh ? o.count ?? 0 : 1;
}

function sameLayout(a: Layout, b: Layout): boolean {
  return a.count === b.count && a.objects.length === b.objects.length && a.objects.every((o, k) => o === b.objects[k] && a.first[k] === b.first[k]);
}

function masksOf(layout: Layout): Uint32Array {
  const out = new Uint32Array(layout.count);
  layout.objects.forEach((o, k) => out.fill(o.layers.mask >>> 0, layout.first[k]!, layout.first[k]! + boxesOfObject(o)));
  return out;
}

/** The world matrix of box `j` of object `o` (the instance's through the mesh's), into `out`. */
function worldMatrix(o: MeshLike, j: number, out: Float64Array): void {
  const world = o.matrixWorld.elements;
  if (o.isInstancedMesh && o.instanceMatrix) {
    const inst = o.instanceMatrix.array;
    if (inst instanceof Float32Array) {
      multiply4f(world, inst, 16 * j, out);
    } else {
      multiply4(world, inst, 16 * j, out);
    }
  } else {
    for (let i = 0; i < 16; i++) {
      out[i] = world[i]!;
    }
  }
}

/**
 * What a layout's objects looked like when their boxes were last made: each object's world
 * matrix and geometry bounding box, and each InstancedMesh's instance matrices (float32, as three
 * stores them). An object whose world matrix or bounding box changed moved all its boxes;
 * otherwise only the instances whose matrix changed moved. Plain typed-array compares against
 * the live arrays, no per-box matrix products and no copy of what did not move.
 */
class Snapshot {
  private readonly world: Float64Array;
  private readonly local: Float64Array;
  private readonly instances: (Float32Array | undefined)[];

  constructor(layout: Layout) {
    const { objects } = layout;
    this.world = new Float64Array(16 * objects.length);
    this.local = new Float64Array(6 * objects.length);
    this.instances = objects.map((o, k) => {
      this.world.set(o.matrixWorld.elements, 16 * k);
      const bb = localBox(o);
      this.local.set([...bb.min, ...bb.max], 6 * k);
      return o.isInstancedMesh && o.instanceMatrix ? Float32Array.from(liveInstances(o)) : undefined;
    });
  }

  /**
   * The boxes of `layout` (this snapshot's layout) that moved since, and `commit`, which records
   * their state as read now (call it once their boxes are on the GPU; changes made in between
   * are the next sync's).
   */
  diff(layout: Layout): { moved: Uint32Array; commit(): void } {
    const moved: number[] = [];
    const writes: (() => void)[] = [];
    layout.objects.forEach((o, k) => {
      const first = layout.first[k]!;
      const n = boxesOfObject(o);
      const world = o.matrixWorld.elements;
      const bb = localBox(o);
      const local = [...bb.min, ...bb.max];
      const kept = this.instances[k];
      if (!same(world, this.world, 16 * k) || !same(local, this.local, 6 * k)) {
        for (let j = 0; j < n; j++) {
          moved.push(first + j);
        }
        const w = Float64Array.from(world);
        const now = kept ? liveInstances(o).slice() : undefined;
        writes.push(() => {
          this.world.set(w, 16 * k);
          this.local.set(local, 6 * k);
          if (kept && now) {
            kept.set(now);
          }
        });
        return;
      }
      if (kept) {
        const live = liveInstances(o);
        const changed: number[] = [];
        for (let j = 0, at = 0; j < n; j++, at += 16) {
          for (let i = at; i < at + 16; i++) {
            if (live[i] !== kept[i]) {
              changed.push(j);
              break;
            }
          }
        }
        if (changed.length > 0) {
          const now = new Float32Array(16 * changed.length);
          changed.forEach((j, c) => {
            moved.push(first + j);
            now.set(live.subarray(16 * j, 16 * j + 16), 16 * c);
          });
          writes.push(() => changed.forEach((j, c) => kept.set(now.subarray(16 * c, 16 * c + 16), 16 * j)));
        }
      }
    });
    return { moved: Uint32Array.from(moved), commit: () => writes.forEach((w) => w()) };
  }
}

/** The instance matrices of an InstancedMesh's `count` instances, as a Float32Array view. */
function liveInstances(o: MeshLike): Float32Array {
  const a = o.instanceMatrix!.array;
  const n = 16 * boxesOfObject(o);
  return a instanceof Float32Array ? a.subarray(0, n) : Float32Array.from({ length: n }, (_, i) => a[i]!);
}

/** Whether `live` equals `kept` from offset `at`, over live's length. */
function same(live: ArrayLike<number>, kept: Float64Array, at: number): boolean {
  for (let i = 0; i < live.length; i++) {
    if (live[i] !== kept[at + i]) {
      return false;
    }
  }
  return true;
}


/**
 * Canonical boxes of `layout` (all, or the boxes `only` in that order), their world matrices
 * written into `matrices` (16 per box, in the same order). Fast path per box: the matrix's
 * columns are scaled, orthogonal axes (validated and made canonical in bulk by
 * validateBoxArray); a zero scale takes obbFromMatrix's completion; a sheared matrix follows
 * the shear policy.
 */
function boxesOf(layout: Layout, matrices: Float64Array, shear: ShearPolicy, only: Uint32Array | undefined): BoxArray {
  const n = only ? only.length : layout.count;
  const raw = new Float64Array(n * BOX_F64.STRIDE);
  const special: [number, Float64Array, MeshLike][] = [];
  const m = new Float64Array(16);
  const locals = layout.objects.map(localBox);
  // Plain loops, no closure over the slot counter: this runs per instance.
  for (let k = 0; k < n; k++) {
    const b = only ? only[k]! : k;
    const at = objectIndex(layout, b);
    const o = layout.objects[at]!;
    worldMatrix(o, b - layout.first[at]!, m);
    matrices.set(m, 16 * k);
    if (!writeRaw(raw, k, m, locals[at]!)) {
      special.push([k, m.slice(), o]);
    }
  }
  // Identity axes where a special box will be written, so the bulk validation passes over it.
  for (const [slot] of special) {
    raw.set([1, 0, 0, 0, 1, 0, 0, 0, 1], slot * BOX_F64.STRIDE + BOX_F64.U);
  }
  const out = validateBoxArray(raw, n);
  for (const [slot, matrix, o] of special) {
    writeBoxRecord(out.data, slot, specialBox(matrix, localBox(o), o, shear));
  }
  return out;
}

function objectIndex(layout: Layout, box: number): number {
  let lo = 0, hi = layout.objects.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (layout.first[mid]! <= box) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

/** A geometry's bounding box. */
interface LocalBox {
  readonly min: Vec3;
  readonly max: Vec3;
}

/**
 * The geometry's bounding box (computed when three has not yet); for a SkinnedMesh its own
 * posed `boundingBox` (SkinnedMesh.computeBoundingBox applies the bones: call it after posing).
 */
function localBox(o: MeshLike): LocalBox {
  const skinned = o as { isSkinnedMesh?: boolean; boundingBox?: { min: Vector3; max: Vector3 } | null; computeBoundingBox?(): void };
  if (skinned.isSkinnedMesh && skinned.computeBoundingBox) {
    if (!skinned.boundingBox) {
      skinned.computeBoundingBox();
    }
    const bb = skinned.boundingBox!;
    return { min: [bb.min.x, bb.min.y, bb.min.z], max: [bb.max.x, bb.max.y, bb.max.z] };
  }
  if (!o.geometry.boundingBox) {
    o.geometry.computeBoundingBox();
  }
  const bb = o.geometry.boundingBox!;
  return { min: [bb.min.x, bb.min.y, bb.min.z], max: [bb.max.x, bb.max.y, bb.max.z] };
}

/**
 * Writes the raw box record of world matrix `m` and local box `bb` at slot `k` (centre, half
 * extents, normalised columns): false when a column is zero or two columns are not orthogonal
 * (those boxes go through obbFromMatrix or the shear policy).
 */
function writeRaw(out: Float64Array, k: number, m: Float64Array, bb: LocalBox): boolean {
  const o = k * BOX_F64.STRIDE;
  const ux = m[0]!, uy = m[1]!, uz = m[2]!, vx = m[4]!, vy = m[5]!, vz = m[6]!, wx = m[8]!, wy = m[9]!, wz = m[10]!;
  // Not Math.hypot: several times slower in V8, and world matrices are far from overflow.
  const su = Math.sqrt(ux * ux + uy * uy + uz * uz), sv = Math.sqrt(vx * vx + vy * vy + vz * vz), sw = Math.sqrt(wx * wx + wy * wy + wz * wz);
  if (!(su > 0 && sv > 0 && sw > 0) || m[3] !== 0 || m[7] !== 0 || m[11] !== 0 || m[15] !== 1) {
    return false;
  }
  const tol = MATRIX_SHEAR_TOLERANCE;
  if (!(Math.abs(ux * vx + uy * vy + uz * vz) <= tol * su * sv && Math.abs(ux * wx + uy * wy + uz * wz) <= tol * su * sw &&
    Math.abs(vx * wx + vy * wy + vz * wz) <= tol * sv * sw)) {
    return false;
  }
  const [x0, y0, z0] = bb.min, [x1, y1, z1] = bb.max;
  const cx = x0 / 2 + x1 / 2, cy = y0 / 2 + y1 / 2, cz = z0 / 2 + z1 / 2;
  out[o + BOX_F64.CENTER] = m[12]! + ux * cx + vx * cy + wx * cz;
  out[o + BOX_F64.CENTER + 1] = m[13]! + uy * cx + vy * cy + wy * cz;
  out[o + BOX_F64.CENTER + 2] = m[14]! + uz * cx + vz * cy + wz * cz;
  out[o + BOX_F64.HALF] = (x1 / 2 - x0 / 2) * su;
  out[o + BOX_F64.HALF + 1] = (y1 / 2 - y0 / 2) * sv;
  out[o + BOX_F64.HALF + 2] = (z1 / 2 - z0 / 2) * sw;
  out[o + BOX_F64.U] = ux / su;
  out[o + BOX_F64.U + 1] = uy / su;
  out[o + BOX_F64.U + 2] = uz / su;
  out[o + BOX_F64.V] = vx / sv;
  out[o + BOX_F64.V + 1] = vy / sv;
  out[o + BOX_F64.V + 2] = vz / sv;
  out[o + BOX_F64.W] = wx / sw;
  out[o + BOX_F64.W + 1] = wy / sw;
  out[o + BOX_F64.W + 2] = wz / sw;
  return true;
}

/** A box the fast path could not write: zero scales through obbFromMatrix, shear by the policy. */
function specialBox(m: Float64Array, bb: LocalBox, object: Object3D, shear: ShearPolicy): ReturnType<typeof obbFromMatrix> {
  try {
    return obbFromMatrix(m, bb);
  } catch (error) {
    if (!(error instanceof ValidationError) || !/shear/.test(error.message)) {
      throw error;
    }
    if (shear === 'error') {
      throw new ValidationError('argument', undefined, 'objects',
        `contain ${object.name ? `"${object.name}"` : 'an object'} (uuid ${object.uuid}) whose world matrix is sheared (a rotated child of a non-uniformly scaled parent): no box has that shape; use shear: 'fit' for a box around it`);
    }
    const corners: number[] = [];
    for (let c = 0; c < 8; c++) {
      const x = c & 1 ? bb.max[0] : bb.min[0], y = c & 2 ? bb.max[1] : bb.min[1], z = c & 4 ? bb.max[2] : bb.min[2];
      for (let r = 0; r < 3; r++) {
        corners.push(m[r]! * x + m[4 + r]! * y + m[8 + r]! * z + m[12 + r]!);
      }
    }
    return obbFromPoints(corners);
  }
}

/** The frustum of an NDC rectangle through `camera`: its sub-rectangle of clip space, as planes. */
function marqueePlanes(rect: NdcRect, camera: Camera): Plane[] {
  const x0 = Math.min(rect.x0, rect.x1), x1 = Math.max(rect.x0, rect.x1);
  const y0 = Math.min(rect.y0, rect.y1), y1 = Math.max(rect.y0, rect.y1);
  if (![x0, x1, y0, y1].every(Number.isFinite) || !(x1 > x0 && y1 > y0)) {
    throw new ValidationError('argument', undefined, 'rect', 'must be a non-empty rectangle of finite NDC coordinates');
  }
  camera.updateMatrixWorld();
  const view = camera.matrixWorldInverse.elements;
  const proj = camera.projectionMatrix.elements;
  const vp = new Float64Array(16);
  multiply4(proj, view, 0, vp);
  // Map [x0, x1] × [y0, y1] to [−1, 1]²: x' = (2x − (x0 + x1)) / (x1 − x0), likewise y.
  const sx = 2 / (x1 - x0), tx = -(x0 + x1) / (x1 - x0);
  const sy = 2 / (y1 - y0), ty = -(y0 + y1) / (y1 - y0);
  const m = new Float64Array(16);
  for (let c = 0; c < 4; c++) {
    const X = vp[4 * c]!, Y = vp[4 * c + 1]!, Z = vp[4 * c + 2]!, W = vp[4 * c + 3]!;
    m[4 * c] = sx * X + tx * W;
    m[4 * c + 1] = sy * Y + ty * W;
    m[4 * c + 2] = Z;
    m[4 * c + 3] = W;
  }
  return frustumPlanes(m, { clipSpace: camera.coordinateSystem === WebGLCoordinateSystem ? 'webgl' : 'webgpu' });
}

/** Whether box `b` lies wholly on the inner side of every plane. */
function insideAll(boxes: BoxArray, b: number, planes: readonly Plane[]): boolean {
  const d = boxes.data;
  const o = b * BOX_F64.STRIDE;
  return planes.every((p) => {
    const dot = (k: number): number => p[0] * d[k]! + p[1] * d[k + 1]! + p[2] * d[k + 2]!;
    const r = d[o + BOX_F64.HALF]! * Math.abs(dot(o + BOX_F64.U)) + d[o + BOX_F64.HALF + 1]! * Math.abs(dot(o + BOX_F64.V)) + d[o + BOX_F64.HALF + 2]! * Math.abs(dot(o + BOX_F64.W));
    return dot(o + BOX_F64.CENTER) + p[3] - r >= 0;
  });
}
