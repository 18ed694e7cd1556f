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
 * What `pickAt` takes as `layers` besides a mask: a three.js `Layers` object, or anything with its
 * `mask` (bit k for layer k).
 */
export interface LayersLike {
  readonly mask: number;
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
  /** What names the boxes of the queries issued from now on (see {@link View}). */
  private view: View;
  /** What the objects looked like when their boxes were made (what sync() compares with). */
  private snapshot: Snapshot;
  /** Each object's layer mask at the last sync. */
  private layers: Uint32Array;
  private readonly boxSet: BoxSet;
  private culler: FrustumCuller | undefined;
  /** pickAt's raycaster: aimed and read in the same turn (picks keep their own {@link Aim}). */
  private readonly raycaster = new Raycaster();
  private readonly ndc = new Vector2();
  /** The sync running now, and the one that callers arriving meanwhile share (see sync()). */
  private running: Promise<SyncReport> | undefined;
  private next: Promise<SyncReport> | undefined;

  private constructor(
    gpu: ObbGpu, roots: readonly Object3D[], options: ThreeBoxesOptions, layout: Layout, snapshot: Snapshot, made: MadeBoxes, masks: Uint32Array,
  ) {
    this.gpu = gpu;
    this.roots = roots;
    this.shear = options.shear ?? 'fit';
    this.recursive = options.recursive ?? true;
    this.filter = options.filter;
    this.view = { layout, frames: made.frames, irregular: made.irregular };
    this.snapshot = snapshot;
    this.layers = Uint32Array.from(layout.objects, (o) => o.layers.mask >>> 0);
    this.boxSet = gpu.createBoxSet(made.boxes, { masks, label: options.label ?? 'three' });
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
    const made = boxesOf(layout, shear, undefined);
    const masks = masksOf(layout);
    return new ThreeBoxes(gpu, objects, options, layout, snapshot, made, masks);
  }

  /** The box set (box i is the i-th box of {@link objectOf}). */
  get set(): BoxSet {
    return this.boxSet;
  }

  /** Boxes in the set. */
  get count(): number {
    return this.view.layout.count;
  }

  /** The object (and instance) of box `i`. */
  objectOf(i: number): { object: Object3D; instanceId?: number } {
    return objectIn(this.view.layout, i);
  }

  /**
   * Brings the boxes up to date with the scene: the boxes whose world matrix (or instance
   * matrix) changed since the last sync are updated in one scatter, changed layer masks in
   * another; added or removed objects or instances replace the whole set.
   *
   * At most one sync runs at a time, and calls never queue up: a sync() called while one is in
   * flight shares the next one (which starts when the running one ends and reads the scene
   * then), so however often it is called, at most one sync is running and one waiting. Rejects
   * with StaleObjectError after destroy(), whether or not anything changed.
   *
   * @example
   * mesh.position.x += 1; scene.updateMatrixWorld(); await boxes.sync(); // { moved: 1, … }
   */
  sync(): Promise<SyncReport> {
    if (this.next) {
      return this.next;
    }
    if (this.running) {
      const next = this.running.then(nothing, nothing).then(() => {
        this.next = undefined;
        return this.startSync();
      });
      this.next = next;
      return next;
    }
    return this.startSync();
  }

  private startSync(): Promise<SyncReport> {
    const run = this.gpu.ctx.named('sync', () => this.syncNow());
    this.running = run;
    const done = (): void => {
      if (this.running === run) {
        this.running = undefined;
      }
    };
    run.then(done, done);
    return run;
  }

