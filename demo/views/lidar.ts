/**
 * LiDAR: a car drives a loop through the city with a spinning sensor on its roof. Each sweep's
 * rays are generated on the GPU and answered by the sensor's method — raster by default (boxes
 * binned into the range image's tiles; no tree), or the BVH — (LidarSensor.encodeSweep into the
 * frame's encoder); the point cloud is drawn straight from LidarSensor.pointsBuffer bound as a
 * vertex buffer, coloured by distance from the sensor, and the rays of the current azimuth are
 * drawn as a beam. A non-blocking readback of the range image counts the returns and keeps the
 * sweep for "verify on CPU".
 */
import GUI from 'lil-gui';
import {
  FACE_NONE, boxArrayFrom, frustumPlanes, linearElevations,
  type BoxArray, type BoxSet, type FrustumCuller, type LidarDescription, type LidarSensor,
} from 'webgpu-obb';
import { NO_BOX, packBoxes } from 'webgpu-obb/advanced';
import { closestHitGrid, lidarRays } from 'webgpu-obb/reference';
import { compareClosestHits, formatComparison } from 'webgpu-obb/judge';
import { fmtInt, fmtMs, nothingToVerify, uploadCity, type DemoContext, type FrameContext, type LidarInfo, type SceneInfo, type StatLine, type VerifyReport, type View } from '../app.ts';
import { LIDAR_SEED, LIDAR_DEFAULTS } from '../config.ts';
import { OrbitCamera, relativeTo } from '../gfx/camera.ts';
import type { Drawable } from '../gfx/renderer.ts';
import { boxChecksum, CAR_BODY, carPose, rgba, sensorPose } from '../scenes.ts';


type Pose = ReturnType<typeof sensorPose>;

interface SweepMeta {
  s: number;
  pose: Pose;
  request: ((info: LidarInfo) => void) | undefined;
}

interface SweepResult {
  s: number;
  pose: Pose;
  desc: LidarDescription;
  range: Float32Array;
  box: Int32Array;
  count: number;
  overflowed: number;
}

export class LidarView implements View {
  readonly name = 'lidar' as const;
  readonly title = 'LiDAR';
  readonly camera = new OrbitCamera({ target: [0, -48, 1], distance: 80, yaw: -2.0, pitch: 1.2 }, 0.5, 4000);
  readonly folder: GUI;
  readonly params = {
    boxes: LIDAR_DEFAULTS.boxes as number, channels: LIDAR_DEFAULTS.channels as number, azimuths: LIDAR_DEFAULTS.azimuths as number,
    speed: 8, paused: false, showBoxes: true, beam: true,
  };
  ready = false;

  private set: BoxSet | undefined;
  private colors: GPUBuffer | undefined;
  private culler: FrustumCuller | undefined;
  private sensor: LidarSensor | undefined;
  private desc: LidarDescription | undefined;
  private staging: GPUBuffer | undefined;
  private readonly car: GPUBuffer;
  private readonly carColor: GPUBuffer;
  private readonly noHits: GPUBuffer;
  private readonly boxes: Drawable;
  private readonly carDraw: Drawable;
  private readonly points: Drawable;
  private readonly beam: Drawable;
  private s = 0;
  private spin = 0;
  private inFlight = false;
  private encodedThisFrame = false;
  private sweepPose: Pose | undefined;
  private mapping = false;
  private queued: SweepMeta | undefined;
  private request: { s: number; resolve: (info: LidarInfo) => void } | undefined;
  private last: SweepResult | undefined;
  private building: Promise<void> | undefined;
  private built = { boxes: 0, channels: 0, azimuths: 0 };
  private buildMs = 0;
  private dirty = true;
  private sweepsDone = 0;
  private sweepRate = 0;
  private rateStart = performance.now();

