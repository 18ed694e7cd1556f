/**
 * webgpu-obb picking with plain WebGPU, no framework: a few thousand oriented boxes (`?n=` to
 * change) drawn by one small instanced render pipeline (./boxes.wgsl) straight from the BoxSet's
 * GPU buffer. Every frame that the mouse is over the canvas:
 *   mouse → `rayFromScreen` → `gpu.rays.encodeClosestHit` into the frame's own command encoder
 *   (through the set's BVH) → the render pass, in the same encoder, reads the hit buffer and
 *   draws the hit box amber (its entered face brighter).
 * Nothing is read back for that. A click reads the hit back once (copy into a staging buffer in
 * that frame's encoder, one `mapAsync`) and the HUD prints the box, t, face, normal and point.
 * Frames are drawn on demand (the mouse moved, the camera changed) with at most one frame of
 * GPU work in flight, so a slow GPU delays the picture but never queues picks behind it.
 * Drag to orbit, wheel to zoom. `window.__webgpuPicking` is the hook
 * test/gpu/webgpuExample.test.ts drives.
 */
import { FACE_NONE, ObbGpu, rayArrayFrom, rayFromScreen, type BoxInput, type RayArray } from 'webgpu-obb';
import { CHUNKS, HIT, HIT_FLAG_INSIDE, HIT_GEOMETRY, NO_BOX, RAY, linkShader, mapShaderLine, packRays } from 'webgpu-obb/advanced';
import { mulberry32 } from 'webgpu-obb/judge';
import shaderCode from './boxes.wgsl?raw';
import { OrbitCamera, invert, multiply, translation } from './camera.ts';

/** What a click read back (one `mapAsync`), with the ray it was cast along. */
export interface ClickPick {
  /** The clicked position in CSS pixels from the canvas's top-left corner. */
  readonly x: number;
  readonly y: number;
  /** The float64 ray as packed for the GPU: origin (3), unit direction (3), maxDistance. */
  readonly ray: number[];
  /** The box hit, −1 for none. */
  readonly box: number;
  /** Distance along the ray (float32 from the GPU); Infinity for a miss. */
  readonly t: number;
  /** FACE_POS_U (0) … FACE_NEG_W (5), FACE_NONE for a miss or a ray starting inside. */
  readonly face: number;
  readonly inside: boolean;
  /** World hit point (the GPU's, relative to the set's origin, plus the origin in float64). */
  readonly point: [number, number, number];
  /** Outward unit normal of the entered face (float32 from the GPU; zero for a miss or inside). */
  readonly normal: [number, number, number];
}

declare global {
  interface Window {
    __webgpuPicking?: {
      ready: boolean;
      error?: string;
      count: number;
      adapter: string;
      /** Frames submitted; frames that cast the mouse ray; clicks read back. */
      frames: number;
      casts: number;
      readbacks: number;
      /** No frame is pending or in flight (what is on the canvas is up to date). */
      idle: boolean;
      lastPick?: ClickPick;
      /** The float64 records of the boxes (BoxArray data: 15 numbers per box) and the set's origin. */
      boxes(): number[];
      origin: [number, number, number];
      /** The ray `rayFromScreen` gives at (x, y) for the current camera, as `ClickPick.ray`. */
      rayAt(x: number, y: number): number[];
    };
  }
}

const params = new URLSearchParams(location.search);
const COUNT = Number(params.get('n') ?? 4000);
const SEED = 33;
const BACKGROUND = { r: 14 / 255, g: 17 / 255, b: 22 / 255, a: 1 };
const FACE_NAMES = ['+u', '−u', '+v', '−v', '+w', '−w'];
const hud = document.getElementById('hud')!;
const canvas = document.getElementById('view') as HTMLCanvasElement;

