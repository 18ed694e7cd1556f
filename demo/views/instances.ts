/**
 * GPU-animated instances: up to 1M boxes whose world matrices only ever exist on the GPU. Each
 * frame, in the frame's one encoder: a compute pass animates the matrices
 * (shaders/animate.wgsl), the GPU-sourced set derives its boxes from them and refits (or
 * rebuilds) its tree (`set.refresh`), the mouse ray is cast through that tree
 * (`encodeClosestHit`), and the render pass draws the boxes from the set's own buffer with the
 * picked one lit from the hit buffer; all pairs are found in the same encoder
 * (`gpu.pairs.encodeAllPairs` into a `PairListBuffers`) and a pass dispatched indirectly from the
 * list's status paints the boxes in contact red (shaders/contacts.wgsl). Nothing is read back to
 * draw a frame: the pick and the list's status are copied to a staging buffer for the panel (one
 * read in flight at most). The panel shows the GPU time of each phase through timestamp queries
 * ('n/a' without `timestamp-query`). "Verify on CPU" freezes the animation, reads a frame back
 * (`set.readBack()`: the matrices and what the GPU derived; `list.read()`: the pairs) and judges
 * in float64 the derivation, the frame's pick and its contacts.
 */
import GUI from 'lil-gui';
import { FACE_NONE, rayFromScreen, type BoxArray, type GpuSourcedBoxSet, type PairListBuffers, type RayArray } from 'webgpu-obb';
import { HIT, HIT_FLAG_INSIDE, HIT_GEOMETRY, NO_BOX, PAIR_LIST_STATUS, RAY, packRays } from 'webgpu-obb/advanced';
import { allPairsSweep, closestHit } from 'webgpu-obb/reference';
import { compareClosestHits, compareDerivedBoxes, comparePairLists, formatComparison } from 'webgpu-obb/judge';
import animateWgsl from '../shaders/animate.wgsl?raw';
import contactsWgsl from '../shaders/contacts.wgsl?raw';
import { fmtInt, fmtMs, type DemoContext, type FrameContext, type InstancesInfo, type SceneInfo, type StatLine, type VerifyReport, type View } from '../app.ts';
import { INSTANCES_DEFAULT_SIZE, INSTANCES_MAX_SIZE, INSTANCES_SEED } from '../config.ts';
import { OrbitCamera, relativeTo } from '../gfx/camera.ts';
import type { Drawable } from '../gfx/renderer.ts';
import { boxChecksum } from '../scenes.ts';

const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
/** The instances' box in their matrices' local space: a unit cube (the matrices scale it). */
const LOCAL_BOX = { min: [-0.5, -0.5, -0.5], max: [0.5, 0.5, 0.5] } as const;
/** Byte of the pair list's status in the staging buffer (after the hit). */
const STATUS_AT = HIT.SIZE;
/** The phases timed on the GPU, as the panel names them, and the timer label of each. */
export const INSTANCE_PHASES = [['animate', 'animate'], ['derive', 'derive'], ['refit/rebuild', 'tree'], ['pick', 'pick'], ['pairs', 'pairs'], ['draw', 'render']] as const;

interface Pick {
  x: number;
  y: number;
  frame: number;
  ray: RayArray;
  box: number;
  t: number;
  face: number;
  inside: boolean;
}

/** Blue-grey shades per instance (RGBA8), seeded. */
function baseColors(n: number): Uint32Array {
  const c = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const k = Math.imul(i + 1, 2654435761) >>> 24; // 0..255
    const r = 80 + (k >> 3), g = 110 + (k >> 2), b = 150 + (k >> 2);
    c[i] = (0xff << 24) | (b << 16) | (g << 8) | r;
  }
  return c;
}

export class InstancesView implements View {
  readonly name = 'instances' as const;
  readonly title = 'GPU-animated instances';
  readonly camera = new OrbitCamera({ target: [0, 0, 0], distance: 120, yaw: -2.3, pitch: 0.6 }, 0.5, 6000);
  readonly folder: GUI;
  readonly params = { instances: INSTANCES_DEFAULT_SIZE, paused: false, contacts: true };
  ready = false;