  constructor(private readonly ctx: DemoContext, gui: GUI) {
    const d = ctx.device;
    this.car = d.createBuffer({ label: 'demo:lidar:car', size: 48, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    this.carColor = d.createBuffer({ label: 'demo:lidar:car-color', size: 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    d.queue.writeBuffer(this.carColor, 0, Uint32Array.of(rgba(0.1, 0.85, 0.55)));
    this.noHits = d.createBuffer({ label: 'demo:lidar:no-hits', size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    d.queue.writeBuffer(this.noHits, 0, new Uint32Array([0, NO_BOX, FACE_NONE, 0]));
    const r = ctx.renderer;
    this.boxes = r.drawable('boxesCulled');
    this.camera.farFor = (distance) => distance + 400;
    this.carDraw = r.drawable('boxes');
    this.points = r.drawable('points');
    this.beam = r.drawable('beam');
    const rebuild = (): void => {
      void this.activate().catch((e: unknown) => ctx.fail(e));
    };
    this.folder = gui.addFolder('LiDAR');
    this.folder.add(this.params, 'boxes', 1000, 1_000_000, 1000).name('scene size (boxes)').onFinishChange(rebuild);
    this.folder.add(this.params, 'channels', [16, 32, 64, 128]).name('channels').onChange(rebuild);
    this.folder.add(this.params, 'azimuths', [256, 512, 1024, 2048]).name('azimuth steps').onChange(rebuild);
    const redraw = (): void => {
      this.dirty = true;
    };
    this.folder.add(this.params, 'speed', 0, 30, 0.5).name('car speed (m/s)');
    this.folder.add(this.params, 'paused').name('pause car').listen().onChange(redraw);
    this.folder.add(this.params, 'showBoxes').name('show boxes').onChange(redraw);
    this.folder.add(this.params, 'beam').name('show current beam').onChange(redraw);
  }

  async activate(): Promise<void> {
    while (this.building) {
      await this.building;
    }
    const p = this.params;
    if (this.set && this.sensor && this.built.boxes === p.boxes && this.built.channels === p.channels && this.built.azimuths === p.azimuths) {
      return;
    }
    this.building = this.build().finally(() => {
      this.building = undefined;
    });
    await this.building;
  }

  private async build(): Promise<void> {
    const { gpu, device } = this.ctx;
    const p = this.params;
    const t0 = performance.now();
    this.ready = false;
    // Let a sweep in flight and its readback finish before buffers change under them.
    while (this.inFlight || this.mapping) {
      await new Promise((r) => setTimeout(r, 10));
    }
    const n = Math.max(1000, Math.round(p.boxes));
    if (this.built.boxes !== n || !this.set) {
      // The raster sensor needs no tree; a bvh one gets it when it sweeps (ObbGpu.bvhOf).
      ({ set: this.set, colors: this.colors } = await uploadCity(this.ctx, n, LIDAR_SEED, 'lidar-city', { set: this.set, colors: this.colors }, false));
      this.built.boxes = n;
    }
    const C = Number(p.channels);
    const A = Number(p.azimuths);
    if (!this.sensor || this.built.channels !== C || this.built.azimuths !== A) {
      this.sensor?.destroy();
      this.staging?.destroy();
      this.desc = { elevations: linearElevations(C, LIDAR_DEFAULTS.lowDeg, LIDAR_DEFAULTS.highDeg), azimuthSteps: A, maxRange: LIDAR_DEFAULTS.maxRange };
      this.sensor = await gpu.createLidar(this.desc);
      this.staging = device.createBuffer({ label: 'demo:lidar:staging', size: 8 * C * A, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      this.built.channels = C;
      this.built.azimuths = A;
      this.sweepPose = undefined;
    }
    this.last = undefined;
    await device.queue.onSubmittedWorkDone();
    this.buildMs = performance.now() - t0;
    this.ready = true;
    this.dirty = true;
    this.ctx.note(`LiDAR ${C} × ${A} over ${fmtInt(n)} boxes ready in ${fmtMs(this.buildMs)}`);
  }

  deactivate(): void {}

  needsFrame(): boolean {
    // A new frame is worth drawing when a new sweep can start (the car moved or a sweep was asked for).
    const wantsSweep = !this.params.paused || this.request !== undefined;
    return this.dirty || this.sweepPose === undefined || (wantsSweep && !this.inFlight && !(this.request !== undefined && this.mapping));
  }

  async compute(f: FrameContext): Promise<void> {
    this.encodedThisFrame = false;
    this.dirty = false;
    const { set, sensor } = this;
    if (!this.ready || !set || !sensor || !this.staging) {
      return;
    }
    const tree = sensor.needsTree ? await this.ctx.gpu.bvhOf(set) : undefined;
    if (!this.params.paused) {
      this.s += this.params.speed * f.dt;
    }
    this.spin = (this.spin + f.dt * 1.5) % 1;
    if (!this.culler || this.culler.capacity < set.count) {
      this.culler?.destroy();
      this.culler = await this.ctx.gpu.createFrustumCuller(set.count);
    }
    await this.culler.encode(f.encoder, set, frustumPlanes(f.camera.viewProj), { indexCount: 36 });
    const req = this.request;
    if (this.inFlight || (req && this.mapping)) {
      return;
    }
    const s = req ? req.s : this.s;
    const pose = sensorPose(s);
    const writes = this.ctx.timer.writes('lidar');
    await sensor.encodeSweep(f.encoder, set, tree, pose, writes ? { timestampWrites: writes } : {});
    this.encodedThisFrame = true;
    this.sweepPose = pose;
    const car = carPose(s);
    const body = boxArrayFrom([{
      center: [car.position[0], car.position[1], CAR_BODY.z], halfExtents: [...CAR_BODY.halfExtents],
      rotation: [0, 0, Math.sin(car.yaw / 2), Math.cos(car.yaw / 2)],
    }]);
    this.ctx.device.queue.writeBuffer(this.car, 0, packBoxes(body, set.origin));
    this.camera.pose.target = [car.position[0], car.position[1], 1.5];
    if (!this.mapping) {
      const n = sensor.rayCount;
      f.encoder.copyBufferToBuffer(sensor.rangeBuffer, 0, this.staging, 0, 4 * n);
      f.encoder.copyBufferToBuffer(sensor.boxBuffer, 0, this.staging, 4 * n, 4 * n);
      this.queued = { s, pose, request: req?.resolve };
      if (req) {
        this.request = undefined;
      }
    }
  }

  render(f: FrameContext, pass: GPURenderPassEncoder): void {
    const { set, sensor } = this;
    if (!this.ready || !set || !sensor || !this.colors || !this.culler) {
      return;
    }
    const cam = f.camera;
    const o = set.origin;
    const { mvp, eye, fog } = relativeTo(cam, o, this.camera.far);
    if (this.params.showBoxes) {
      this.boxes.set({ mvp, eye, fog, color: [0.42, 0.44, 0.5, 1], sel: [NO_BOX, NO_BOX, 2, 0] })
        .bind([set.buffer, this.colors, this.noHits, this.culler.visibleBuffer])
        .drawIndirect(pass, this.ctx.renderer.boxIndices, this.culler.drawArgsBuffer);
    }
    if (!this.sweepPose) {
      return;
    }
    this.carDraw.set({ mvp, eye, fog, sel: [NO_BOX, NO_BOX, 0, 0] }).bind([this.car, this.carColor, this.noHits]).draw(pass, 36, 1);
    const p0: [number, number, number] = [this.sweepPose.origin[0] - o[0], this.sweepPose.origin[1] - o[1], this.sweepPose.origin[2] - o[2]];
    this.points.set({ mvp, eye, fog, width: this.params.channels >= 64 ? 1.6 : 2.2, scale: 50, p0 })
      .draw(pass, 6, sensor.rayCount, 0, sensor.pointsBuffer);
    if (this.params.beam) {
      const a = Math.floor(this.spin * sensor.azimuths) % sensor.azimuths;
      this.beam.set({ mvp, eye, fog, width: 1, color: [0.85, 0.95, 1, 0.45], sel: [sensor.azimuths, a, 0, 0], p0 })
        .bind([sensor.pointsBuffer]).draw(pass, 6, sensor.channels);
    }
  }

  afterSubmit(): void {
    if (this.encodedThisFrame) {
      this.inFlight = true;
      const t0 = performance.now();
      this.ctx.device.queue.onSubmittedWorkDone().then(() => {
        if (!this.ctx.timer.supported) {
          this.ctx.timer.record('lidar', performance.now() - t0);
        }
        this.sweepsDone++;
        const now = performance.now();
        if (now - this.rateStart > 1000) {
          this.sweepRate = (this.sweepsDone * 1000) / (now - this.rateStart);
          this.sweepsDone = 0;
          this.rateStart = now;
        }
      }, (e: unknown) => this.ctx.fail(e)).finally(() => {
        this.inFlight = false;
      });
    }
    const meta = this.queued;
    this.queued = undefined;
    const staging = this.staging;
    const desc = this.desc;
    if (!meta || this.mapping || !staging || !desc || !this.sensor) {
      return;
    }
    this.mapping = true;
    const n = this.sensor.rayCount;
    staging.mapAsync(GPUMapMode.READ).then(() => {
      const bytes = staging.getMappedRange().slice(0);
      staging.unmap();
      const range = new Float32Array(bytes, 0, n);
      const raw = new Uint32Array(bytes, 4 * n, n);
      const box = new Int32Array(n);
      let count = 0;
      let overflowed = 0;
      for (let r = 0; r < n; r++) {
        const b = raw[r]!;
        if (b === NO_BOX - 1) {
          overflowed++;
        }
        box[r] = b >= NO_BOX - 1 ? -1 : b;
        if (b < NO_BOX - 1) {
          count++;
        }
      }
      this.last = { s: meta.s, pose: meta.pose, desc, range, box, count, overflowed };
      meta.request?.(this.info());
    }, (e: unknown) => this.ctx.fail(e)).finally(() => {
      this.mapping = false;
    });
  }

  private info(): LidarInfo {
    const l = this.last!;
    return {
      count: l.count, s: l.s, pose: l.pose, channels: l.desc.elevations.length, azimuths: l.desc.azimuthSteps,
      maxRange: l.desc.maxRange, elevations: [...l.desc.elevations], size: this.set?.count ?? 0, seed: LIDAR_SEED,
      checksum: this.set ? boxChecksum(this.set.boxes) : 0,
    };
  }

  /** Pauses the car at arc length `s`, sweeps there and resolves with the read-back sweep. */
  sweepAt(s: number): Promise<LidarInfo> {
    this.params.paused = true;
    this.s = s;
    return new Promise((resolve) => {
      this.request = { s, resolve };
    });
  }

  pointCount(): number {
    return this.last?.count ?? -1;
  }

  async verify(): Promise<VerifyReport> {
    const l = this.last;
    const set = this.set;
    if (!l || !set) {
      return nothingToVerify('no sweep read back yet');
    }
    const t0 = performance.now();
    const rays = lidarRays(l.desc, l.pose);
    const n = rays.count;
    const ref = closestHitGrid(set.boxes, rays);
    const cmp = compareClosestHits(
      { boxes: set.boxes, rays, origin: set.origin },
      { count: n, box: l.box, t: l.range, face: new Uint8Array(n).fill(FACE_NONE), inside: new Uint8Array(n) },
      ref, { checkFaces: false },
    );
    let refCount = 0;
    for (let r = 0; r < n; r++) {
      refCount += ref.box[r]! >= 0 ? 1 : 0;
    }
    return {
      what: `LiDAR sweep of ${fmtInt(n)} rays: ${fmtInt(l.count)} returns on the GPU, ${fmtInt(refCount)} in the float64 reference`,
      total: cmp.total, agree: cmp.agree, ambiguous: cmp.ambiguous, mismatch: cmp.mismatch, ms: performance.now() - t0, detail: formatComparison(cmp),
    };
  }

  stats(): StatLine[] {
    const sensor = this.sensor;
    const ms = this.ctx.timer.ms('lidar');
    const n = sensor?.rayCount ?? 0;
    const lines: StatLine[] = [
      { label: 'scene', value: `${fmtInt(this.set?.count ?? 0)} boxes (city, seed ${LIDAR_SEED})` },
      { label: 'sensor', value: sensor ? `${sensor.channels} × ${fmtInt(sensor.azimuths)} = ${fmtInt(n)} rays, −25°…+15°, ${LIDAR_DEFAULTS.maxRange} m` : '…' },
      { label: `sweep (GPU, ${this.sensor?.method ?? '…'})`, value: fmtMs(ms) },
      { label: 'rays per second', value: ms ? `${(n / (ms / 1000) / 1e6).toFixed(2)} M` : '…', tone: 'ok' },
      { label: 'sweeps per second', value: this.params.paused ? '— (car paused)' : this.sweepRate.toFixed(1), tone: 'dim' },
    ];
    const l = this.last;
    lines.push({ label: 'returns', value: l ? `${fmtInt(l.count)} of ${fmtInt(l.box.length)} rays${l.overflowed ? ` (${l.overflowed} answered on the CPU!)` : ''}` : '…', ...(l?.overflowed ? { tone: 'bad' as const } : {}) });
    lines.push({ label: 'car', value: `${this.s.toFixed(1)} m along its loop${this.params.paused ? ' (paused)' : ''}`, tone: 'dim' });
    return lines;
  }

  currentBoxes(): BoxArray | undefined {
    return this.set?.boxes;
  }

  sceneInfo(): SceneInfo {
    return { view: 'lidar', size: this.set?.count ?? 0, seed: LIDAR_SEED, checksum: this.set ? boxChecksum(this.set.boxes) : 0 };
  }
}