  private async syncNow(): Promise<SyncReport> {
    this.boxSet.assertUsable('sync');
    const layout = collect(this.roots, this.recursive, this.filter);
    const before = this.view;
    // Everything is read before the first await: changes made while an upload is in flight are
    // the next sync's. The view changes in the same turn as the upload is issued, so a pick
    // issued before it names the old boxes and a pick issued after it the new ones.
    if (!sameLayout(layout, before.layout)) {
      const next = new Snapshot(layout);
      const made = boxesOf(layout, this.shear, undefined);
      const upload = this.boxSet.set(made.boxes, masksOf(layout));
      const view: View = { layout, frames: made.frames, irregular: made.irregular };
      this.view = view;
      try {
        await upload;
      } catch (error) {
        this.restore(view, before);
        throw error;
      }
      this.snapshot = next;
      this.layers = Uint32Array.from(layout.objects, (o) => o.layers.mask >>> 0);
      return { moved: layout.count, relayered: 0, rebuilt: true };
    }
    const { moved, commit } = this.snapshot.diff(layout);
    // Layer masks, read in the same turn: object k's boxes take mask `newMasks[k]`.
    const relayered: number[] = [];
    const masks: number[] = [];
    const newMasks = new Map<number, number>();
    const { objects, first } = layout;
    for (let k = 0; k < objects.length; k++) {
      const o = objects[k]!;
      const mask = o.layers.mask >>> 0;
      if (mask !== this.layers[k]) {
        newMasks.set(k, mask);
        const n = boxesOfObject(o);
        for (let j = 0; j < n; j++) {
          relayered.push(first[k]! + j);
          masks.push(mask);
        }
      }
    }
    if (moved.length > 0) {
      const made = boxesOf(layout, this.shear, moved);
      const upload = this.boxSet.updateIndices(moved, made.boxes);
      const view = withFrames(before, moved, made);
      this.view = view;
      try {
        await upload;
      } catch (error) {
        this.restore(view, before);
        throw error;
      }
      commit();
    }
    if (relayered.length > 0) {
      await this.boxSet.setMasksAt(relayered, Uint32Array.from(masks));
      newMasks.forEach((mask, k) => {
        this.layers[k] = mask;
      });
    }
    return { moved: moved.length, relayered: relayered.length, rebuilt: false };
  }

  /** Back to `before` after a refused upload (unless a later sync has moved on already). */
  private restore(failed: View, before: View): void {
    if (this.view === failed) {
      this.view = before;
    }
  }

  /**
   * The boxes a raycaster meets, as three.js intersections, nearest first: the closest only
   * (default), or every one with `all: true`. `distance` is measured from `raycaster.ray.origin`
   * as three.js measures it, `raycaster.near` / `far` bound it, and `raycaster.layers` is tested
   * against each object's layers. `face.normal` is the entered face's normal in the object's own
   * space (as three.js reports it); `face.a/b/c` are −1 (a box has no triangle indices).
   * A ray that starts inside a box hits it at its start (distance = near): the library's
   * `solid` rule, where a FrontSide mesh would not be hit from inside.
   *
   * The raycaster is read when the call is made: it may be re-aimed for the next pick at once,
   * and every value of the answer belongs to the ray it had then.
   *
   * @example
   * import { Raycaster, Vector3 } from 'three';
   * const raycaster = new Raycaster(new Vector3(0, 5, 20), new Vector3(0, 0, -1)); // a unit direction, as three expects
   * const first = boxes.pick(raycaster);
   * raycaster.ray.origin.x += 1; // re-aimed at once: the pick above keeps the ray it had
   * const [hit] = await first;
   */
  pick(raycaster: Raycaster, options: { readonly all?: boolean } = {}): Promise<Intersection<Object3D>[]> {
    const op = 'pick';
    return this.gpu.ctx.named(op, () => {
      const all = allOption(op, options);
      const aim = aimOf(op, 'raycaster', raycaster);
      return this.cast(aim, maskOf(op, 'raycaster.layers.mask', raycaster.layers.mask), all);
    });
  }

  /**
   * Closest hits of many raycasters in one query (one GPU dispatch): one entry per raycaster,
   * each read when the call is made (as {@link pick} reads its raycaster).
   *
   * @example
   * import { Raycaster, Vector3 } from 'three';
   * const down = new Raycaster(new Vector3(0, 10, 0), new Vector3(0, -1, 0));
   * const ahead = new Raycaster(new Vector3(0, 1, 10), new Vector3(0, 0, -1));
   * const [under, front] = await boxes.pickEach([down, ahead]); // an Intersection or undefined each
   */
  pickEach(raycasters: readonly Raycaster[]): Promise<(Intersection<Object3D> | undefined)[]> {
    const op = 'pickEach';
    return this.gpu.ctx.named(op, () => {
      if (!Array.isArray(raycasters)) {
        throw argumentError(op, 'raycasters', `must be an array of three.js Raycasters (got ${got(raycasters)})`);
      }
      const aims = raycasters.map((r: unknown, k) => aimOf(op, `raycasters[${k}]`, r));
      const masks = Uint32Array.from(raycasters, (r, k) => maskOf(op, `raycasters[${k}].layers.mask`, r.layers.mask));
      return this.closest(aims, masks);
    });
  }

