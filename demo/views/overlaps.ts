/**
 * Overlaps: thousands of boxes tumbling in a volume. Each step moves them (BoxSet.update),
 * lists every overlapping pair on the GPU (allPairs: the grid built for the step, or the BVH,
 * refitted, when the grid would be crowded) and turns the boxes in contact red. A selected pair shows its separating axis (or, in contact, its axis of least
 * penetration) from obbPairs, with both boxes' projections on it. The face-axes-only switch
 * runs the cheaper 6-axis test next to the full 15-axis one and counts its false contacts
 * (orange): pairs it calls touching that an edge–edge axis separates.
 */
import GUI from 'lil-gui';
import { BOX_F64, FACE_NONE, SAT_AXIS_NAMES, boxAt, obbEdges, rayFromScreen, type BoxArray, type BoxSet } from 'webgpu-obb';
import { NO_BOX } from 'webgpu-obb/advanced';
import { allPairsSweep } from 'webgpu-obb/reference';
import { comparePairLists, comparePairs, formatComparison, mulberry32, type Comparison } from 'webgpu-obb/judge';
import { fmtInt, fmtMs, nothingToVerify, RecentMedian, type DemoContext, type FrameContext, type OverlapInfo, type SceneInfo, type StatLine, type VerifyReport, type View } from '../app.ts';
import { OVERLAP_SEED, OVERLAP_DEFAULT_SIZE } from '../config.ts';
import { OrbitCamera } from '../gfx/camera.ts';
import { cross, dot, normalize, project, translated, type V3 } from '../gfx/mat4.ts';
import { Segments, type Drawable } from '../gfx/renderer.ts';
import { boxChecksum, rgba, tumbleBoxes, tumbleScene, type TumbleScene } from '../scenes.ts';


const RED = rgba(0.93, 0.16, 0.12);
const ORANGE = rgba(1, 0.6, 0.08);
const A_COLOR = rgba(1, 0.88, 0.2);
const B_COLOR = rgba(0.3, 0.9, 1);

interface PairState {
  readonly a: number;
  readonly b: number;
  readonly overlap: boolean;
  readonly gap: number;
  readonly axis: number;
}

interface StepState {
  readonly t: number;
  readonly boxes: BoxArray;
  readonly pairs: Uint32Array;
  readonly facePairs: Uint32Array | undefined;
  readonly falseContacts: number;
  readonly touching: number;
  readonly pair: PairState | undefined;
}

const vec = (d: Float64Array, o: number): V3 => [d[o]!, d[o + 1]!, d[o + 2]!];

/** The SAT axis `id` of pair (a, b) as a world vector (A0..A2, B0..B2, Ai × Bj). */
function satAxis(boxes: BoxArray, a: number, b: number, id: number): V3 {
  const d = boxes.data;
  const axis = (box: number, k: number): V3 => vec(d, box * BOX_F64.STRIDE + BOX_F64.U + 3 * k);
  if (id < 3) {
    return axis(a, id);
  }
  if (id < 6) {
    return axis(b, id - 3);
  }
  return cross(axis(a, Math.floor((id - 6) / 3)), axis(b, (id - 6) % 3));
}

/** Centre projection and radius of box i on unit axis L. */
function projection(boxes: BoxArray, i: number, L: V3): [number, number] {
  const d = boxes.data;
  const o = i * BOX_F64.STRIDE;
  let r = 0;
  for (let k = 0; k < 3; k++) {
    r += d[o + BOX_F64.HALF + k]! * Math.abs(dot(vec(d, o + BOX_F64.U + 3 * k), L));
  }
  return [dot(vec(d, o), L), r];
}

export class OverlapsView implements View {
  readonly name = 'overlaps' as const;
  readonly title = 'Overlaps';
  readonly camera: OrbitCamera;
  readonly folder: GUI;
  readonly params = { boxes: OVERLAP_DEFAULT_SIZE, speed: 1, paused: false, faceOnly: true, showAxis: true };
  ready = false;

  private scene: TumbleScene;
  private set: BoxSet | undefined;
  private display: GPUBuffer | undefined;
  private colors: GPUBuffer | undefined;
  private base = new Uint32Array(0);
  private readonly noHits: GPUBuffer;
  private readonly boxes: Drawable;
  private readonly edgeDraw: Drawable;
  private readonly axisDraw: Drawable;
  private readonly edges: Segments;
  private readonly axisLines: Segments;
  private simTime = 0;
  private active = false;
  private looping = false;
  private steps = 0;
  private state: StepState | undefined;
  private pair: [number, number] | undefined;
  private request: { t: number; resolve: (info: OverlapInfo) => void } | undefined;
  private readonly pairsMs = new RecentMedian();
  /** The broad phase the latest allPairs took. */
  private pairsPath = 'grid';
  private readonly faceMs = new RecentMedian();
  private readonly updateMs = new RecentMedian();
  private built = 0;
  private buildRequested = true;
  private readyWaiters: (() => void)[] = [];
  private dirty = true;

