/**
 * webgpu-obb/three on storage instancing: an InstancedMesh of 100,000 boxes (`?n=` to change)
 * whose matrices never exist on the CPU. A TSL compute node writes them every frame (each box
 * orbits and tumbles), three.js draws from that storage buffer, and ThreeGpuInstances derives the
 * boxes from the same buffer on the GPU; the mouse ray is cast in the frame's own encoder
 * (`refresh` + `encodeClosestHit`), and the hit is read back only for display (one read in flight
 * at most: a frame never waits for one). The picked instance turns amber through a TSL uniform.
 * At most two units of GPU work are in flight, as in examples/three-picking (frames, and the
 * read being answered). `window.__gpuInstances` is the hook test/gpu/threeGpuInstances.test.ts drives.
 */
import { BoxGeometry, Color, DirectionalLight, HemisphereLight, InstancedMesh, MeshLambertNodeMaterial, PerspectiveCamera, Raycaster, Scene, StorageInstancedBufferAttribute, Vector2, WebGPURenderer } from 'three/webgpu';
import { Fn, cos, float, hash, instanceIndex, mat4, mix, normalize, select, sin, storage, uniform, vec2, vec3, vec4 } from 'three/tsl';
import { FACE_NONE, type RayArray } from 'webgpu-obb';
import { HIT, HIT_FLAG_INSIDE, HIT_GEOMETRY, NO_BOX, RAY, packRays } from 'webgpu-obb/advanced';
import { closestHit } from 'webgpu-obb/reference';
import { compareClosestHits, compareDerivedBoxes, formatComparison } from 'webgpu-obb/judge';
import { ObbGpu } from 'webgpu-obb';
import { ThreeGpuInstances, obbGpuFor, type RendererLike } from 'webgpu-obb/three';

/** A comparison's totals, as the hook returns them. */
interface Totals { total: number; agree: number; ambiguous: number; mismatch: number }

/** One pick as read back: the ray it was cast along (float64, world) and the GPU's answer. */
interface Pick { x: number; y: number; frame: number; ray: RayArray; box: number; t: number; face: number; inside: boolean }

declare global {
  interface Window {
    __gpuInstances?: {
      ready: boolean;
      count: number;
      frames: number;
      adapter: string;
      /** The instance under the mouse as the last read-back pick found it (-1: none). */
      picked: number;
      /** The most frames in flight at once. */
      maxInFlight: number;
      /** Stops (or restarts) the animation: the compute node then writes the same matrices every frame. */
      animate(on: boolean): void;
      /**
       * Freezes the animation, casts the ray at NDC (x, y) in a frame, then reads the frame back
       * (ThreeGpuInstances.readBack) and judges, in float64, the GPU's boxes against the
       * matrices and the GPU's pick against the reference pick on the GPU's boxes.
       */
      check(x: number, y: number): Promise<{ gpuBox: number; refBox: number; t: number; refT: number; derived: Totals; pick: Totals; detail: string; flagged: number }>;
      /** Writes a marker into the GPUBuffer ThreeGpuInstances found and reads it back through three's public getArrayBufferAsync. */
      bufferCheck(): Promise<{ wrote: number[]; three: number[] }>;
      /** What ThreeGpuInstances.create says to bad arguments (name: error message, or 'accepted'). */
      refusals(): Promise<Record<string, string>>;
      error?: string;
    };
  }
}

const params = new URLSearchParams(location.search);
/** Frames and the pick read that may be unfinished on the GPU when a frame starts (examples/three-picking explains why 2). */
const MAX_FRAMES_IN_FLIGHT = 2;
const COUNT = Number(params.get('n') ?? 100_000);
const hud = document.getElementById('hud')!;
const canvas = document.getElementById('view') as HTMLCanvasElement;

