/**
 * Picking: a city of up to 1M boxes; every frame the mouse ray is cast on the GPU through the
 * BVH (RayQueries.encodeClosestHit into the frame's own encoder), and the render pass that
 * follows reads the hit buffers directly: the picked box lights up, its entered face is
 * outlined, the hit point and normal are drawn — no readback in the loop. A separate,
 * non-blocking readback (mapAsync, never awaited by a frame) feeds the panel and "verify".
 * The AABB toggle draws every box's axis-aligned bounding box and also picks among those
 * boxes, so the panel shows when an AABB picker would have chosen another box.
 */
import GUI from 'lil-gui';
import { BOX_F64, FACE_NONE, frustumPlanes, rayFromScreen, type BoxArray, type BoxSet, type FrustumCuller, type RayArray } from 'webgpu-obb';
import { HIT, HIT_FLAG_INSIDE, HIT_GEOMETRY, NO_BOX, RAY, packRays, type Bvh } from 'webgpu-obb/advanced';
import { closestHit } from 'webgpu-obb/reference';
import { compareClosestHits, formatComparison } from 'webgpu-obb/judge';
import { FACE_NAMES, fmtInt, fmtMs, nothingToVerify, uploadCity, type DemoContext, type FrameContext, type PickInfo, type SceneInfo, type StatLine, type VerifyReport, type View } from '../app.ts';
import { PICKING_SEED, PICKING_DEFAULT_SIZE } from '../config.ts';
import { OrbitCamera, relativeTo } from '../gfx/camera.ts';
import type { Drawable } from '../gfx/renderer.ts';
import { boxChecksum, KIND_NAMES, type City } from '../scenes.ts';


const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;

interface Readback {
  x: number;
  y: number;
  ray: RayArray;
  withAabb: boolean;
  frame: number;
}

interface PickResult extends PickInfo {
  readonly ray: RayArray;
  readonly inside: boolean;
  readonly point: [number, number, number];
  readonly normal: [number, number, number];
}

/** AABBs of every box as axis-aligned boxes (what an AABB picker tests). */
function aabbBoxes(boxes: BoxArray): BoxArray {
  const n = boxes.count;
  const src = boxes.data;
  const data = new Float64Array(n * BOX_F64.STRIDE);
  for (let i = 0; i < n; i++) {
    const o = i * BOX_F64.STRIDE;
    for (let k = 0; k < 3; k++) {
      data[o + k] = src[o + k]!;
      data[o + 3 + k] = src[o + 3]! * Math.abs(src[o + 6 + k]!) + src[o + 4]! * Math.abs(src[o + 9 + k]!) + src[o + 5]! * Math.abs(src[o + 12 + k]!);
    }
    data[o + 6] = 1;
    data[o + 10] = 1;
    data[o + 14] = 1;
  }
  return { count: n, data };
}

export class PickingView implements View {
  readonly name = 'picking' as const;
  readonly title = 'Picking';
  readonly camera = new OrbitCamera({ target: [0, 0, 0], distance: 230, yaw: -2.3, pitch: 0.75 }, 1, 9000);
  readonly folder: GUI;
  readonly params = { boxes: PICKING_DEFAULT_SIZE, showAabbs: false };
  ready = false;

  private city: City | undefined;
  private set: BoxSet | undefined;
  private tree: Bvh | undefined;
  private aabbSet: BoxSet | undefined;
  private aabbTree: Bvh | undefined;
  private colors: GPUBuffer | undefined;
  private culler: FrustumCuller | undefined;
  private readonly rayBuffer: GPUBuffer;
  private readonly hits: GPUBuffer;
  private readonly geometry: GPUBuffer;
  private readonly aabbHits: GPUBuffer;
  private readonly aabbGeometry: GPUBuffer;
  private readonly staging: GPUBuffer;
  private readonly boxes: Drawable;
  private readonly wire: Drawable;
  private readonly overlay: Drawable;
  private readonly aabbOverlay: Drawable;
  private mouse: { x: number; y: number } | undefined;
  private queued: Readback | undefined;
  private mapping = false;
  private last: PickResult | undefined;
  private waiters: { x: number; y: number; resolve: (p: PickInfo) => void }[] = [];
  private building: Promise<void> | undefined;
  private builtSize = 0;
  private buildMs = 0;
  private castThisFrame = false;
  private dirty = true;