  private set: GpuSourcedBoxSet | undefined;
  private matrices: GPUBuffer | undefined;
  private colors: GPUBuffer | undefined;
  private baseColors: GPUBuffer | undefined;
  private list: PairListBuffers | undefined;
  private group: GPUBindGroup | undefined;
  private contactGroup: GPUBindGroup | undefined;
  private pipeline: GPUComputePipeline | undefined;
  private contactPipeline: GPUComputePipeline | undefined;
  private readonly uniform: GPUBuffer;
  private readonly rayBuffer: GPUBuffer;
  private readonly hits: GPUBuffer;
  private readonly geometry: GPUBuffer;
  private readonly staging: GPUBuffer;
  private readonly boxes: Drawable;
  private extent = 1;
  private time = 0;
  private frame = 0;
  private mouse: { x: number; y: number } | undefined;
  private queued: { frame: number; pick: Omit<Pick, 'box' | 't' | 'face' | 'inside'> | undefined; pairs: boolean } | undefined;
  private mapping = false;
  private last: Pick | undefined;
  private tree: 'none' | 'refit' | 'rebuild' = 'none';
  /** The pair list's status as last read: valid pairs, overflow bits, and the frame. */
  private pairStatus: { count: number; overflow: number; frame: number } | undefined;
  private waiting = 0;
  private building: Promise<void> | undefined;
  private builtSize = 0;