  /**
   * Picks at a screen position `x`, `y` in normalised device coordinates ([−1, 1], y up) through
   * `camera`, perspective or orthographic, in either clip space (three's `setFromCamera` reads
   * `camera.coordinateSystem`).
   *
   * `layers` says which objects the ray sees, as `Raycaster.layers` does: a three.js `Layers`
   * object, or a layer **mask** (its `.mask`: bit k for layer k, so `1` is layer 0, `2` is
   * layer 1, `0b110` layers 1 and 2, `0xffffffff` all), never a layer number. An object is
   * picked when its `layers.mask` shares a bit with it. Default: three's Raycaster default,
   * layer 0 (mask 1).
   *
   * @example
   * canvas.onpointerdown = async (e) => {
   *   const [hit] = await boxes.pickAt((e.offsetX / canvas.clientWidth) * 2 - 1, 1 - (e.offsetY / canvas.clientHeight) * 2, camera);
   * };
   * const onLayer1 = await boxes.pickAt(0, 0, camera, { layers: 1 << 1 }); // a mask: layer 1
   * const seen = await boxes.pickAt(0, 0, camera, { layers: camera.layers }); // what the camera shows
   */
  pickAt(x: number, y: number, camera: Camera, options: { readonly all?: boolean; readonly layers?: number | LayersLike } = {}): Promise<Intersection<Object3D>[]> {
    const op = 'pickAt';
    return this.gpu.ctx.named(op, () => {
      finiteArgument(op, 'x', x);
      finiteArgument(op, 'y', y);
      if (typeof camera !== 'object' || camera === null || (camera as { isCamera?: unknown }).isCamera !== true) {
        throw argumentError(op, 'camera', `must be a three.js Camera (got ${got(camera)})`);
      }
      const all = allOption(op, options);
      const layers: unknown = options.layers;
      const mask = layers === undefined ? 1
        : typeof layers === 'object' && layers !== null && 'mask' in layers ? maskOf(op, 'options.layers.mask', layers.mask)
          : maskOf(op, 'options.layers', layers);
      this.raycaster.setFromCamera(this.ndc.set(x, y), camera);
      // Read now, in the turn it was aimed in: the next pickAt re-aims the same raycaster.
      return this.cast(aimOf(op, 'camera', this.raycaster), mask, all);
    });
  }

  /** The closest hit, or all hits, of one ray, as intersections. */
  private async cast(aim: Aim, mask: number, all: boolean): Promise<Intersection<Object3D>[]> {
    if (!all) {
      const [hit] = await this.closest([aim], Uint32Array.of(mask));
      return hit ? [hit] : [];
    }
    const view = this.view;
    const hits = await this.gpu.allHits(this.boxSet, [rayOfAim(aim)], { rayMasks: Uint32Array.of(mask) });
    const out: Intersection<Object3D>[] = [];
    for (let k = 0; k < hits.count; k++) {
      out.push(intersection(view, aim, hits.box[k]!, hits.t[k]!, hits.face[k]!));
    }
    return out;
  }

  /**
   * Closest hits of `aims`. The view is taken in the turn the query is issued in (before any
   * await), so the answer names the boxes the query saw, whatever syncs run meanwhile.
   */
  private async closest(aims: readonly Aim[], masks: Uint32Array): Promise<(Intersection<Object3D> | undefined)[]> {
    const view = this.view;
    const hits = await this.gpu.closestHit(this.boxSet, aims.map(rayOfAim), { rayMasks: masks });
    return aims.map((aim, k) => (hits.box[k]! < 0 ? undefined : intersection(view, aim, hits.box[k]!, hits.t[k]!, hits.face[k]!)));
  }