  constructor(private readonly ctx: DemoContext, gui: GUI) {
    const d = ctx.device;
    const make = (label: string, size: number, usage = STORAGE): GPUBuffer => d.createBuffer({ label: `demo:pick:${label}`, size, usage });
    this.rayBuffer = make('ray', RAY.SIZE);
    this.hits = make('hits', HIT.SIZE);
    this.geometry = make('geometry', HIT_GEOMETRY.SIZE);
    this.aabbHits = make('aabb-hits', HIT.SIZE);
    this.aabbGeometry = make('aabb-geometry', HIT_GEOMETRY.SIZE);
    this.staging = make('staging', 2 * HIT.SIZE + HIT_GEOMETRY.SIZE, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
    this.clearHits();
    const r = ctx.renderer;
    this.boxes = r.drawable('boxesCulled');
    this.camera.farFor = (distance) => distance + 1600;
    this.wire = r.drawable('wireCulled');
    this.overlay = r.drawable('pick');
    this.aabbOverlay = r.drawable('pick');
    this.folder = gui.addFolder('Picking');
    this.folder.add(this.params, 'boxes', 1000, 1_000_000, 1000).name('scene size (boxes)').onFinishChange(() => {
      void this.activate().catch((e: unknown) => ctx.fail(e));
    });
    this.folder.add(this.params, 'showAabbs').name('show AABBs (and AABB pick)').onChange(() => {
      this.dirty = true;
      void this.activate().catch((e: unknown) => ctx.fail(e));
    });
  }

  private clearHits(): void {
    const miss = new Uint32Array([0, NO_BOX, FACE_NONE, 0]);
    this.ctx.device.queue.writeBuffer(this.hits, 0, miss);
    this.ctx.device.queue.writeBuffer(this.aabbHits, 0, miss);
  }

  async activate(): Promise<void> {
    while (this.building) {
      await this.building;
    }
    if (this.builtSize === this.params.boxes && this.set && (!this.params.showAabbs || this.aabbSet)) {
      return;
    }
    this.building = this.build().finally(() => {
      this.building = undefined;
    });
    await this.building;
  }

  private async build(): Promise<void> {
    const { gpu } = this.ctx;
    const n = Math.max(1000, Math.round(this.params.boxes));
    const t0 = performance.now();
    if (this.builtSize !== n || !this.set) {
      this.ready = false;
      const built = await uploadCity(this.ctx, n, PICKING_SEED, 'city', { set: this.set, colors: this.colors });
      ({ city: this.city, set: this.set, colors: this.colors, tree: this.tree } = built);
      this.aabbTree = undefined;
      if (this.aabbSet) {
        await this.aabbSet.set(aabbBoxes(built.set.boxes));
      }
      this.builtSize = n;
      this.last = undefined;
      this.clearHits();
    }
    if (this.params.showAabbs && this.set) {
      if (!this.aabbSet) {
        this.aabbSet = gpu.createBoxSet(aabbBoxes(this.set.boxes), { origin: this.set.origin, label: 'city-aabbs' });
      }
      this.aabbTree ??= await gpu.bvhOf(this.aabbSet);
    }
    await this.ctx.device.queue.onSubmittedWorkDone();
    this.buildMs = performance.now() - t0;
    this.ready = true;
    this.dirty = true;
    this.ctx.note(`city of ${fmtInt(n)} boxes and its BVH ready in ${fmtMs(this.buildMs)}`);
  }

  deactivate(): void {
    this.mouse = undefined;
  }

  pointerMove(x: number, y: number): void {
    this.mouse = { x, y };
    this.dirty = true;
  }

  pointerLeave(): void {
    this.mouse = undefined;
    this.dirty = true;
  }

  needsFrame(): boolean {
    return this.dirty;
  }

  async compute(f: FrameContext): Promise<void> {
    this.castThisFrame = false;
    this.dirty = false;
    const set = this.set;
    if (!this.ready || !set || !this.tree) {
      return;
    }
    // GPU-driven drawing: only boxes in the view frustum are drawn (drawIndexedIndirect).
    if (!this.culler || this.culler.capacity < set.count) {
      this.culler?.destroy();
      this.culler = await this.ctx.gpu.createFrustumCuller(set.count);
    }
    await this.culler.encode(f.encoder, set, frustumPlanes(f.camera.viewProj), { indexCount: 36 });
    if (!this.mouse) {
      this.clearHits();
      return;
    }
    const { x, y } = this.mouse;
    const cam = f.camera;
    const r = rayFromScreen(x, y, cam.width, cam.height, cam.invViewProj);
    const ray: RayArray = { count: 1, data: Float64Array.from([...r.origin, ...r.direction, r.maxDistance]) };
    this.ctx.device.queue.writeBuffer(this.rayBuffer, 0, packRays(ray, set.origin));
    const writes = this.ctx.timer.writes('pick');
    await this.ctx.gpu.rays.encodeClosestHit(f.encoder, set, this.rayBuffer, 1, this.hits, this.geometry, writes ? { tree: this.tree, timestampWrites: writes } : { tree: this.tree });
    const withAabb = this.params.showAabbs && this.aabbSet !== undefined && this.aabbTree !== undefined;
    if (withAabb) {
      await this.ctx.gpu.rays.encodeClosestHit(f.encoder, this.aabbSet!, this.rayBuffer, 1, this.aabbHits, this.aabbGeometry, { tree: this.aabbTree! });
    }
    this.castThisFrame = true;
    if (!this.mapping) {
      f.encoder.copyBufferToBuffer(this.hits, 0, this.staging, 0, HIT.SIZE);
      f.encoder.copyBufferToBuffer(this.geometry, 0, this.staging, HIT.SIZE, HIT_GEOMETRY.SIZE);
      if (withAabb) {
        f.encoder.copyBufferToBuffer(this.aabbHits, 0, this.staging, HIT.SIZE + HIT_GEOMETRY.SIZE, HIT.SIZE);
      }
      this.queued = { x, y, ray, withAabb, frame: f.frame };
    }
  }

  render(f: FrameContext, pass: GPURenderPassEncoder): void {
    const set = this.set;
    if (!this.ready || !set || !this.colors || !this.culler) {
      return;
    }
    const cam = f.camera;
    const o = set.origin;
    const { mvp, eye, fog } = relativeTo(cam, o, this.camera.far);
    this.boxes.set({ mvp, eye, fog, color2: [1, 0.72, 0.15, 1], sel: [NO_BOX, NO_BOX, 1, 0] })
      .bind([set.buffer, this.colors, this.hits, this.culler.visibleBuffer])
      .drawIndirect(pass, this.ctx.renderer.boxIndices, this.culler.drawArgsBuffer);
    if (this.params.showAabbs) {
      this.wire.set({ mvp, eye, fog, color: [0.35, 0.85, 1, 0.28], sel: [0, 0, 0, 1] })
        .bind([set.buffer, this.culler.visibleBuffer]).drawIndirect(pass, this.ctx.renderer.boxIndices, this.culler.drawArgsBuffer);
    }
    if (this.castThisFrame) {
      if (this.params.showAabbs && this.aabbSet) {
        this.aabbOverlay.set({ mvp, eye, width: 3, scale: 0.004, color2: [1, 0.45, 0.25, 1], sel: [0, 0, 0, 1] })
          .bind([set.buffer, this.aabbHits, this.aabbGeometry]).draw(pass, 6 * 12);
      }
      this.overlay.set({ mvp, eye, width: 3, scale: 0.004, color: [0.35, 1, 0.95, 1], color2: [1, 0.3, 0.85, 1], sel: [0, 0, 0, 0] })
        .bind([set.buffer, this.hits, this.geometry]).draw(pass, 6 * 12);
    }
  }

  afterSubmit(): void {
    const rb = this.queued;
    this.queued = undefined;
    if (!rb || this.mapping) {
      return;
    }
    this.mapping = true;
    this.staging.mapAsync(GPUMapMode.READ).then(() => {
      const bytes = this.staging.getMappedRange().slice(0);
      this.staging.unmap();
      const u = new Uint32Array(bytes);
      const fl = new Float32Array(bytes);
      const box = u[1]! === NO_BOX ? -1 : u[1]!;
      const g = HIT.SIZE / 4;
      const aabb = rb.withAabb ? u[(HIT.SIZE + HIT_GEOMETRY.SIZE) / 4 + 1]! : NO_BOX;
      const o = this.set?.origin ?? [0, 0, 0];
      this.last = {
        x: rb.x, y: rb.y, ray: rb.ray, frame: rb.frame,
        box, t: box >= 0 ? fl[0]! : Infinity, face: u[2]!, inside: (u[3]! & HIT_FLAG_INSIDE) !== 0,
        point: [fl[g]! + o[0], fl[g + 1]! + o[1], fl[g + 2]! + o[2]],
        normal: [fl[g + 4]!, fl[g + 5]!, fl[g + 6]!],
        aabbBox: rb.withAabb ? (aabb === NO_BOX ? -1 : aabb) : null,
      };
      const done = this.waiters.filter((w) => w.x === rb.x && w.y === rb.y);
      this.waiters = this.waiters.filter((w) => !done.includes(w));
      for (const w of done) {
        w.resolve(this.publicPick(this.last));
      }
    }, (e: unknown) => this.ctx.fail(e)).finally(() => {
      this.mapping = false;
    });
  }

  private publicPick(p: PickResult): PickInfo {
    return { x: p.x, y: p.y, box: p.box, t: p.t, face: p.face, aabbBox: p.aabbBox, frame: p.frame };
  }

  lastPick(): PickInfo | null {
    return this.last ? this.publicPick(this.last) : null;
  }

  /** Hovers (x, y) as a mouse move would, and resolves with the read-back pick of that ray. */
  pickAt(x: number, y: number): Promise<PickInfo> {
    this.mouse = { x, y };
    this.dirty = true;
    return new Promise((resolve) => this.waiters.push({ x, y, resolve }));
  }

  async verify(): Promise<VerifyReport> {
    const p = this.last;
    const set = this.set;
    if (!p || !set) {
      return nothingToVerify('no pick yet: move the mouse over the city');
    }
    const t0 = performance.now();
    const gpuHits = {
      count: 1, box: Int32Array.of(p.box), t: Float32Array.of(p.box >= 0 ? p.t : 0),
      face: Uint8Array.of(p.box >= 0 ? p.face : FACE_NONE), inside: Uint8Array.of(p.inside ? 1 : 0),
    };
    const boxes = set.boxes;
    const ref = closestHit(boxes, p.ray);
    const cmp = compareClosestHits({ boxes, rays: p.ray, origin: set.origin }, gpuHits, ref);
    const ms = performance.now() - t0;
    return {
      what: `pick ray at (${p.x}, ${p.y}) vs float64 reference over ${fmtInt(boxes.count)} boxes (GPU box ${p.box}, reference box ${ref.box[0]})`,
      total: cmp.total, agree: cmp.agree, ambiguous: cmp.ambiguous, mismatch: cmp.mismatch, ms, detail: formatComparison(cmp),
    };
  }

  stats(): StatLine[] {
    const lines: StatLine[] = [
      { label: 'scene', value: `${fmtInt(this.set?.count ?? 0)} boxes (city, seed ${PICKING_SEED})` },
      { label: 'scene build', value: `${fmtMs(this.buildMs)} (generate, upload, BVH)`, tone: 'dim' },
      { label: 'pick (GPU, 1 ray, BVH)', value: fmtMs(this.ctx.timer.ms('pick')) },
    ];
    const p = this.last;
    if (!p) {
      lines.push({ label: 'picked', value: 'move the mouse over the city', tone: 'dim' });
    } else if (p.box < 0) {
      lines.push({ label: 'picked', value: 'nothing (sky)' });
    } else {
      const kind = this.city ? KIND_NAMES[this.city.kind[p.box]!] : 'box';
      lines.push({ label: 'picked', value: `box ${fmtInt(p.box)} (${kind})`, tone: 'ok' });
      lines.push({
        label: 'hit', value: p.inside ? 'origin inside the box (t = 0)'
          : `t = ${p.t.toFixed(2)} m, face ${FACE_NAMES[p.face] ?? '—'}, n = (${p.normal.map((v) => v.toFixed(2)).join(', ')})`,
      });
      lines.push({ label: 'point', value: `(${p.point.map((v) => v.toFixed(2)).join(', ')})`, tone: 'dim' });
    }
    if (p && p.aabbBox !== null) {
      const same = p.aabbBox === p.box;
      lines.push({
        label: 'AABB pick', value: p.aabbBox < 0 ? 'nothing' : `box ${fmtInt(p.aabbBox)}${same ? ' (same)' : ' — a different box: its AABB is in front'}`,
        tone: same ? 'dim' : 'warn',
      });
    }
    return lines;
  }

  currentBoxes(): BoxArray | undefined {
    return this.set?.boxes;
  }

  sceneInfo(): SceneInfo {
    return { view: 'picking', size: this.set?.count ?? 0, seed: PICKING_SEED, checksum: this.set ? boxChecksum(this.set.boxes) : 0 };
  }
}

