/**
 * webgpu-obb/three on a three.js scene: an InstancedMesh of 100,000 boxes (`?n=` to change),
 * picked under the mouse on the GPU (the picked instance turns amber), selected with a marquee
 * (shift + drag: the selected instances turn cyan), 1% of them moving every frame and brought up
 * to date with `sync()` (one scatter per frame). The library shares the WebGPURenderer's device.
 * At most two units of GPU work are in flight (MAX_FRAMES_IN_FLIGHT: frames, and the pick being
 * answered): a pick's readback waits behind what was submitted before it, so on a slow GPU an
 * unbounded queue would delay every pick by seconds. `window.__example` is the hook test/gpu/threeExample.test.ts drives.
 */
import { Color, DirectionalLight, HemisphereLight, InstancedMesh, Matrix4, MeshLambertNodeMaterial, PerspectiveCamera, Quaternion, Raycaster, Scene, Vector2, Vector3, BoxGeometry, WebGPURenderer } from 'three/webgpu';
import { mulberry32 } from 'webgpu-obb/judge';
import { ThreeBoxes, obbGpuFor, type NdcRect, type SyncReport } from 'webgpu-obb/three';
import { referenceSelect } from './verify.ts';

declare global {
  interface Window {
    __example?: {
      ready: boolean;
      count: number;
      /** Frames drawn (the scene is drawn when it changed: animating, or a colour changed). */
      frames: number;
      /** Frames submitted whose GPU work (sync and render) has not finished yet. */
      inFlight: number;
      /** The most frames in flight at once since the last resetStats(). */
      maxInFlight: number;
      /** Pointer picks answered since the last resetStats() (the last 100): frames submitted while each was waiting, ms, the instance. */
      pickLog: { frames: number; ms: number; id: number }[];
      /** The last finished frame: ms in sync(), in render() (JS), and from its last submit to the GPU finishing it. */
      lastFrame?: { sync: number; render: number; gpu: number };
      resetStats(): void;
      /** Our pick and three's Raycaster at one NDC point. */
      pickAt(x: number, y: number): Promise<{ ours?: { instanceId?: number; distance: number }; three?: { instanceId?: number; distance: number } }>;
      /** Marquee selection (as shift + drag does): the instances it coloured, and the float64 reference's. */
      select(rect: NdcRect): Promise<{ ids: number[]; reference: number[] }>;
      /** The instance under the mouse (-1: none), as the last pointer move picked it. */
      picked: number;
      /** The colour of instance i as three.js will draw it (hex). */
      colourOf(i: number): number;
      adapter: string;
      /** Stops the animation (so a test sees a still scene) or restarts it. */
      animate(on: boolean): void;
      lastSync?: SyncReport;
      error?: string;
    };
  }
}