  /**
   * Marquee selection: the objects (and instances) whose boxes meet (`mode: 'intersect'`,
   * default) or lie wholly inside (`'inside'`) the frustum of the screen rectangle `rect` (NDC)
   * seen through `camera`, between its near and far planes. The GPU culls: 'intersect' by the
   * exact OBB–frustum test (no box outside the frustum is returned), 'inside' by the plane test,
   * then keeps the boxes that no plane cuts. Ascending by box index.
   */
  async select(rect: NdcRect, camera: Camera, options: { readonly mode?: 'intersect' | 'inside' } = {}): Promise<Selected[]> {
    const mode = options.mode ?? 'intersect';
    const planes = marqueePlanes(rect, camera);
    if (!this.culler || this.culler.capacity < this.boxSet.count) {
      this.culler?.destroy();
      this.culler = await this.gpu.createFrustumCuller(Math.max(1, this.boxSet.count));
    }
    // 'intersect': the exact test (no box outside the frustum); 'inside' filters the plane test's list.
    const { visible } = await this.gpu.frustumCull(this.culler, this.boxSet, planes, { indexCount: 36, exact: mode === 'intersect' });
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
}

/**
 * What names the boxes of a query: the layout and each box's faces in its object's space, as of
 * the set's contents that the query sees. Never changed in place (a sync makes a new one), so a
 * pick in flight keeps the view it was issued with, whatever syncs run meanwhile.
 */
interface View {
  readonly layout: Layout;
  /**
   * Per box: bit k set when the box's axis k is −e_k in its object's space (a mirroring matrix:
   * the canonical frame's w = u × v points against the matrix's third column), or
   * {@link IRREGULAR}: the box's axes are not the object's (zero scale completed, shear fitted),
   * its faces' normals are in `irregular`.
   */
  readonly frames: Uint8Array;
  /** Box → the object-space unit normals of its +u, +v, +w faces (9 numbers). */
  readonly irregular: ReadonlyMap<number, Float64Array>;
}

const IRREGULAR = 0xff;

/** What boxesOf makes: the boxes, and their frames (see {@link View}) in the same order. */
interface MadeBoxes {
  readonly boxes: BoxArray;
  readonly frames: Uint8Array;
  /** Slot → normals, for the irregular boxes. */
  readonly irregular: Map<number, Float64Array>;
}

/**
 * A pick's ray as it was when the pick was issued: three's ray (origin, direction) and the
 * raycaster's near. The hit's distance and point are measured on it.
 */
interface Aim {
  readonly ox: number;
  readonly oy: number;
  readonly oz: number;
  readonly dx: number;
  readonly dy: number;
  readonly dz: number;
  readonly near: number;
  readonly far: number;
}

const nothing = (): void => undefined;

/** `view` with the frames of the boxes `moved` (slot k of `made` is box moved[k]); the same view when none changed. */
function withFrames(view: View, moved: Uint32Array, made: MadeBoxes): View {
  let frames: Uint8Array | undefined;
  let irregular: Map<number, Float64Array> | undefined;
  for (let k = 0; k < moved.length; k++) {
    const b = moved[k]!;
    const code = made.frames[k]!;
    const normals = made.irregular.get(k);
    if (code === view.frames[b] && normals === undefined && !view.irregular.has(b)) {
      continue;
    }
    frames ??= view.frames.slice();
    irregular ??= new Map(view.irregular);
    frames[b] = code;
    if (normals) {
      irregular.set(b, normals);
    } else {
      irregular.delete(b);
    }
  }
  return frames && irregular ? { layout: view.layout, frames, irregular } : view;
}

/** The object (and instance) of box `i` of `layout`. */
function objectIn(layout: Layout, i: number): { object: Object3D; instanceId?: number } {
  const k = objectIndex(layout, i);
  const object = layout.objects[k]!;
  return object.isInstancedMesh ? { object, instanceId: i - layout.first[k]! } : { object };
}

/**
 * The intersection of a hit on box `box` at library distance `t` through face `face`, for the
 * ray `aim`, named by `view`.
 */
function intersection(view: View, aim: Aim, box: number, t: number, face: number): Intersection<Object3D> {
  const { object, instanceId } = objectIn(view.layout, box);
  const distance = t + aim.near;
  const point = new Vector3(aim.ox + distance * aim.dx, aim.oy + distance * aim.dy, aim.oz + distance * aim.dz);
  // The entered face's normal in the object's space: ±e_k for a box made from the object's own
  // axes (what three reports for a BoxGeometry face), else the normals kept for the box.
  const normal = new Vector3();
  if (face < 6) {
    const axis = face >> 1;
    const sign = face & 1 ? -1 : 1;
    const code = view.frames[box]!;
    if (code === IRREGULAR) {
      const n = view.irregular.get(box)!;
      normal.set(sign * n[3 * axis]!, sign * n[3 * axis + 1]!, sign * n[3 * axis + 2]!);
    } else {
      normal.setComponent(axis, (code >> axis) & 1 ? -sign : sign);
    }
  }
  const hit: Intersection<Object3D> = { distance, point, object, face: { a: -1, b: -1, c: -1, normal, materialIndex: 0 } };
  if (instanceId !== undefined) {
    hit.instanceId = instanceId;
  }
  return hit;
}

/** The library ray of an aim: from `origin + near · direction`, `far − near` long. */
function rayOfAim(a: Aim): { origin: Vec3; direction: Vec3; maxDistance: number } {
  return {
    origin: [a.ox + a.near * a.dx, a.oy + a.near * a.dy, a.oz + a.near * a.dz],
    direction: [a.dx, a.dy, a.dz],
    maxDistance: Math.max(0, a.far - a.near),
  };
}

/**
 * A ValidationError that names the call and the argument (`pickAt: x is not a finite number
 * (got NaN)`): the user called the adapter, not the query it runs.
 */
function argumentError(operation: string, field: string, detail: string): ValidationError {
  const error = new ValidationError('argument', undefined, field, detail);
  error.message = `${operation}: ${field} ${detail}`;
  return error;
}

/** How a bad value reads in a message: `NaN`, `string "0.5"`, `undefined`, `Vector3`. */
function got(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' || value === undefined || value === null) {
    return typeof value === 'boolean' || typeof value === 'bigint' ? `${typeof value} ${String(value)}` : String(value);
  }
  if (typeof value === 'string') {
    return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  }
  if (Array.isArray(value)) {
    return `an array of ${value.length}`;
  }
  return typeof value === 'object' ? (value.constructor?.name ?? 'object') : typeof value;
}