  constructor(private readonly ctx: DemoContext, gui: GUI) {
    this.scene = tumbleScene(this.params.boxes, OVERLAP_SEED);
    this.camera = new OrbitCamera({ target: [0, 0, 0], distance: this.scene.extent * 2.7, yaw: -2.15, pitch: 0.45 }, 0.5, 3000);
    const d = ctx.device;
    this.noHits = d.createBuffer({ label: 'demo:overlaps:no-hits', size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    d.queue.writeBuffer(this.noHits, 0, new Uint32Array([0, NO_BOX, FACE_NONE, 0]));
    const r = ctx.renderer;
    this.boxes = r.drawable('boxes');
    this.edgeDraw = r.drawable('segments');
    this.axisDraw = r.drawable('segmentsOnTop');
    this.edges = new Segments(d);
    this.axisLines = new Segments(d);
    this.folder = gui.addFolder('Overlaps');
    this.folder.add(this.params, 'boxes', 100, 100_000, 100).name('scene size (boxes)').onFinishChange(() => {
      this.buildRequested = true;
    });
    this.folder.add(this.params, 'speed', 0, 3, 0.05).name('speed');
    this.folder.add(this.params, 'paused').name('pause').listen();
    this.folder.add(this.params, 'faceOnly').name('face-axes-only test too');
    this.folder.add(this.params, 'showAxis').name('show separating axis').onChange(() => {
      this.dirty = true;
    });
    this.folder.add({ next: () => this.nextPair() }, 'next').name('select another pair');
  }

  async activate(): Promise<void> {
    this.active = true;
    if (!this.looping) {
      void this.loop();
    }
    if (!this.ready || this.buildRequested) {
      await new Promise<void>((resolve) => this.readyWaiters.push(resolve));
    }
  }

  deactivate(): void {
    this.active = false;
  }

  needsFrame(): boolean {
    return this.dirty;
  }

  private async build(): Promise<void> {
    const { gpu, device } = this.ctx;
    const n = Math.max(2, Math.round(this.params.boxes));
    this.buildRequested = false;
    if (n === this.built && this.set) {
      return;
    }
    this.ready = false;
    this.scene = tumbleScene(n, OVERLAP_SEED);
    const boxes = tumbleBoxes(this.scene, this.simTime);
    if (this.set) {
      await this.set.set(boxes);
    } else {
      this.set = gpu.createBoxSet(boxes, { origin: [0, 0, 0], label: 'tumbling' });
    }
    this.display?.destroy();
    this.colors?.destroy();
    this.display = device.createBuffer({ label: 'demo:overlaps:display', size: 48 * n, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    this.colors = device.createBuffer({ label: 'demo:overlaps:colors', size: 4 * n, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    const rnd = mulberry32(OVERLAP_SEED + 100);
    this.base = new Uint32Array(n);
    for (let i = 0; i < n; i++) {
      const g = 0.5 + 0.25 * rnd();
      this.base[i] = rgba(g * 0.85, g * 0.92, g * 1.05);
    }
    this.camera.pose.distance = this.scene.extent * 2.7;
    this.pair = this.defaultPair(boxes);
    this.built = n;
    this.ctx.note(`${fmtInt(n)} tumbling boxes`);
  }

  /**
   * A big box in front, near the middle of the screen (so the pair and its axis are easy to
   * see), and its nearest neighbour.
   */
  private defaultPair(boxes: BoxArray): [number, number] {
    const d = boxes.data;
    const w = Math.max(1, this.ctx.canvas.clientWidth);
    const h = Math.max(1, this.ctx.canvas.clientHeight);
    const cam = this.camera.matrices(w, h);
    const e = cam.eye;
    const all = Array.from({ length: boxes.count }, (_, i) => ({
      i, r: Math.hypot(d[i * 15]! - e[0], d[i * 15 + 1]! - e[1], d[i * 15 + 2]! - e[2]),
      v: d[i * 15 + 3]! * d[i * 15 + 4]! * d[i * 15 + 5]!,
      p: project(cam.viewProj, [d[i * 15]!, d[i * 15 + 1]!, d[i * 15 + 2]!], w, h),
    })).sort((x, y) => x.r - y.r || x.i - y.i);
    const front = all.slice(0, Math.max(10, Math.ceil(all.length * 0.2)));
    const central = front.filter((x) => x.p && x.p[0] > 0.4 * w && x.p[0] < 0.7 * w && x.p[1] > 0.35 * h && x.p[1] < 0.65 * h);
    const pool = central.length > 0 ? central : front;
    const a = pool.reduce((best, x) => (x.v > best.v ? x : best)).i;
    return [a, this.nearest(boxes, a)];
  }

  private nearest(boxes: BoxArray, a: number): number {
    const d = boxes.data;
    let b = a === 0 ? 1 : 0;
    let best = Infinity;
    for (let i = 0; i < boxes.count; i++) {
      if (i !== a) {
        const r = Math.hypot(d[i * 15]! - d[a * 15]!, d[i * 15 + 1]! - d[a * 15 + 1]!, d[i * 15 + 2]! - d[a * 15 + 2]!);
        if (r < best) {
          best = r;
          b = i;
        }
      }
    }
    return b;
  }

  private nextPair(): void {
    const s = this.state;
    if (!s || s.boxes.count < 2) {
      return;
    }
    const a = Math.floor(Math.random() * s.boxes.count);
    this.pair = [a, this.nearest(s.boxes, a)];
    this.dirty = true;
  }

  private async loop(): Promise<void> {
    this.looping = true;
    let wall = performance.now();
    try {
      while (this.active) {
        if (this.buildRequested) {
          await this.build();
        }
        const now = performance.now();
        const dt = Math.min(0.1, (now - wall) / 1000);
        wall = now;
        const req = this.request;
        this.request = undefined;
        if (req) {
          this.simTime = req.t;
        } else if (!this.params.paused) {
          this.simTime += dt * this.params.speed;
        } else if (this.state) {
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        await this.step(this.simTime);
        req?.resolve(this.info());
        if (!this.ready) {
          this.ready = true;
          for (const w of this.readyWaiters.splice(0)) {
            w();
          }
        }
        // Give the renderer a turn between steps.
        await new Promise((r) => setTimeout(r, 0));
      }
    } catch (e) {
      this.ctx.fail(e);
    } finally {
      this.looping = false;
    }
  }

  private async step(t: number): Promise<void> {
    const { gpu, device } = this.ctx;
    const set = this.set!;
    const tu = performance.now();
    await set.update(0, tumbleBoxes(this.scene, t));
    this.updateMs.add(performance.now() - tu);
    if (++this.steps % 30 === 0 && this.pairsPath === 'BVH') {
      // Refits loosen the tree as boxes wander; rebuild it now and then.
      await gpu.buildBvh(set);
    }
    const boxes = set.boxes;
    const t0 = performance.now();
    const full = await gpu.allPairs(set);
    this.pairsMs.add(performance.now() - t0);
    this.pairsPath = full.grid ? 'grid' : full.bvh ? 'BVH' : 'brute force';
    let face: Uint32Array | undefined;
    if (this.params.faceOnly) {
      const t1 = performance.now();
      face = (await gpu.allPairs(set, { faceOnly: true })).pairs;
      this.faceMs.add(performance.now() - t1);
    }
    let pair: PairState | undefined;
    if (this.pair && this.pair[0] < set.count && this.pair[1] < set.count) {
      const [a, b] = this.pair;
      const r = await gpu.obbPairs(set, [[a, b]]);
      pair = { a, b, overlap: r.overlap[0] === 1, gap: r.gap[0]!, axis: r.axis[0]! };
    }
    // Colours: contacts red; with the face-only test, its false contacts orange.
    const colors = this.base.slice();
    const inFull = new Set<number>();
    for (let k = 0; k < full.pairs.length; k += 2) {
      const i = full.pairs[k]!, j = full.pairs[k + 1]!;
      colors[i] = RED;
      colors[j] = RED;
      inFull.add(i * set.count + j);
    }
    let falseContacts = 0;
    if (face) {
      for (let k = 0; k < face.length; k += 2) {
        const i = face[k]!, j = face[k + 1]!;
        if (!inFull.has(i * set.count + j)) {
          falseContacts++;
          for (const x of [i, j]) {
            if (colors[x] !== RED) {
              colors[x] = ORANGE;
            }
          }
        }
      }
    }
    let touching = 0;
    for (const c of colors) {
      touching += c === RED ? 1 : 0;
    }
    // Show exactly the boxes of this step with this step's colours.
    device.queue.writeBuffer(this.colors!, 0, colors);
    const enc = device.createCommandEncoder({ label: 'demo:overlaps:display' });
    enc.copyBufferToBuffer(set.buffer, 0, this.display!, 0, 48 * set.count);
    device.queue.submit([enc.finish()]);
    this.state = { t, boxes, pairs: full.pairs, facePairs: face, falseContacts, touching, pair };
    this.dirty = true;
  }

  async compute(): Promise<void> {}

  render(f: FrameContext, pass: GPURenderPassEncoder): void {
    this.dirty = false;
    const s = this.state;
    if (!s || !this.display || !this.colors || s.boxes.count !== this.built) {
      return;
    }
    const cam = f.camera;
    const mvp = translated(cam.viewProj, [0, 0, 0]);
    const eye = cam.eye;
    const fog = this.scene.extent * 8;
    const p = s.pair;
    this.boxes.set({ mvp, eye, fog, color2: [1, 0.93, 0.55, 1], sel: [p ? p.a : NO_BOX, p ? p.b : NO_BOX, 0, 0] })
      .bind([this.display, this.colors, this.noHits]).draw(pass, 36, s.boxes.count);
    this.edges.clear();
    this.axisLines.clear();
    if (p) {
      for (const [box, color] of [[p.a, A_COLOR], [p.b, B_COLOR]] as const) {
        for (const [x, y] of obbEdges(boxAt(s.boxes, box))) {
          this.edges.push(x, y, color, 2.5);
        }
      }
      if (this.params.showAxis) {
        this.pushAxis(s, p, cam.eye);
      }
    }
    this.edges.draw(pass, this.edgeDraw.set({ mvp, eye, width: 1 }));
    this.axisLines.draw(pass, this.axisDraw.set({ mvp, eye, width: 1 }));
  }

  /** The pair's SAT axis through the pair's midpoint, with both boxes' projections on it. */
  private pushAxis(s: StepState, p: PairState, eye: V3): void {
    const L = normalize(satAxis(s.boxes, p.a, p.b, p.axis));
    const d = s.boxes.data;
    const ca = vec(d, p.a * 15);
    const cb = vec(d, p.b * 15);
    const m: V3 = [(ca[0] + cb[0]) / 2, (ca[1] + cb[1]) / 2, (ca[2] + cb[2]) / 2];
    const [pa, ra] = projection(s.boxes, p.a, L);
    const [pb, rb] = projection(s.boxes, p.b, L);
    const m0 = dot(m, L);
    // Points on the axis line by projection value, lifted off the line sideways per box.
    const side = normalize(cross(L, [eye[0] - m[0], eye[1] - m[1], eye[2] - m[2]]));
    const at = (v: number, lift: number): V3 => [
      m[0] + L[0] * (v - m0) + side[0] * lift, m[1] + L[1] * (v - m0) + side[1] * lift, m[2] + L[2] * (v - m0) + side[2] * lift,
    ];
    const lo = Math.min(pa - ra, pb - rb);
    const hi = Math.max(pa + ra, pb + rb);
    const pad = (hi - lo) * 0.8 + 2;
    this.axisLines.push(at(lo - pad, 0), at(hi + pad, 0), rgba(0.85, 0.85, 0.9), 2);
    const lift = (hi - lo) * 0.05 + 0.05;
    this.axisLines.push(at(pa - ra, lift), at(pa + ra, lift), A_COLOR, 5);
    this.axisLines.push(at(pb - rb, -lift), at(pb + rb, -lift), B_COLOR, 5);
    // Where each box's interval starts and ends on the axis: short ticks across it.
    for (const [v, c] of [[pa - ra, A_COLOR], [pa + ra, A_COLOR], [pb - rb, B_COLOR], [pb + rb, B_COLOR]] as const) {
      this.axisLines.push(at(v, 3 * lift), at(v, -3 * lift), c, 2);
    }
    // The gap (white) or the overlap (red) between the two intervals.
    const [first, second] = pa < pb ? [pa + ra, pb - rb] : [pb + rb, pa - ra];
    this.axisLines.push(at(first, 0), at(second, 0), first <= second ? rgba(1, 1, 1) : RED, 5);
  }

  afterSubmit(): void {}

  click(x: number, y: number): void {
    const set = this.set;
    const s = this.state;
    if (!set || !s) {
      return;
    }
    const cam = this.camera.matrices(this.ctx.canvas.clientWidth, this.ctx.canvas.clientHeight);
    const ray = rayFromScreen(x, y, cam.width, cam.height, cam.invViewProj);
    void this.ctx.gpu.closestHit(set, [ray]).then((h) => {
      const a = h.box[0]!;
      if (a >= 0 && this.state) {
        this.pair = [a, this.nearest(this.state.boxes, a)];
        this.dirty = true;
      }
    }, (e: unknown) => this.ctx.fail(e));
  }

  private info(): OverlapInfo {
    const s = this.state!;
    return {
      count: s.pairs.length / 2, faceOnlyCount: s.facePairs ? s.facePairs.length / 2 : null, t: s.t,
      size: s.boxes.count, seed: OVERLAP_SEED, checksum: boxChecksum(s.boxes), head: Array.from(s.pairs.subarray(0, 20)),
    };
  }

  /** Pauses at time `t`, steps there and resolves with that step's pair counts. */
  overlapAt(t: number): Promise<OverlapInfo> {
    this.params.paused = true;
    return new Promise((resolve) => {
      this.request = { t, resolve };
    });
  }

  overlapCount(): number {
    return this.state ? this.state.pairs.length / 2 : -1;
  }

  async verify(): Promise<VerifyReport> {
    const s = this.state;
    const set = this.set;
    if (!s || !set) {
      return nothingToVerify('no step yet');
    }
    const t0 = performance.now();
    const reports: Comparison[] = [comparePairLists({ a: s.boxes, origin: set.origin }, s.pairs, allPairsSweep(s.boxes))];
    if (s.facePairs) {
      reports.push(comparePairLists({ a: s.boxes, origin: set.origin, options: { faceOnly: true } }, s.facePairs, allPairsSweep(s.boxes, { faceOnly: true })));
    }
    if (s.pair) {
      const pairs = Uint32Array.of(s.pair.a, s.pair.b);
      reports.push(comparePairs({ a: s.boxes, pairs, origin: set.origin }, { count: 1, overlap: Uint8Array.of(s.pair.overlap ? 1 : 0), gap: Float32Array.of(s.pair.gap), axis: Uint8Array.of(s.pair.axis) }));
    }
    const sum = (k: 'total' | 'agree' | 'ambiguous' | 'mismatch'): number => reports.reduce((acc, r) => acc + r[k], 0);
    return {
      what: `all pairs of ${fmtInt(s.boxes.count)} boxes at t = ${s.t.toFixed(2)} s (${fmtInt(s.pairs.length / 2)} in contact)` +
        `${s.facePairs ? ', the face-only list' : ''}${s.pair ? ' and the selected pair' : ''} vs the float64 reference`,
      total: sum('total'), agree: sum('agree'), ambiguous: sum('ambiguous'), mismatch: sum('mismatch'),
      ms: performance.now() - t0, detail: reports.map((r) => formatComparison(r)).join('\n'),
    };
  }

  stats(): StatLine[] {
    const s = this.state;
    const lines: StatLine[] = [
      { label: 'scene', value: `${fmtInt(this.set?.count ?? 0)} tumbling boxes (seed ${OVERLAP_SEED})` },
      { label: `allPairs (${this.pairsPath}, wall)`, value: `${fmtMs(this.pairsMs.value)} (BoxSet.update ${fmtMs(this.updateMs.value)})` },
    ];
    if (!s) {
      return lines;
    }
    lines.push({ label: 'in contact', value: `${fmtInt(s.pairs.length / 2)} pairs, ${fmtInt(s.touching)} boxes (red)`, tone: 'bad' });
    if (s.facePairs) {
      lines.push({ label: 'face-axes-only', value: `${fmtInt(s.facePairs.length / 2)} pairs in ${fmtMs(this.faceMs.value)}: ${fmtInt(s.falseContacts)} false contacts (orange)`, tone: 'warn' });
    }
    const p = s.pair;
    if (p) {
      const axis = SAT_AXIS_NAMES[p.axis] ?? '?';
      lines.push({
        label: `pair ${p.a} / ${p.b}`,
        value: p.overlap ? `in contact: least penetration ${(-p.gap).toFixed(3)} m along ${axis}` : `apart: gap ${p.gap.toFixed(3)} m along ${axis} (separating axis)`,
        tone: p.overlap ? 'bad' : 'ok',
      });
    }
    lines.push({ label: 'time', value: `${s.t.toFixed(2)} s${this.params.paused ? ' (paused)' : ''}`, tone: 'dim' });
    return lines;
  }

  currentBoxes(): BoxArray | undefined {
    return this.state?.boxes;
  }

  sceneInfo(): SceneInfo {
    return { view: 'overlaps', size: this.set?.count ?? 0, seed: OVERLAP_SEED, checksum: this.state ? boxChecksum(this.state.boxes) : 0 };
  }
}