  constructor(private readonly ctx: DemoContext, gui: GUI) {
    const d = ctx.device;
    const make = (label: string, size: number, usage = STORAGE): GPUBuffer => d.createBuffer({ label: `demo:instances:${label}`, size, usage });
    this.uniform = make('animate-params', 16, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
    this.rayBuffer = make('ray', RAY.SIZE);
    this.hits = make('hits', HIT.SIZE);
    this.geometry = make('geometry', HIT_GEOMETRY.SIZE);
    this.staging = make('staging', HIT.SIZE + PAIR_LIST_STATUS.SIZE, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
    this.clearHits();
    this.boxes = ctx.renderer.drawable('boxes');
    this.camera.farFor = (distance) => distance + 2 * this.extent;
    this.folder = gui.addFolder('Instances');
    this.folder.add(this.params, 'instances', 1000, INSTANCES_MAX_SIZE, 1000).name('instances').onFinishChange(() => {
      void this.activate().catch((e: unknown) => ctx.fail(e));
    });
    this.folder.add(this.params, 'paused').name('pause the animation');
    this.folder.add(this.params, 'contacts').name('all pairs every frame').onChange(() => {
      if (this.colors && this.baseColors) {
        ctx.device.queue.writeBuffer(this.colors, 0, baseColors(this.set?.boxCapacity ?? 0));
      }
    });
  }

  private clearHits(): void {
    this.ctx.device.queue.writeBuffer(this.hits, 0, new Uint32Array([0, NO_BOX, FACE_NONE, 0]));
  }

  async activate(): Promise<void> {
    while (this.building) {
      await this.building;
    }
    if (this.set && this.builtSize === Math.round(this.params.instances)) {
      return;
    }
    this.building = this.build().finally(() => {
      this.building = undefined;
    });
    await this.building;
  }

  private async build(): Promise<void> {
    const { gpu, device } = this.ctx;
    const n = Math.min(INSTANCES_MAX_SIZE, Math.max(1000, Math.round(this.params.instances)));
    this.ready = false;
    this.set?.destroy();
    this.list?.destroy();
    this.matrices?.destroy();
    this.colors?.destroy();
    this.baseColors?.destroy();
    this.pipeline ??= await device.createComputePipelineAsync({
      label: 'demo:instances:animate', layout: 'auto',
      compute: { module: device.createShaderModule({ label: 'demo:animate', code: animateWgsl }), entryPoint: 'main' },
    });
    this.contactPipeline ??= await device.createComputePipelineAsync({
      label: 'demo:instances:contacts', layout: 'auto',
      compute: { module: device.createShaderModule({ label: 'demo:contacts', code: contactsWgsl }), entryPoint: 'main' },
    });
    this.matrices = device.createBuffer({ label: 'demo:instances:matrices', size: 64 * n, usage: STORAGE });
    const base = baseColors(n);
    this.baseColors = device.createBuffer({ label: 'demo:instances:base-colors', size: 4 * n, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(this.baseColors, 0, base);
    this.colors = device.createBuffer({ label: 'demo:instances:colors', size: 4 * n, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(this.colors, 0, base);
    // Room for one pair per box (about 0.6 per box here); more is flagged as overflow in the panel.
    this.list = gpu.createPairList(n, { label: 'instances:pairs' });
    this.group = device.createBindGroup({
      label: 'demo:instances:animate', layout: this.pipeline.getBindGroupLayout(0),
      entries: [{ binding: 0, resource: { buffer: this.uniform } }, { binding: 1, resource: { buffer: this.matrices } }],
    });
    this.contactGroup = device.createBindGroup({
      label: 'demo:instances:contacts', layout: this.contactPipeline.getBindGroupLayout(0),
      entries: [
        { binding: 0, resource: { buffer: this.list.pairsBuffer } },
        { binding: 1, resource: { buffer: this.list.statusBuffer } },
        { binding: 2, resource: { buffer: this.colors } },
      ],
    });
    // About 30 m³ of room per box of mean size 1.5 m: a few contacts per hundred boxes.
    this.extent = 3.1 * Math.cbrt(n);
    this.camera.pose.distance = 1.9 * this.extent;
    this.set = gpu.createBoxSet({ source: { buffer: this.matrices, layout: 'mat4x4f', count: n, localBox: { min: [...LOCAL_BOX.min], max: [...LOCAL_BOX.max] } }, label: 'instances' });
    this.builtSize = n;
    this.last = undefined;
    this.pairStatus = undefined;
    this.clearHits();
    this.ready = true;
    this.ctx.note(`${fmtInt(n)} GPU-animated instances`);
  }

  deactivate(): void {
    this.mouse = undefined;
  }

  pointerMove(x: number, y: number): void {
    this.mouse = { x, y };
  }

  pointerLeave(): void {
    this.mouse = undefined;
  }

  needsFrame(): boolean {
    return !this.params.paused || this.waiting > 0 || this.mouse !== undefined;
  }

  async compute(f: FrameContext): Promise<void> {
    const set = this.set;
    if (!this.ready || !set || !this.pipeline || !this.group) {
      return;
    }
    this.frame++;
    if (!this.params.paused) {
      this.time += f.dt;
    }
    const { device, timer, gpu } = this.ctx;
    const words = new ArrayBuffer(16);
    new Uint32Array(words, 0, 2).set([set.boxCapacity, INSTANCES_SEED]);
    new Float32Array(words, 8, 2).set([this.time, this.extent]);
    device.queue.writeBuffer(this.uniform, 0, words);
    const animate = timer.writes('animate');
    const pass = f.encoder.beginComputePass(animate ? { label: 'demo:instances:animate', timestampWrites: animate } : { label: 'demo:instances:animate' });
    pass.setPipeline(this.pipeline);
    pass.setBindGroup(0, this.group);
    pass.dispatchWorkgroups(Math.ceil(set.boxCapacity / 64));
    pass.end();
    const derive = timer.writes('derive'), tree = timer.writes('tree');
    const refreshed = await set.refresh(f.encoder, { ...(derive ? { timestampWrites: derive } : {}), ...(tree ? { treeTimestampWrites: tree } : {}) });
    this.tree = refreshed.tree;
    const bvh = await gpu.bvhOf(set);
    let pick: Omit<Pick, 'box' | 't' | 'face' | 'inside'> | undefined;
    if (this.mouse) {
      const { x, y } = this.mouse;
      const cam = f.camera;
      const r = rayFromScreen(x, y, cam.width, cam.height, cam.invViewProj);
      const ray: RayArray = { count: 1, data: Float64Array.from([...r.origin, ...r.direction, r.maxDistance]) };
      device.queue.writeBuffer(this.rayBuffer, 0, packRays(ray, set.origin));
      const writes = timer.writes('pick');
      await gpu.rays.encodeClosestHit(f.encoder, set, this.rayBuffer, 1, this.hits, this.geometry, { ...(bvh ? { tree: bvh } : {}), ...(writes ? { timestampWrites: writes } : {}) });
      pick = { x, y, frame: this.frame, ray };
    } else {
      this.clearHits();
    }
    const list = this.list;
    const contacts = this.params.contacts && list !== undefined && this.contactPipeline !== undefined && this.contactGroup !== undefined && this.colors !== undefined && this.baseColors !== undefined;
    if (contacts) {
      // All pairs in this encoder, then their colours: base colours back, contacts painted red.
      const writes = timer.writes('pairs');
      await gpu.pairs.encodeAllPairs(f.encoder, set, list, { ...(bvh ? { tree: bvh } : {}), ...(writes ? { timestampWrites: writes } : {}) });
      f.encoder.copyBufferToBuffer(this.baseColors!, 0, this.colors!, 0, 4 * set.boxCapacity);
      const paint = f.encoder.beginComputePass({ label: 'demo:instances:contacts' });
      paint.setPipeline(this.contactPipeline!);
      paint.setBindGroup(0, this.contactGroup!);
      paint.dispatchWorkgroupsIndirect(list.statusBuffer, PAIR_LIST_STATUS.DISPATCH);
      paint.end();
    }
    if (!this.mapping && (pick || contacts)) {
      if (pick) {
        f.encoder.copyBufferToBuffer(this.hits, 0, this.staging, 0, HIT.SIZE);
      }
      if (contacts) {
        f.encoder.copyBufferToBuffer(list.statusBuffer, 0, this.staging, STATUS_AT, PAIR_LIST_STATUS.SIZE);
      }
      this.queued = { frame: this.frame, pick, pairs: contacts };
    }
  }

  render(f: FrameContext, pass: GPURenderPassEncoder): void {
    const set = this.set;
    if (!this.ready || !set || !this.colors) {
      return;
    }
    const { mvp, eye, fog } = relativeTo(f.camera, set.origin, this.camera.far);
    this.boxes.set({ mvp, eye, fog, color2: [1, 0.72, 0.15, 1], sel: [NO_BOX, NO_BOX, 1, 0] })
      .bind([set.buffer, this.colors, this.hits]).draw(pass, 36, set.count);
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
      const u = new Uint32Array(bytes), fl = new Float32Array(bytes);
      if (rb.pick) {
        const box = u[1]! === NO_BOX ? -1 : u[1]!;
        this.last = { ...rb.pick, box, t: fl[0]!, face: u[2]!, inside: (u[3]! & HIT_FLAG_INSIDE) !== 0 };
      }
      if (rb.pairs) {
        const w = STATUS_AT / 4;
        this.pairStatus = { count: u[w + PAIR_LIST_STATUS.COUNT / 4]!, overflow: u[w + PAIR_LIST_STATUS.OVERFLOW / 4]!, frame: rb.frame };
      }
    }, (e: unknown) => this.ctx.fail(e)).finally(() => {
      this.mapping = false;
    });
  }

  /** Resolves when `ready()` holds, drawing frames meanwhile. */
  private async until(ready: () => boolean, timeoutMs = 120_000): Promise<void> {
    this.waiting++;
    try {
      const t0 = performance.now();
      while (!ready()) {
        if (performance.now() - t0 > timeoutMs) {
          throw new Error('instances view: timed out waiting for a frame');
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      this.waiting--;
    }
  }

  async verify(): Promise<VerifyReport> {
    const set = this.set;
    if (!set) {
      return { what: 'no instances yet', total: 0, agree: 0, ambiguous: 0, mismatch: 0, ms: 0, detail: '' };
    }
    const wasPaused = this.params.paused;
    this.params.paused = true;
    try {
      // Frames after `mark` all draw the same matrices (the time stands still): wait for one's
      // pick (with the mouse over the canvas) and one's pairs, then read a frame back.
      const mark = this.frame;
      await this.until(() => (!this.mouse || (this.last !== undefined && this.last.frame > mark)) && (!this.params.contacts || (this.pairStatus !== undefined && this.pairStatus.frame > mark)));
      const t0 = performance.now();
      const back = await set.readBack();
      const derived = compareDerivedBoxes(back.input, back.gpu);
      const boxes: BoxArray = back.gpu.boxes;
      const parts = [{ name: `derivation of ${fmtInt(back.count)} boxes from their matrices`, cmp: derived }];
      const p = this.mouse ? this.last : undefined;
      if (p) {
        const options = { boxMasks: back.gpu.masks };
        const impl = {
          count: 1, box: Int32Array.of(p.box), t: Float32Array.of(p.box >= 0 ? p.t : 0),
          face: Uint8Array.of(p.box >= 0 ? p.face : FACE_NONE), inside: Uint8Array.of(p.inside ? 1 : 0),
        };
        parts.push({ name: `pick (GPU box ${p.box})`, cmp: compareClosestHits({ boxes, rays: p.ray, origin: back.origin, options }, impl, closestHit(boxes, p.ray, options)) });
      }
      // Every frame since the mark wrote the same pairs (in another order: read sorts them).
      const read = this.params.contacts && this.list ? await this.list.read() : undefined;
      if (read) {
        parts.push({ name: `${fmtInt(read.pairs.length / 2)} contacts`, cmp: comparePairLists({ a: boxes, origin: back.origin }, read.pairs, allPairsSweep(boxes)) });
      }
      const overflow = read !== undefined && read.status.overflow !== 0 ? 1 : 0;
      const sum = (k: 'total' | 'agree' | 'ambiguous' | 'mismatch'): number => parts.reduce((s, q) => s + q.cmp[k], 0);
      return {
        what: `frame ${this.frame} read back: ${parts.map((q) => q.name).join(', ')} vs float64${back.bad.length > 0 ? `; ${back.bad.length} boxes flagged` : ''}${overflow ? `; the pair list overflowed (${read!.status.found} found, room for ${this.list!.capacity})` : ''}`,
        total: sum('total'), agree: sum('agree'), ambiguous: sum('ambiguous'), mismatch: sum('mismatch') + back.bad.length + overflow,
        ms: performance.now() - t0, detail: parts.map((q) => formatComparison(q.cmp)).join('\n'),
      };
    } finally {
      this.params.paused = wasPaused;
    }
  }

  /** What the panel shows, for the test hook. */
  info(): InstancesInfo {
    const timer = this.ctx.timer;
    const phases: Record<string, string> = {};
    for (const [label, key] of INSTANCE_PHASES) {
      phases[label] = timer.supported ? fmtMs(timer.ms(key)) : 'n/a';
    }
    if (!this.params.contacts) {
      phases['pairs'] = 'off';
    }
    const ps = this.pairStatus;
    return {
      count: this.set?.count ?? 0, frame: this.frame, tree: this.tree, timestamps: timer.supported, phases,
      contacts: this.params.contacts && ps ? ps.count : null, overflow: ps ? ps.overflow : 0, picked: this.last ? this.last.box : null,
    };
  }

  stats(): StatLine[] {
    const info = this.info();
    const lines: StatLine[] = [
      { label: 'instances', value: `${fmtInt(info.count)} (matrices animated on the GPU, seed ${INSTANCES_SEED})` },
      { label: 'GPU time', value: INSTANCE_PHASES.map(([label]) => `${label} ${info.phases[label]}`).join(' · '), ...(info.timestamps ? {} : { tone: 'dim' as const }) },
      { label: 'tree', value: info.tree === 'none' ? 'none (brute force below the BVH threshold)' : `${info.tree} each frame`, tone: 'dim' },
      {
        label: 'contacts', value: info.contacts === null ? 'off' : `${fmtInt(info.contacts)} pairs (red)${info.overflow ? ' — the list overflowed: some are missing' : ''}`,
        ...(info.overflow ? { tone: 'warn' as const } : {}),
      },
    ];
    const p = this.last;
    lines.push(!p ? { label: 'picked', value: 'move the mouse over the boxes', tone: 'dim' }
      : p.box < 0 ? { label: 'picked', value: 'nothing' }
        : { label: 'picked', value: `instance ${fmtInt(p.box)} at t = ${p.t.toFixed(2)} m`, tone: 'ok' });
    return lines;
  }

  currentBoxes(): BoxArray | undefined {
    return this.set?.boxes;
  }

  sceneInfo(): SceneInfo {
    return { view: 'instances', size: this.set?.count ?? 0, seed: INSTANCES_SEED, checksum: this.set ? boxChecksum(this.set.boxes) : 0 };
  }
}