/** A seeded cloud of rotated boxes in a cube of side `extent`. */
function makeBoxes(count: number, extent: number): BoxInput[] {
  const rnd = mulberry32(SEED);
  const s = (): number => (rnd() - 0.5) * extent;
  return Array.from({ length: count }, () => ({
    center: [s(), s(), s()],
    halfExtents: [0.25 + rnd(), 0.25 + rnd(), 0.25 + rnd()],
    rotation: [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5], // normalised by the library
  }));
}

async function main(): Promise<void> {
  // The application's own device; the library wraps it (the caller keeps ownership).
  const adapter = await navigator.gpu?.requestAdapter();
  if (!adapter) {
    throw new Error('WebGPU is not available in this browser');
  }
  const device = await adapter.requestDevice({ label: 'webgpu-picking' });
  void device.lost.then((info) => {
    hud.textContent = `the GPU device was lost: ${info.message}`;
  });
  const gpu = await ObbGpu.create({ device });
  const format = navigator.gpu.getPreferredCanvasFormat();
  const context = canvas.getContext('webgpu')!;
  context.configure({ device, format, alphaMode: 'opaque' });

  const extent = 2.2 * Math.cbrt(COUNT);
  const set = gpu.createBoxSet(makeBoxes(COUNT, extent), { label: 'example-boxes' });
  // The scene does not move: one tree, built now, walked by every pick.
  const tree = await gpu.bvhOf(set);
  const pickOptions = tree ? { tree } : {};

  // The pick's buffers, the application's own: one Ray in, one Hit and one HitGeometry out (the
  // render pass reads `hits`), and a staging buffer for the click's one readback.
  const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const rayBuffer = device.createBuffer({ label: 'pick:ray', size: RAY.SIZE, usage: STORAGE });
  const hits = device.createBuffer({ label: 'pick:hits', size: HIT.SIZE, usage: STORAGE });
  const geometry = device.createBuffer({ label: 'pick:geometry', size: HIT_GEOMETRY.SIZE, usage: STORAGE });
  const staging = device.createBuffer({ label: 'pick:staging', size: HIT.SIZE + HIT_GEOMETRY.SIZE, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const MISS = new Uint32Array([0, NO_BOX, FACE_NONE, 0]);
  device.queue.writeBuffer(hits, 0, MISS);

  // The render shader, after the library's struct declarations (Obb, Hit) and constants.
  const linked = linkShader('boxes', [CHUNKS.types, { file: 'boxes.wgsl', code: shaderCode }]);
  const module = device.createShaderModule({ label: linked.label, code: linked.code });
  for (const m of (await module.getCompilationInfo()).messages) {
    if (m.type === 'error') {
      const at = mapShaderLine(linked, m.lineNum);
      throw new Error(`${at.file}:${at.line}: ${m.message}`);
    }
  }
  const pipeline = await device.createRenderPipelineAsync({
    label: 'boxes', layout: 'auto',
    vertex: { module, entryPoint: 'vs' },
    fragment: { module, entryPoint: 'fs', targets: [{ format }] },
    primitive: { topology: 'triangle-list', cullMode: 'back' },
    depthStencil: { format: 'depth24plus', depthWriteEnabled: true, depthCompare: 'less' },
  });
  const uniform = device.createBuffer({ label: 'frame', size: 64, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  // set.buffer is the set's own GPU copy of the boxes (the library's Obb records). A set that
  // grows (update / set past its capacity) gets a new buffer: make the bind group again then.
  const bindGroup = device.createBindGroup({
    label: 'boxes', layout: pipeline.getBindGroupLayout(0),
    entries: [{ binding: 0, resource: { buffer: uniform } }, { binding: 1, resource: { buffer: set.buffer } }, { binding: 2, resource: { buffer: hits } }],
  });

  const camera = new OrbitCamera(1.9 * extent);
  let depth: GPUTexture | undefined;
  const resize = (): void => {
    const w = Math.max(1, canvas.clientWidth), h = Math.max(1, canvas.clientHeight);
    const dpr = devicePixelRatio;
    camera.width = w;
    camera.height = h;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr) || !depth) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
      depth?.destroy();
      depth = device.createTexture({ label: 'depth', size: [canvas.width, canvas.height], format: 'depth24plus', usage: GPUTextureUsage.RENDER_ATTACHMENT });
    }
  };

  // Input: the mouse position (hover pick every frame), a click waiting for its frame, a drag.
  let mouse: { x: number; y: number } | undefined;
  let click: { x: number; y: number } | undefined;
  let drag: { x: number; y: number; yaw: number; pitch: number; moved: boolean } | undefined;
  const at = (e: PointerEvent | WheelEvent): { x: number; y: number } => {
    const r = canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  canvas.addEventListener('pointerdown', (e) => {
    drag = { ...at(e), yaw: camera.yaw, pitch: camera.pitch, moved: false };
    canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener('pointermove', (e) => {
    mouse = at(e);
    if (drag && (e.buttons & 1) !== 0) {
      const dx = mouse.x - drag.x, dy = mouse.y - drag.y;
      drag.moved ||= Math.hypot(dx, dy) > 3;
      if (drag.moved) {
        camera.yaw = drag.yaw - dx * 0.006;
        camera.pitch = Math.max(-1.5, Math.min(1.5, drag.pitch + dy * 0.006));
      }
    }
    requestFrame();
  });
  canvas.addEventListener('pointerup', (e) => {
    if (drag && !drag.moved) {
      click = at(e);
    }
    drag = undefined;
    requestFrame();
  });
  canvas.addEventListener('pointerleave', () => {
    mouse = undefined;
    requestFrame();
  });
  canvas.addEventListener('wheel', (e) => {
    e.preventDefault();
    camera.distance *= Math.exp(e.deltaY * 0.001);
    requestFrame();
  }, { passive: false });
  addEventListener('resize', () => requestFrame());

  const hook: NonNullable<Window['__webgpuPicking']> = {
    ready: false, count: COUNT, adapter: gpu.adapterName, frames: 0, casts: 0, readbacks: 0, idle: false,
    origin: [set.origin[0], set.origin[1], set.origin[2]],
    boxes: () => Array.from(set.boxes.data),
    rayAt: (x, y) => Array.from(rayArrayFrom([rayFromScreen(x, y, camera.width, camera.height, invert(camera.viewProj))]).data),
  };
  window.__webgpuPicking = hook;

  let pickLine = 'pick: click a box';
  const showHud = (): void => {
    hud.textContent = `${COUNT.toLocaleString('en-US')} boxes on ${gpu.adapterName} · drag to orbit, wheel to zoom, click to pick\n` +
      `${pickLine}\n` +
      `frames ${hook.frames} · ray casts ${hook.casts} · readbacks ${hook.readbacks}`;
  };

  // The click's one readback: the frame copied its hit into `staging`; map, read, unmap.
  let mapping = false;
  const readClick = async (pos: { x: number; y: number }, ray: RayArray): Promise<void> => {
    mapping = true;
    let bytes: ArrayBuffer;
    try {
      await staging.mapAsync(GPUMapMode.READ);
      bytes = staging.getMappedRange().slice(0);
      staging.unmap();
    } finally {
      mapping = false;
    }
    const u = new Uint32Array(bytes);
    const f = new Float32Array(bytes);
    const g = HIT.SIZE / 4;
    const o = set.origin;
    const box = u[HIT.BOX / 4]! === NO_BOX ? -1 : u[HIT.BOX / 4]!;
    const p = g + HIT_GEOMETRY.POINT / 4, n = g + HIT_GEOMETRY.NORMAL / 4;
    const pick: ClickPick = {
      x: pos.x, y: pos.y, ray: Array.from(ray.data), box,
      t: box >= 0 ? f[HIT.T / 4]! : Infinity,
      face: u[HIT.FACE / 4]!, inside: (u[HIT.FLAGS / 4]! & HIT_FLAG_INSIDE) !== 0,
      point: [f[p]! + o[0], f[p + 1]! + o[1], f[p + 2]! + o[2]],
      normal: [f[n]!, f[n + 1]!, f[n + 2]!],
    };
    const v = (a: readonly number[], d: number): string => `(${a.map((x) => x.toFixed(d)).join(', ')})`;
    pickLine = box < 0 ? 'pick: nothing'
      : pick.inside ? `pick: box ${box} (the ray starts inside it, t = 0)`
        : `pick: box ${box} at t = ${pick.t.toFixed(4)}, face ${FACE_NAMES[pick.face] ?? '—'}, normal ${v(pick.normal, 4)}, point ${v(pick.point, 3)}`;
    hook.readbacks++;
    hook.lastPick = pick;
    showHud();
    if (click) {
      requestFrame(); // a click that came while this one was mapped
    }
  };

  // On demand, one frame in flight at most: a frame is drawn when something changed and the GPU
  // has finished the previous one.
  let dirty = true;
  let scheduled = false;
  let inFlight = false;
  function requestFrame(): void {
    dirty = true;
    hook.idle = false;
    if (!scheduled && !inFlight) {
      scheduled = true;
      requestAnimationFrame(() => void frame().catch(report));
    }
  }
  async function frame(): Promise<void> {
    scheduled = false;
    if (!dirty) {
      return;
    }
    dirty = false;
    inFlight = true;
    try {
      resize();
      const viewProj = camera.viewProj;
      const o = set.origin;
      // Positions on the GPU are relative to the set's floating origin: so is the draw.
      const mvp = multiply(viewProj, translation(o[0], o[1], o[2]));
      device.queue.writeBuffer(uniform, 0, Float32Array.from(mvp));

      const encoder = device.createCommandEncoder({ label: 'frame' });
      const clicked = mapping ? undefined : click;
      if (clicked) {
        click = undefined;
      }
      const cursor = clicked ?? mouse;
      let ray: RayArray | undefined;
      if (cursor) {
        // The pick, recorded into this frame's encoder: no submission of its own, no readback.
        ray = rayArrayFrom([rayFromScreen(cursor.x, cursor.y, camera.width, camera.height, invert(viewProj))]);
        device.queue.writeBuffer(rayBuffer, 0, packRays(ray, o));
        await gpu.rays.encodeClosestHit(encoder, set, rayBuffer, 1, hits, geometry, pickOptions);
        hook.casts++;
      } else {
        device.queue.writeBuffer(hits, 0, MISS);
      }
      if (clicked) {
        encoder.copyBufferToBuffer(hits, 0, staging, 0, HIT.SIZE);
        encoder.copyBufferToBuffer(geometry, 0, staging, HIT.SIZE, HIT_GEOMETRY.SIZE);
      }
      const pass = encoder.beginRenderPass({
        label: 'boxes',
        colorAttachments: [{ view: context.getCurrentTexture().createView(), clearValue: BACKGROUND, loadOp: 'clear', storeOp: 'store' }],
        depthStencilAttachment: { view: depth!.createView(), depthClearValue: 1, depthLoadOp: 'clear', depthStoreOp: 'discard' },
      });
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bindGroup);
      pass.draw(36, set.count); // reads hits[0]: the pick above, same encoder, no readback
      pass.end();
      device.queue.submit([encoder.finish()]);
      hook.frames++;
      showHud();
      if (clicked && ray) {
        readClick(clicked, ray).catch(report);
      }
      await device.queue.onSubmittedWorkDone();
    } finally {
      inFlight = false;
    }
    if (dirty) {
      requestFrame();
    } else {
      hook.idle = true;
    }
  }

  showHud();
  hook.ready = true;
  requestFrame();
}

function report(e: unknown): void {
  console.error(e);
  hud.textContent = `error: ${String(e)}`;
}

main().catch((e: unknown) => {
  report(e);
  window.__webgpuPicking = {
    ready: false, error: String(e), count: 0, adapter: '', frames: 0, casts: 0, readbacks: 0, idle: true,
    origin: [0, 0, 0], boxes: () => [], rayAt: () => [],
  };
});