async function main(): Promise<void> {
  const renderer = new WebGPURenderer({ canvas, antialias: false });
  renderer.setPixelRatio(1);
  renderer.setSize(innerWidth, innerHeight, false);
  await renderer.init();
  const scene = new Scene();
  scene.background = new Color(0x0e1116);
  const extent = 2.2 * Math.cbrt(COUNT);
  const camera = new PerspectiveCamera(55, innerWidth / innerHeight, 0.5, 8 * extent);
  camera.position.set(1.15, 0.85, 1.35).multiplyScalar(extent);
  camera.lookAt(0, 0, 0);

  // The instance matrices: a storage buffer three draws from and a compute node writes
  // (instancedArray(n, 'mat4') makes the same; its declared types stop at vec4).
  const attribute = new StorageInstancedBufferAttribute(new Float32Array(16 * COUNT), 16);
  const matrices = storage(attribute, 'mat4', COUNT);
  const time = uniform(0);
  const animateNode = Fn(() => {
    const i = instanceIndex;
    const h = (k: number) => hash(i.add(k * COUNT));
    const base = vec3(h(0), h(1), h(2)).sub(0.5).mul(extent);
    const phase = h(3).mul(6.2832);
    const orbit = vec3(sin(time.mul(0.7).add(phase)), cos(time.mul(0.5).add(phase)), cos(time.mul(0.6).add(phase))).mul(1.5);
    const p = base.add(orbit);
    const axis = normalize(vec3(h(4), h(5), h(6)).sub(0.5).add(vec3(0, 0.001, 0)));
    const angle = time.mul(h(7).add(0.2)).add(phase);
    // WGSL's sin and cos may err by 2^-11 (absolute): normalised together, c² + s² = 1 to float32,
    // else the matrix is sheared past the derivation's 1e-4 tolerance and the box is flagged.
    const cs = normalize(vec2(cos(angle), sin(angle)));
    const c = cs.x, s = cs.y, t = float(1).sub(c);
    const x = axis.x, y = axis.y, z = axis.z;
    const sx = h(8).mul(2).add(0.5), sy = h(9).mul(2).add(0.5), sz = h(10).mul(2).add(0.5);
    // Rodrigues' rotation about `axis`, columns scaled: rotation × diag(sx, sy, sz) (no shear).
    matrices.element(i).assign(mat4(
      vec4(t.mul(x).mul(x).add(c), t.mul(x).mul(y).add(s.mul(z)), t.mul(x).mul(z).sub(s.mul(y)), 0).mul(sx),
      vec4(t.mul(x).mul(y).sub(s.mul(z)), t.mul(y).mul(y).add(c), t.mul(y).mul(z).add(s.mul(x)), 0).mul(sy),
      vec4(t.mul(x).mul(z).add(s.mul(y)), t.mul(y).mul(z).sub(s.mul(x)), t.mul(z).mul(z).add(c), 0).mul(sz),
      vec4(p, 1),
    ));
  })().compute(COUNT);

  const picked = uniform(-1, 'int');
  const material = new MeshLambertNodeMaterial();
  material.colorNode = select(instanceIndex.toInt().equal(picked), vec3(0.92, 0.8, 0.55), mix(vec3(0.37, 0.51, 0.67), vec3(0.53, 0.75, 0.82), hash(instanceIndex)));
  const mesh = new InstancedMesh(new BoxGeometry(1, 1, 1), material, COUNT);
  mesh.instanceMatrix = attribute;
  mesh.frustumCulled = false; // three cannot bound instances it never sees
  scene.add(mesh);
  scene.add(new HemisphereLight(0xdde6f0, 0x2e3440, 1.6));
  const sun = new DirectionalLight(0xffffff, 1.4);
  sun.position.set(1, 2, 1.5);
  scene.add(sun);
  scene.updateMatrixWorld(true);

  // three makes the storage buffer on first use: run the compute node once, then take it.
  renderer.compute(animateNode);
  const gpu = await obbGpuFor(renderer);
  const device = gpu.ctx.device;
  const instances = ThreeGpuInstances.create(gpu, renderer, mesh);

  const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC;
  const rayBuffer = device.createBuffer({ label: 'example:ray', size: RAY.SIZE, usage: STORAGE });
  const hits = device.createBuffer({ label: 'example:hits', size: HIT.SIZE, usage: STORAGE });
  const geometry = device.createBuffer({ label: 'example:geometry', size: HIT_GEOMETRY.SIZE, usage: STORAGE });
  const staging = device.createBuffer({ label: 'example:staging', size: HIT.SIZE, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });

  let mouse: { x: number; y: number } | undefined;
  canvas.addEventListener('pointermove', (e) => {
    mouse = { x: (e.clientX / innerWidth) * 2 - 1, y: 1 - (e.clientY / innerHeight) * 2 };
    dirty = true;
  });
  canvas.addEventListener('pointerleave', () => {
    mouse = undefined;
    dirty = true;
  });

  let animate = params.get('still') === null;
  let dirty = true;
  let hold = false;
  let frames = 0;
  let inFlight = 0;
  let preparing = false;
  let reading = false;
  let last: Pick | undefined;
  let waiters: { after: number; x: number; y: number; resolve: (p: Pick) => void }[] = [];
  const raycaster = new Raycaster();
  const ndc = new Vector2();
  const t0 = performance.now();

  /** The ray under NDC (x, y), float64, as three's Raycaster aims it. */
  const rayAt = (x: number, y: number): RayArray => {
    raycaster.setFromCamera(ndc.set(x, y), camera);
    const { origin: o, direction: d } = raycaster.ray;
    return { count: 1, data: Float64Array.of(o.x, o.y, o.z, d.x, d.y, d.z, camera.far) };
  };

  const draw = async (): Promise<void> => {
    dirty = false;
    if (animate) {
      time.value = (performance.now() - t0) / 1000;
    }
    // three submits the compute at once; our encoder follows it on the queue, then the render.
    renderer.compute(animateNode);
    const enc = device.createCommandEncoder({ label: 'example:frame' });
    await instances.refresh(enc);
    let queued: Omit<Pick, 'box' | 't' | 'face' | 'inside'> | undefined;
    if (mouse) {
      const { x, y } = mouse;
      const ray = rayAt(x, y);
      device.queue.writeBuffer(rayBuffer, 0, packRays(ray, instances.set.origin));
      const tree = await gpu.bvhOf(instances.set);
      await gpu.rays.encodeClosestHit(enc, instances.set, rayBuffer, 1, hits, geometry, tree ? { tree } : {});
      if (!reading) {
        enc.copyBufferToBuffer(hits, 0, staging, 0, HIT.SIZE);
        queued = { x, y, frame: frames, ray };
      } else {
        dirty = true; // the read in flight keeps this frame's hit: cast it again next frame
      }
    }
    device.queue.submit([enc.finish()]);
    if (queued) {
      const cast = queued;
      reading = true;
      staging.mapAsync(GPUMapMode.READ).then(() => {
        const bytes = staging.getMappedRange().slice(0);
        staging.unmap();
        const u = new Uint32Array(bytes), f = new Float32Array(bytes);
        const box = u[1]! === NO_BOX ? -1 : u[1]!;
        last = { ...cast, box, t: f[0]!, face: u[2]!, inside: (u[3]! & HIT_FLAG_INSIDE) !== 0 };
        picked.value = box;
        hook.picked = box;
        const done = waiters.filter((w) => cast.frame >= w.after && w.x === cast.x && w.y === cast.y);
        waiters = waiters.filter((w) => !done.includes(w));
        done.forEach((w) => w.resolve(last!));
      }, report).finally(() => {
        reading = false;
      });
    }
    renderer.render(scene, camera);
    hook.frames = ++frames;
    hud.textContent = `${COUNT.toLocaleString('en-US')} instances animated by a TSL compute node on ${gpu.adapterName}\n` +
      `pick (GPU, in the frame's encoder): ${last && last.box >= 0 ? `instance ${last.box} at ${last.t.toFixed(2)}` : 'nothing'}`;
  };
  const frame = (): void => {
    requestAnimationFrame(frame);
    if (hold || preparing || inFlight + (reading ? 1 : 0) >= MAX_FRAMES_IN_FLIGHT || (!animate && !dirty)) {
      return;
    }
    preparing = true;
    inFlight++;
    hook.maxInFlight = Math.max(hook.maxInFlight, inFlight);
    draw().catch(report).finally(() => {
      const done = (): void => {
        inFlight--;
      };
      device.queue.onSubmittedWorkDone().then(done, done);
      preparing = false;
    });
  };

  const totals = (c: Totals): Totals => ({ total: c.total, agree: c.agree, ambiguous: c.ambiguous, mismatch: c.mismatch });
  const hook: NonNullable<Window['__gpuInstances']> = {
    ready: false, count: COUNT, frames: 0, adapter: gpu.adapterName, picked: -1, maxInFlight: 0,
    animate(on) {
      animate = on;
      dirty = true;
    },
    async check(x, y) {
      animate = false;
      mouse = { x, y };
      dirty = true;
      const p = await new Promise<Pick>((resolve) => waiters.push({ after: frames, x, y, resolve }));
      const back = await instances.readBack();
      const derived = compareDerivedBoxes(back.input, back.gpu);
      const boxes = back.gpu.boxes;
      const options = { boxMasks: back.gpu.masks };
      const ref = closestHit(boxes, p.ray, options);
      const impl = {
        count: 1, box: Int32Array.of(p.box), t: Float32Array.of(p.box >= 0 ? p.t : 0),
        face: Uint8Array.of(p.box >= 0 ? p.face : FACE_NONE), inside: Uint8Array.of(p.inside ? 1 : 0),
      };
      const cmp = compareClosestHits({ boxes, rays: p.ray, origin: back.origin, options }, impl, ref);
      return {
        gpuBox: p.box, refBox: ref.box[0]!, t: p.t, refT: ref.t[0]!,
        derived: totals(derived), pick: totals(cmp), detail: `${back.bad.slice(0, 5).map((b) => `${b.index}: ${b.reasons.join(', ')}`).join('; ')}\n${formatComparison(derived)}\n${formatComparison(cmp)}`, flagged: back.bad.length,
      };
    },
    async bufferCheck() {
      hold = true;
      try {
        await device.queue.onSubmittedWorkDone();
        const wrote = [1234.5, -6.25, 42, 7];
        device.queue.writeBuffer(instances.set.source.buffer, 0, Float32Array.from(wrote));
        const three = new Float32Array(await renderer.getArrayBufferAsync(mesh.instanceMatrix), 0, 4);
        return { wrote, three: Array.from(three) };
      } finally {
        hold = false;
        dirty = true;
      }
    },
    async refusals() {
      const outcome = (make: () => ThreeGpuInstances): string => {
        try {
          make().destroy();
          return 'accepted';
        } catch (e) {
          return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        }
      };
      const plain = new InstancedMesh(mesh.geometry, material, 4);
      const unused = new InstancedMesh(mesh.geometry, material, 4);
      unused.instanceMatrix = new StorageInstancedBufferAttribute(new Float32Array(64), 16);
      const moved = new InstancedMesh(mesh.geometry, material, COUNT);
      moved.instanceMatrix = attribute;
      moved.position.x = 1;
      moved.updateMatrixWorld();
      const other = await ObbGpu.create({ label: 'other-device' });
      try {
        return {
          ok: outcome(() => ThreeGpuInstances.create(gpu, renderer, mesh)),
          plain: outcome(() => ThreeGpuInstances.create(gpu, renderer, plain)),
          unused: outcome(() => ThreeGpuInstances.create(gpu, renderer, unused)),
          moved: outcome(() => ThreeGpuInstances.create(gpu, renderer, moved)),
          otherDevice: outcome(() => ThreeGpuInstances.create(other, renderer, mesh)),
          webgl: outcome(() => ThreeGpuInstances.create(gpu, { backend: {} } as RendererLike, mesh)),
        };
      } finally {
        other.destroy();
      }
    },
  };
  window.__gpuInstances = hook;
  hook.ready = true;
  frame();
}

function report(e: unknown): void {
  console.error(e);
  hud.textContent = `error: ${String(e)}`;
}

main().catch((e: unknown) => {
  hud.textContent = `error: ${String(e)}`;
  window.__gpuInstances = {
    ready: false, count: 0, frames: 0, adapter: '', picked: -1, maxInFlight: 0, error: String(e),
    animate: () => undefined, check: () => Promise.reject(new Error(String(e))), bufferCheck: () => Promise.reject(new Error(String(e))),
    refusals: () => Promise.reject(new Error(String(e))),
  };
});