function finiteArgument(operation: string, field: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw argumentError(operation, field, `is not a finite number (got ${got(value)})`);
  }
}

/** The `all` option of a pick (options must be an object or omitted). */
function allOption(operation: string, options: unknown): boolean {
  if (options === undefined) {
    return false;
  }
  if (typeof options !== 'object' || options === null) {
    throw argumentError(operation, 'options', `must be an object (got ${got(options)})`);
  }
  const all = (options as { all?: unknown }).all;
  if (all !== undefined && typeof all !== 'boolean') {
    throw argumentError(operation, 'options.all', `must be a boolean (got ${got(all)})`);
  }
  return all === true;
}

/**
 * A layer mask as the GPU takes it (u32). three keeps `Layers.mask` as an int32 or as an
 * unsigned number (`enableAll()` gives −1, `set(31)` 2147483648): both are the same 32 bits.
 */
function maskOf(operation: string, field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < -0x80000000 || value > 0xffffffff) {
    throw argumentError(operation, field, `must be a layer mask (an integer of 32 bits, bit k for layer k, as Layers.mask) or a three.js Layers (got ${got(value)})`);
  }
  return value >>> 0;
}

/**
 * The aim of a raycaster, read now, with each field checked: `${field}.ray.origin.x is not a
 * finite number (got NaN)`. For pickAt's own raycaster (`field` 'camera'), what is wrong is the
 * camera that aimed it.
 */
