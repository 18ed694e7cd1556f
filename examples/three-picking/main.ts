/**
 * webgpu-obb/three on a three.js scene: an InstancedMesh of 100,000 boxes (`?n=` to change),
 * picked under the mouse on the GPU (the picked instance turns amber), selected with a marquee
 * (shift + drag: the selected instances turn cyan), 1% of them moving every frame and brought up
 * to date with `sync()` (one scatter per frame). The library shares the WebGPURenderer's device.
 * `window.__example` is the hook test/gpu/threeExample.test.ts drives.
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
  let pending: [number, number] | undefined;
  let picking = false;
  const pickUnder = async (): Promise<void> => {
    while (pending) {
      const [x, y] = pending;
      pending = undefined;
      const t0 = performance.now();
      const [hit] = await boxes.pickAt(x, y, camera);
      pickMs = performance.now() - t0;
      const before = picked;
      picked = hit?.instanceId ?? -1;
      hook.picked = picked;
      paint(before);
      paint(picked);
    }
  };
  canvas.addEventListener('pointermove', (e) => {
    pending = [(e.clientX / innerWidth) * 2 - 1, 1 - (e.clientY / innerHeight) * 2];
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
    ready: false, count: COUNT, frames: 0, picked: -1, adapter: gpu.adapterName,
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
  // costs nothing).
  const frame = async (): Promise<void> => {
    if (!animate && !dirty) {
      requestAnimationFrame(() => void frame());
      return;
    }
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
    await renderer.renderAsync(scene, camera);
    hook.frames = ++frames;
    hud.textContent = `${COUNT.toLocaleString('en-US')} instances on ${gpu.adapterName}\n` +
      `pick: ${picked >= 0 ? `instance ${picked}` : 'nothing'} (${pickMs.toFixed(1)} ms)   sync: ${hook.lastSync?.moved ?? 0} moved (${syncMs.toFixed(1)} ms)\n` +
      `selected: ${selected.size} (shift + drag)`;
    requestAnimationFrame(() => void frame());
  };
  hook.ready = true;
  void frame();
}

function report(e: unknown): void {
  console.error(e);
  hud.textContent = `error: ${String(e)}`;
}

main().catch((e: unknown) => {
  hud.textContent = `error: ${String(e)}`;
  window.__example = {
    ready: false, count: 0, frames: 0, picked: -1, adapter: '', error: String(e),
    pickAt: async () => ({}), select: async () => ({ ids: [], reference: [] }), colourOf: () => 0, animate: () => undefined,
  };
});