const params = new URLSearchParams(location.search);
/**
 * Units of GPU work that may be unfinished when a frame is submitted: frames, and the pick in
 * flight (if any). A frame starts only once the queue has drained below this
 * (device.queue.onSubmittedWorkDone), so a pick waits behind at most one frame's work submitted
 * before it, on any adapter: two lets the CPU prepare one frame while the GPU draws the last.
 * The pick counts because its answer may also wait for work submitted after it (a browser can
 * report completions in batches: Chromium on SwiftShader answered a pick only after the frames
 * submitted behind it, at twice the latency).
 */
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
  const camera = new PerspectiveCamera(55, innerWidth / innerHeight, 0.5, 2000);

  const rnd = mulberry32(2026);
  const mesh = new InstancedMesh(new BoxGeometry(1, 1, 1), new MeshLambertNodeMaterial(), COUNT);
  const extent = 2.2 * Math.cbrt(COUNT);
  camera.position.set(1.15, 0.85, 1.35).multiplyScalar(extent);
  camera.lookAt(0, 0, 0);
  const m = new Matrix4();
  const q = new Quaternion();
  const place = (i: number): void => {
    q.set(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5, rnd() - 0.5).normalize();
    m.compose(new Vector3((rnd() - 0.5) * extent, (rnd() - 0.5) * extent, (rnd() - 0.5) * extent), q, new Vector3(0.5 + 2 * rnd(), 0.5 + 2 * rnd(), 0.5 + 2 * rnd()));
    mesh.setMatrixAt(i, m);
  };
  for (let i = 0; i < COUNT; i++) {
    place(i);
    mesh.setColorAt(i, new Color(0x5e81ac));
  }
  scene.add(mesh);
  scene.add(new HemisphereLight(0xdde6f0, 0x2e3440, 1.6));
  const sun = new DirectionalLight(0xffffff, 1.4);
  sun.position.set(1, 2, 1.5);
  scene.add(sun);
  scene.updateMatrixWorld(true);

  const gpu = await obbGpuFor(renderer);
  const boxes = await ThreeBoxes.create(gpu, [scene]);
  const BASE = 0x5e81ac, PICKED = 0xebcb8b, SELECTED = 0x88c0d0;
  let picked = -1;
  let selected = new Set<number>();
  let dirty = true;
  const colour = new Color();
  const paint = (i: number): void => {
    if (i >= 0) {
      mesh.setColorAt(i, colour.setHex(i === picked ? PICKED : selected.has(i) ? SELECTED : BASE));
      mesh.instanceColor!.needsUpdate = true;
      dirty = true;
    }
  };

  let pickMs = 0;
  let syncMs = 0;
  // One pick in flight at a time: pointer moves during a pick are folded into the next one.
  let pending: { x: number; y: number; frame: number; t: number } | undefined;
  let picking = false;
  const pickUnder = async (): Promise<void> => {
    while (pending) {
      const asked = pending;
      pending = undefined;
      const [hit] = await boxes.pickAt(asked.x, asked.y, camera);
      pickMs = performance.now() - asked.t;
      const before = picked;
      picked = hit?.instanceId ?? -1;
      hook.picked = picked;
      hook.pickLog.push({ frames: frames - asked.frame, ms: pickMs, id: picked });
      if (hook.pickLog.length > 100) {
        hook.pickLog.shift();
      }
      paint(before);
      paint(picked);
    }
  };
  canvas.addEventListener('pointermove', (e) => {
    pending = { x: (e.clientX / innerWidth) * 2 - 1, y: 1 - (e.clientY / innerHeight) * 2, frame: frames, t: performance.now() };
    if (!picking) {
      picking = true;
      pickUnder().catch(report).finally(() => {
        picking = false;
      });
    }
  });

  // Shift + drag: marquee selection.
  const box = document.getElementById('marquee')!;
  let start: [number, number] | undefined;
  canvas.addEventListener('pointerdown', (e) => {
    if (e.shiftKey) {
      start = [e.clientX, e.clientY];
    }
  });
  canvas.addEventListener('pointermove', (e) => {
    if (start) {
      Object.assign(box.style, { display: 'block', left: `${Math.min(start[0], e.clientX)}px`, top: `${Math.min(start[1], e.clientY)}px`, width: `${Math.abs(e.clientX - start[0])}px`, height: `${Math.abs(e.clientY - start[1])}px` });
    }
  });
  const ndc = (x: number, y: number): [number, number] => [(x / innerWidth) * 2 - 1, 1 - (y / innerHeight) * 2];
  const select = async (rect: NdcRect): Promise<number[]> => {
    const before = selected;
    const ids = (await boxes.select(rect, camera)).map((s) => s.instanceId ?? -1);
    selected = new Set(ids);
    for (const i of before) {
      paint(i);
    }
    for (const i of ids) {
      paint(i);
    }
    return ids;
  };
  canvas.addEventListener('pointerup', async (e) => {
    if (start && Math.abs(e.clientX - start[0]) > 3 && Math.abs(e.clientY - start[1]) > 3) {
      const [x0, y0] = ndc(start[0], start[1]);
      const [x1, y1] = ndc(e.clientX, e.clientY);
      await select({ x0, y0, x1, y1 }).catch(report);
    }
    start = undefined;
    box.style.display = 'none';
  });

  let animate = params.get('still') === null;
  let frames = 0;
  const hook: NonNullable<Window['__example']> = {
    ready: false, count: COUNT, frames: 0, inFlight: 0, maxInFlight: 0, pickLog: [], picked: -1, adapter: gpu.adapterName,
    resetStats() {
      hook.maxInFlight = inFlight;
      hook.pickLog = [];
    },
    async pickAt(x, y) {
      const [ours] = await boxes.pickAt(x, y, camera);
      const raycaster = new Raycaster();
      raycaster.setFromCamera(new Vector2(x, y), camera);
      const [three] = raycaster.intersectObject(mesh);
      return {
        ...(ours ? { ours: { ...(ours.instanceId === undefined ? {} : { instanceId: ours.instanceId }), distance: ours.distance } } : {}),
        ...(three ? { three: { ...(three.instanceId === undefined ? {} : { instanceId: three.instanceId }), distance: three.distance } } : {}),
      };
    },
    async select(rect) {
      const ids = await select(rect);
      return { ids, reference: referenceSelect(boxes, rect, camera) };
    },
    colourOf(i) {
      const c = new Color();
      mesh.getColorAt(i, c);
      return c.getHex();
    },
    animate(on) {
      animate = on;
      dirty = true;
    },
  };
  window.__example = hook;

  // Drawn on demand: every frame while animating, else once after a change (an editor at rest
  // costs nothing). A frame starts only while fewer than MAX_FRAMES_IN_FLIGHT frames and picks
  // are unfinished on the GPU; until then the animation waits (a slow GPU shows fewer frames, not
  // later picks).
  let inFlight = 0;
  let preparing = false;
  let renderMs = 0;
  const finished = (): void => {
    inFlight--;
    hook.inFlight = inFlight;
  };
  const draw = async (): Promise<void> => {
    try {
      dirty = false;
      if (animate) {
        // 1% of the instances wander; sync() sends only theirs (one scatter).
        for (let k = 0; k < Math.ceil(COUNT / 100); k++) {
          place(Math.floor(rnd() * COUNT));
        }
        mesh.instanceMatrix.needsUpdate = true;
        const t0 = performance.now();
        hook.lastSync = await boxes.sync();
        syncMs = performance.now() - t0;
      }
      // render(), not the deprecated renderAsync(): the renderer was initialised above.
      const r0 = performance.now();
      renderer.render(scene, camera);
      renderMs = performance.now() - r0;
      hook.frames = ++frames;
      hud.textContent = `${COUNT.toLocaleString('en-US')} instances on ${gpu.adapterName}\n` +
        `pick: ${picked >= 0 ? `instance ${picked}` : 'nothing'} (${pickMs.toFixed(1)} ms)   sync: ${hook.lastSync?.moved ?? 0} moved (${syncMs.toFixed(1)} ms)\n` +
        `selected: ${selected.size} (shift + drag)`;
    } finally {
      // This frame's work (its sync's scatter and the render) is everything submitted so far.
      const submitted = performance.now();
      const sync = animate ? syncMs : 0, render = renderMs;
      const done = (): void => {
        hook.lastFrame = { sync, render, gpu: performance.now() - submitted };
        finished();
      };
      gpu.ctx.device.queue.onSubmittedWorkDone().then(done, done);
      preparing = false;
    }
  };
  const frame = (): void => {
    requestAnimationFrame(frame);
    if (preparing || inFlight + (picking ? 1 : 0) >= MAX_FRAMES_IN_FLIGHT || (!animate && !dirty)) {
      return;
    }
    preparing = true;
    inFlight++;
    hook.inFlight = inFlight;
    hook.maxInFlight = Math.max(hook.maxInFlight, inFlight);
    draw().catch(report);
  };
  hook.ready = true;
  frame();
}

function report(e: unknown): void {
  console.error(e);
  hud.textContent = `error: ${String(e)}`;
}

main().catch((e: unknown) => {
  hud.textContent = `error: ${String(e)}`;
  window.__example = {
    ready: false, count: 0, frames: 0, inFlight: 0, maxInFlight: 0, pickLog: [], resetStats: () => undefined, picked: -1, adapter: '', error: String(e),
    pickAt: async () => ({}), select: async () => ({ ids: [], reference: [] }), colourOf: () => 0, animate: () => undefined,
  };
});