function aimOf(operation: string, field: string, raycaster: unknown): Aim {
  const camera = field === 'camera';
  const r = raycaster as Partial<Raycaster> | null | undefined;
  if (typeof r !== 'object' || r === null || typeof r.ray !== 'object' || r.ray === null || typeof r.layers !== 'object' || r.layers === null) {
    throw argumentError(operation, field, `must be a three.js Raycaster (got ${got(raycaster)})`);
  }
  const { origin, direction } = r.ray;
  const read = (v: { x: number; y: number; z: number } | undefined, name: string): [number, number, number] => {
    const xyz = [v?.x, v?.y, v?.z];
    xyz.forEach((c, i) => {
      if (typeof c !== 'number' || !Number.isFinite(c)) {
        const which = `${name}.${'xyz'[i]!}`;
        throw camera
          ? argumentError(operation, field, `gives a ray whose ${which} is not a finite number (got ${got(c)}): check its matrixWorld and projectionMatrix`)
          : argumentError(operation, `${field}.ray.${which}`, `is not a finite number (got ${got(c)})`);
      }
    });
    return xyz as [number, number, number];
  };
  const [ox, oy, oz] = read(origin, 'origin');
  const [dx, dy, dz] = read(direction, 'direction');
  if (dx === 0 && dy === 0 && dz === 0) {
    throw camera ? argumentError(operation, field, 'gives a ray without a direction') : argumentError(operation, `${field}.ray.direction`, 'is zero');
  }
  const { near, far } = r;
  if (typeof near !== 'number' || !(near >= 0) || near === Number.POSITIVE_INFINITY) {
    throw argumentError(operation, `${field}.near`, `must be a finite number ≥ 0 (got ${got(near)})`);
  }
  if (typeof far !== 'number' || !(far >= near)) {
    throw argumentError(operation, `${field}.far`, `must be a number ≥ near (${near}), Infinity included (got ${got(far)})`);
  }
  return { ox, oy, oz, dx, dy, dz, near, far };
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
      localBoxInto(o, this.local, 6 * k);
      return o.isInstancedMesh && o.instanceMatrix ? Float32Array.from(liveInstances(o)) : undefined;
    });
  }

  /**
   * The boxes of `layout` (this snapshot's layout) that moved since, and `commit`, which records
   * their state as read now (call it once their boxes are on the GPU; changes made in between
   * are the next sync's). Allocates nothing for what did not move.
   */
  diff(layout: Layout): { moved: Uint32Array; commit(): void } {
    const moved: number[] = [];
    const writes: (() => void)[] = [];
    const bb = new Float64Array(6);
    const { objects } = layout;
    for (let k = 0; k < objects.length; k++) {
      const o = objects[k]!;
      const first = layout.first[k]!;
      const n = boxesOfObject(o);
      const world = o.matrixWorld.elements;
      localBoxInto(o, bb, 0);
      const kept = this.instances[k];
      if (!same(world, this.world, 16 * k) || !same(bb, this.local, 6 * k)) {
        for (let j = 0; j < n; j++) {
          moved.push(first + j);
        }
        const w = Float64Array.from(world);
        const local = bb.slice();
        const now = kept ? liveInstances(o).slice() : undefined;
        writes.push(() => {
          this.world.set(w, 16 * k);
          this.local.set(local, 6 * k);
          if (kept && now) {
            kept.set(now);
          }
        });
        continue;
      }
      if (kept) {
        const live = liveInstances(o);
        let changed: number[] | undefined;
        for (let j = 0, at = 0; j < n; j++, at += 16) {
          for (let i = at; i < at + 16; i++) {
            if (live[i] !== kept[i]) {
              (changed ??= []).push(j);
              break;
            }
          }
        }
        if (changed) {
          const list = changed;
          const now = new Float32Array(16 * list.length);
          list.forEach((j, c) => {
            moved.push(first + j);
            now.set(live.subarray(16 * j, 16 * j + 16), 16 * c);
          });
          writes.push(() => list.forEach((j, c) => kept.set(now.subarray(16 * c, 16 * c + 16), 16 * j)));
        }
      }
    }
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
 * Canonical boxes of `layout` (all, or the boxes `only` in that order), with each box's frame
 * (see {@link View}). Fast path per box: the matrix's columns are scaled, orthogonal axes
 * (validated and made canonical in bulk by validateBoxArray); a zero scale takes obbFromMatrix's
 * completion; a sheared matrix follows the shear policy (those two are irregular frames).
 */
function boxesOf(layout: Layout, shear: ShearPolicy, only: Uint32Array | undefined): MadeBoxes {
  const n = only ? only.length : layout.count;
  const raw = new Float64Array(n * BOX_F64.STRIDE);
  const frames = new Uint8Array(n);
  const special: [number, Float64Array, MeshLike, Float64Array][] = [];
  const m = new Float64Array(16);
  const bb = new Float64Array(6);
  // Plain loops, no closure over the slot counter: this runs per instance. The bounding box is
  // read once per object (boxes of one object are consecutive), and only for the boxes made.
  let at = -1;
  for (let k = 0; k < n; k++) {
    const b = only ? only[k]! : k;
    const next = objectIndex(layout, b);
    if (next !== at) {
      at = next;
      localBoxInto(layout.objects[at]!, bb, 0);
    }
    const o = layout.objects[at]!;
    worldMatrix(o, b - layout.first[at]!, m);
    if (writeRaw(raw, k, m, bb)) {
      // w = u × v of the canonical frame: along the third column unless the matrix mirrors.
      const det = m[0]! * (m[5]! * m[10]! - m[6]! * m[9]!) - m[1]! * (m[4]! * m[10]! - m[6]! * m[8]!) + m[2]! * (m[4]! * m[9]! - m[5]! * m[8]!);
      frames[k] = det < 0 ? 4 : 0;
    } else {
      special.push([k, m.slice(), o, bb.slice()]);
    }
  }
  // Identity axes where a special box will be written, so the bulk validation passes over it.
  for (const [slot] of special) {
    raw.set([1, 0, 0, 0, 1, 0, 0, 0, 1], slot * BOX_F64.STRIDE + BOX_F64.U);
  }
  const out = validateBoxArray(raw, n);
  const irregular = new Map<number, Float64Array>();
  for (const [slot, matrix, o, local] of special) {
    writeBoxRecord(out.data, slot, specialBox(matrix, { min: [local[0]!, local[1]!, local[2]!], max: [local[3]!, local[4]!, local[5]!] }, o, shear));
    frames[slot] = IRREGULAR;
    irregular.set(slot, faceNormals(out.data, slot, matrix));
  }
  return { boxes: out, frames, irregular };
}

/**
 * The object-space unit normals of the +u, +v, +w faces of box `slot` made from world matrix
 * `m`: a normal goes back through the matrix as Mᵀ · n (a zero one, of a zero scale, stays zero).
 */
function faceNormals(data: Float64Array, slot: number, m: Float64Array): Float64Array {
  const out = new Float64Array(9);
  for (let axis = 0; axis < 3; axis++) {
    const a = slot * BOX_F64.STRIDE + BOX_F64.U + 3 * axis;
    const nx = data[a]!, ny = data[a + 1]!, nz = data[a + 2]!;
    const x = m[0]! * nx + m[1]! * ny + m[2]! * nz;
    const y = m[4]! * nx + m[5]! * ny + m[6]! * nz;
    const z = m[8]! * nx + m[9]! * ny + m[10]! * nz;
    const l = Math.sqrt(x * x + y * y + z * z) || 1;
    out.set([x / l, y / l, z / l], 3 * axis);
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
 * The geometry's bounding box (computed when three has not yet), as min x, y, z then max x, y, z
 * at `out[at]`; for a SkinnedMesh its own posed `boundingBox` (SkinnedMesh.computeBoundingBox
 * applies the bones: call it after posing).
 */
function localBoxInto(o: MeshLike, out: Float64Array, at: number): void {
  const skinned = o as { isSkinnedMesh?: boolean; boundingBox?: { min: Vector3; max: Vector3 } | null; computeBoundingBox?(): void };
  let bb: { min: Vector3; max: Vector3 };
  if (skinned.isSkinnedMesh && skinned.computeBoundingBox) {
    if (!skinned.boundingBox) {
      skinned.computeBoundingBox();
    }
    bb = skinned.boundingBox!;
  } else {
    if (!o.geometry.boundingBox) {
      o.geometry.computeBoundingBox();
    }
    bb = o.geometry.boundingBox!;
  }
  out[at] = bb.min.x;
  out[at + 1] = bb.min.y;
  out[at + 2] = bb.min.z;
  out[at + 3] = bb.max.x;
  out[at + 4] = bb.max.y;
  out[at + 5] = bb.max.z;
}

/**
 * Writes the raw box record of world matrix `m` and local box `bb` (min, max) at slot `k` (centre, half
 * extents, normalised columns): false when a column is zero or two columns are not orthogonal
 * (those boxes go through obbFromMatrix or the shear policy).
 */
function writeRaw(out: Float64Array, k: number, m: Float64Array, bb: Float64Array): boolean {
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
  const x0 = bb[0]!, y0 = bb[1]!, z0 = bb[2]!, x1 = bb[3]!, y1 = bb[4]!, z1 = bb[5]!;
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
