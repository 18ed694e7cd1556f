/**
 * The demo page: one WebGPU canvas, a lil-gui control panel, a stats panel, and four views
 * (picking, LiDAR, overlaps, GPU instances). Each frame: the view records its compute work (GPU
 * ray pick, LiDAR sweep, animation and derivation) into the frame's encoder, then its draws,
 * and the frame is submitted at once; readbacks for the panel are started after the submit and
 * never awaited by a frame.
 * `window.__demo` is the hook test/gpu/demo.test.ts drives.
 */
import GUI from 'lil-gui';
import { DeviceLostError, ObbGpu } from 'webgpu-obb';
import { VIEW_NAMES, fmtMs, type DemoContext, type DemoHook, type FrameContext, type LidarInfo, type OverlapInfo, type PickInfo, type StatLine, type VerifyReport, type View, type ViewName } from './app.ts';
import { attachOrbitControls } from './gfx/camera.ts';
import { Renderer } from './gfx/renderer.ts';
import { GpuTimer } from './gfx/timer.ts';
import { PickingView } from './views/picking.ts';
import { LidarView } from './views/lidar.ts';
import { OverlapsView } from './views/overlaps.ts';
import { InstancesView } from './views/instances.ts';

const canvas = document.getElementById('view') as HTMLCanvasElement;
const statsEl = document.getElementById('stats') as HTMLDivElement;
const helpEl = document.getElementById('help') as HTMLDivElement;
const messageEl = document.getElementById('message') as HTMLDivElement;

const HELP: Record<ViewName, string> = {
  picking: 'Move the mouse: each frame casts the mouse ray on the GPU through the BVH; the picked box turns amber, its entered face is outlined (cyan), the hit point (white) and normal (magenta) are drawn from the hit buffers directly. Drag: orbit · right-drag or shift-drag: pan · wheel: zoom.',
  lidar: 'A car (green) drives a loop through the city with a spinning LiDAR on its roof. Points are this sweep\'s returns, straight from the GPU buffer, red near → blue far; faint lines: the rays at the current azimuth. Drag to orbit around the car.',
  instances: 'Boxes whose matrices only exist on the GPU: a compute pass animates them, the library derives their boxes from that buffer and refits the tree, the mouse ray is picked (amber) and all pairs found (red: in contact), every frame, in one encoder. The panel shows each phase\'s GPU time. "verify on CPU" reads a frame back and judges it in float64. Drag: orbit · wheel: zoom.',
  overlaps: 'Red: boxes in contact (all pairs on the GPU, every step). Orange: false contacts of the face-axes-only test. Yellow/cyan: the selected pair and its SAT axis with both projections (white = gap, red = overlap). Click a box to select it and its nearest neighbour.',
};

const errors: string[] = [];
const frameWaiters: { frame: number; resolve: () => void }[] = [];
const unavailable = (): never => {
  throw new Error(hook.error ?? 'the demo is not ready yet');
};

const hook: DemoHook = {
  ready: false,
  error: null,
  errors,
  frames: 0,
  adapter: '',
  view: unavailable,
  setView: unavailable,
  waitFrames: unavailable,
  setPaused: unavailable,
  camera: unavailable,
  scene: unavailable,
  sceneBoxes: unavailable,
  lastPick: unavailable,
  pickAt: unavailable,
  lidarSweep: unavailable,
  lidarPointCount: unavailable,
  overlapAt: unavailable,
  overlapCount: unavailable,
  instances: unavailable,
  verify: unavailable,
};
window.__demo = hook;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

/** Set once the page says that WebGPU cannot render here: later errors (the same loss, seen again) do not replace it. */
let renderingMessageShown = false;

function showMessage(title: string, html: string): void {
  if (renderingMessageShown) {
    return;
  }
  messageEl.hidden = false;
  messageEl.innerHTML = `<div><h2>${escapeHtml(title)}</h2>${html}</div>`;
}

const NO_WEBGPU_HELP = `
<p>This demo runs its collision queries and its rendering on WebGPU. What to do:</p>
<ul>
  <li>Use a browser with WebGPU: Chrome or Edge 113+ (Windows, macOS, ChromeOS, Android), Safari 26+,
    Firefox 141+ on Windows. On Linux, Chrome enables it on some GPUs only: turn on
    <code>chrome://flags/#enable-unsafe-webgpu</code> (and <code>#enable-vulkan</code>), then check <code>chrome://gpu</code>.</li>
  <li>Open the page that <code>npm run demo</code> prints (<code>http://localhost:…</code>): WebGPU needs a secure context
    (https or localhost), not a file or a LAN address over http.</li>
  <li>No GPU at all? Chromium runs WebGPU on the CPU (SwiftShader), slowly:
    <code>chromium --enable-unsafe-webgpu --use-webgpu-adapter=swiftshader --enable-features=Vulkan --use-angle=swiftshader --use-vulkan=swiftshader</code>.</li>
</ul>`;

/**
 * The flags Chromium needs for a WebGPU canvas where it runs WebGPU without a GPU driver of its
 * own (headless, SwiftShader; docs/design.md, "Tooling facts"). Without the last three, compute
 * works but the page loses its WebGPU instance, and its device, once the canvas is configured.
 */
const RENDERING_FLAGS = ['--enable-unsafe-webgpu', '--enable-features=Vulkan', '--use-angle=swiftshader', '--use-vulkan=swiftshader'] as const;

/**
 * Says that WebGPU computes here but cannot draw to the canvas, and names the browser flags that
 * are missing; `detail` is what the browser reported. The page stops there.
 */
function showRenderingFlagsMissing(detail: string): void {
  if (renderingMessageShown) {
    return;
  }
  hook.error = `WebGPU cannot render to the canvas (start Chromium with ${RENDERING_FLAGS.join(' ')}): ${detail}`;
  showMessage('WebGPU cannot draw to this page\'s canvas', `
<p>WebGPU started, but the canvas could not render with it: ${escapeHtml(detail)}</p>
<p>Chromium does this when it runs WebGPU without the flags a WebGPU canvas needs (headless, or on
the CPU through SwiftShader). Start it with these flags:</p>
<p><code>${RENDERING_FLAGS.join(' ')}</code></p>
<p>On a machine without a GPU, add <code>--use-webgpu-adapter=swiftshader</code>. Then open the page
that <code>npm run demo</code> prints again.</p>`);
  renderingMessageShown = true;
}

/** Whether an error is the loss of the page's WebGPU device or instance (what a canvas without its flags causes). */
function isDeviceLoss(e: unknown): boolean {
  return e instanceof DeviceLostError || (e instanceof Error && /Instance reference no longer exists|device (was|is) lost|device was destroyed/i.test(e.message));
}

/**
 * Draws one cleared frame and waits for the GPU to finish it: where the canvas lacks the browser
 * flags it needs, the device is lost here, before any scene is built. Returns what went wrong, or
 * undefined when the canvas works.
 */
async function checkCanvas(device: GPUDevice, renderer: Renderer): Promise<string | undefined> {
  const lost = device.lost.then((info) => `the GPU device was lost (${info.reason}: ${info.message})`);
  try {
    renderer.resize();
    const encoder = device.createCommandEncoder({ label: 'demo:canvas-check' });
    renderer.beginPass(encoder).end();
    device.queue.submit([encoder.finish()]);
    const done = device.queue.onSubmittedWorkDone().then(() => undefined);
    const settled = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 250));
    return await Promise.race([lost, done.then(() => Promise.race([lost, settled]))]);
  } catch (e) {
    return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }
}

async function start(): Promise<void> {
  if (!window.isSecureContext) {
    hook.error = 'not a secure context';
    showMessage('WebGPU needs a secure context', `<p>This page was served from <code>${escapeHtml(location.origin)}</code>, which is not https or localhost, so the browser hides WebGPU.</p>${NO_WEBGPU_HELP}`);
    return;
  }
  if (!('gpu' in navigator) || !navigator.gpu) {
    hook.error = 'no navigator.gpu';
    showMessage('WebGPU is not available in this browser', NO_WEBGPU_HELP);
    return;
  }
  let gpu: ObbGpu;
  try {
    gpu = await ObbGpu.create({ label: 'demo' });
  } catch (e) {
    hook.error = `no WebGPU device: ${(e as Error).message}`;
    showMessage('WebGPU has no usable adapter here', `<p>${escapeHtml((e as Error).message)}</p>${NO_WEBGPU_HELP}`);
    return;
  }
  const device = gpu.ctx.device;
  const fail = (e: unknown): void => {
    const text = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    errors.push(text);
    console.error(`webgpu-obb demo: ${text}`);
    note = `error: ${text}`;
  };
  device.addEventListener('uncapturederror', (event) => fail(`WebGPU: ${(event as GPUUncapturedErrorEvent).error.message}`));
  let stopped = false;
  void device.lost.then((info) => {
    stopped = true;
    if (!hook.ready) {
      // Lost while starting: the canvas without its flags (a loss after start is another story).
      showRenderingFlagsMissing(`the GPU device was lost while the page started (${info.reason}: ${info.message})`);
    } else if (info.reason !== 'destroyed') {
      hook.error = `device lost: ${info.message}`;
      showMessage('The GPU device was lost', `<p>${escapeHtml(info.message)}</p><p>Reload the page to start again.</p>`);
    }
  });

  let note = '';
  let noteAt = 0;
  let renderer: Renderer;
  try {
    renderer = await Renderer.create(device, canvas);
  } catch (e) {
    showRenderingFlagsMissing(e instanceof Error ? e.message : String(e));
    return;
  }
  const canvasProblem = await checkCanvas(device, renderer);
  if (canvasProblem !== undefined) {
    showRenderingFlagsMissing(canvasProblem);
    return;
  }
  const timer = new GpuTimer(device, ['pick', 'lidar', 'render', 'animate', 'derive', 'tree', 'pairs']);
  const ctx: DemoContext = {
    gpu, device, renderer, timer, canvas, fail,
    note(text) {
      note = text;
      noteAt = performance.now();
    },
  };

  const gui = new GUI({ title: 'webgpu-obb demo' });
  const controls = { view: 'picking' as ViewName, verify: () => void runVerify() };
  const viewController = gui.add(controls, 'view', { Picking: 'picking', LiDAR: 'lidar', Overlaps: 'overlaps', 'GPU instances': 'instances' }).name('view');
  gui.add(controls, 'verify').name('verify on CPU (float64)');
  const views: Record<ViewName, View> = {
    picking: new PickingView(ctx, gui),
    lidar: new LidarView(ctx, gui),
    overlaps: new OverlapsView(ctx, gui),
    instances: new InstancesView(ctx, gui),
  };
  const picking = views.picking as PickingView;
  const lidar = views.lidar as LidarView;
  const overlaps = views.overlaps as OverlapsView;
  const instances = views.instances as InstancesView;
  const verifyReports = new Map<ViewName, VerifyReport | 'running'>();

  // URL parameters: ?view=lidar&picking=1000000&aabbs=1&lidar=50000&channels=128&azimuths=2048&overlaps=10000&instances=1000000
  const query = new URLSearchParams(location.search);
  const num = (name: string): number | undefined => {
    const v = Number(query.get(name) ?? NaN);
    return Number.isFinite(v) && v > 0 ? v : undefined;
  };
  picking.params.boxes = num('picking') ?? picking.params.boxes;
  lidar.params.boxes = num('lidar') ?? lidar.params.boxes;
  lidar.params.channels = num('channels') ?? lidar.params.channels;
  lidar.params.azimuths = num('azimuths') ?? lidar.params.azimuths;
  overlaps.params.boxes = num('overlaps') ?? overlaps.params.boxes;
  instances.params.instances = num('instances') ?? instances.params.instances;
  picking.params.showAabbs = query.get('aabbs') === '1';
  gui.controllersRecursive().forEach((c) => c.updateDisplay());
  const initial = query.get('view');
  let view: View = views[VIEW_NAMES.includes(initial as ViewName) ? (initial as ViewName) : 'picking'];
  controls.view = view.name;
  viewController.updateDisplay();

  const setView = async (name: ViewName): Promise<void> => {
    if (view.name !== name) {
      view.deactivate();
      view = views[name];
      controls.view = name;
      viewController.updateDisplay();
    }
    for (const v of Object.values(views)) {
      v.folder.show(v === view);
    }
    helpEl.textContent = HELP[name];
    await view.activate();
  };
  viewController.onChange((name: ViewName) => {
    void setView(name).catch(fail);
  });

  async function runVerify(): Promise<VerifyReport> {
    const v = view;
    verifyReports.set(v.name, 'running');
    await new Promise((r) => setTimeout(r, 0));
    const report = await v.verify();
    verifyReports.set(v.name, report);
    console.info(`webgpu-obb demo: verify (${v.name}): ${report.what}: ${report.agree} agree, ${report.ambiguous} ambiguous, ${report.mismatch} mismatch\n${report.detail}`);
    return report;
  }

  // Input goes to the current view and its camera.
  attachOrbitControls(canvas, () => view.camera, (x, y) => view.pointerMove?.(x, y), () => view.pointerLeave?.(), (x, y) => view.click?.(x, y));

  // ---- Frame loop ----
  let busy = false;
  let last = performance.now();
  let fps = 0;
  let frameMs = 0;
  let frameStart = performance.now();
  let framesSince = 0;
  let lastKey = '';
  let lastFrameAt = 0;
  let forced = 0;
  const inFlight: Promise<unknown>[] = [];
  const loop = async (): Promise<void> => {
    if (busy || stopped) {
      return;
    }
    busy = true;
    try {
      // Frames on demand: only when the view or the camera changed (or a test waits for frames).
      const key = `${view.name}|${JSON.stringify(view.camera.pose)}|${canvas.clientWidth}x${canvas.clientHeight}|${view.ready}`;
      if (key === lastKey && !view.needsFrame() && forced === 0) {
        return;
      }
      lastKey = key;
      forced = Math.max(0, forced - 1);
      // At most two frames queued on the GPU: a slow adapter must not pile work up.
      while (inFlight.length >= 2) {
        await inFlight.shift();
      }
      renderer.resize();
      const t0 = performance.now();
      const dt = Math.min(0.1, (t0 - last) / 1000);
      last = t0;
      if (t0 - frameStart > 1000) {
        fps = (framesSince * 1000) / (t0 - frameStart);
        framesSince = 0;
        frameStart = t0;
      }
      framesSince++;
      lastFrameAt = t0;
      const encoder = device.createCommandEncoder({ label: 'demo:frame' });
      const camera = view.camera.matrices(Math.max(1, canvas.clientWidth), Math.max(1, canvas.clientHeight));
      const f: FrameContext = { encoder, camera, dt, frame: hook.frames };
      const v = view;
      if (v.ready) {
        await v.compute(f);
      }
      const pass = renderer.beginPass(encoder, timer.writes('render'));
      if (v.ready) {
        v.render(f, pass);
      }
      pass.end();
      const afterTimer = timer.resolve(encoder);
      device.queue.submit([encoder.finish()]);
      v.afterSubmit();
      afterTimer();
      inFlight.push(device.queue.onSubmittedWorkDone());
      frameMs = frameMs * 0.9 + (performance.now() - t0) * 0.1;
      hook.frames++;
      for (const w of frameWaiters.filter((x) => hook.frames >= x.frame)) {
        frameWaiters.splice(frameWaiters.indexOf(w), 1);
        w.resolve();
      }
    } catch (e) {
      fail(e);
    } finally {
      busy = false;
      if (!stopped) {
        requestAnimationFrame(() => void loop());
      }
    }
  };

  // ---- Stats panel ----
  const row = (l: StatLine): string => `<tr><td>${escapeHtml(l.label)}</td><td class="${l.tone ?? ''}">${escapeHtml(l.value)}</td></tr>`;
  const renderStats = (): void => {
    const lines: StatLine[] = [
      { label: 'adapter', value: gpu.adapterName },
      {
        label: 'frames', tone: 'dim',
        value: `${performance.now() - lastFrameAt > 1500 ? 'idle (drawn on demand)' : `${fps.toFixed(1)} fps`} · render pass (GPU) ${fmtMs(timer.ms('render'))} · CPU ${fmtMs(frameMs)}`,
      },
      ...(timer.supported ? [] : [{ label: 'GPU timing', value: 'no timestamp-query: wall time', tone: 'warn' as const }]),
      ...view.stats(),
    ];
    let html = `<h1>${escapeHtml(view.title)} <small>· webgpu-obb</small></h1><table>${lines.map(row).join('')}</table>`;
    const rep = verifyReports.get(view.name);
    if (rep === 'running') {
      html += '<div class="verify dim">verifying on the CPU (float64)…</div>';
    } else if (rep) {
      const tone = rep.mismatch > 0 ? 'bad' : rep.total === 0 ? 'dim' : 'ok';
      html += `<div class="verify"><span class="${tone}">verify: ${rep.agree} agree · ${rep.ambiguous} ambiguous · ${rep.mismatch} mismatch</span>` +
        ` <span class="dim">(${fmtMs(rep.ms)})</span><br><span class="dim">${escapeHtml(rep.what)}</span></div>`;
    }
    if (note && performance.now() - noteAt < 8000) {
      html += `<div class="note">${escapeHtml(note)}</div>`;
    }
    if (!view.ready) {
      html += '<div class="note">building the scene…</div>';
    }
    statsEl.innerHTML = html;
  };
  setInterval(renderStats, 250);

  // ---- Test hook ----
  const waitFrames = (n: number): Promise<void> => {
    forced = Math.max(forced, n);
    return new Promise((resolve) => frameWaiters.push({ frame: hook.frames + n, resolve }));
  };
  Object.assign(hook, {
    adapter: gpu.adapterName,
    view: () => view.name,
    setView: async (name: ViewName) => {
      await setView(name);
      await waitFrames(2);
    },
    waitFrames,
    setPaused: (paused: boolean) => {
      lidar.params.paused = paused;
      overlaps.params.paused = paused;
      instances.params.paused = paused;
    },
    camera: () => {
      const m = view.camera.matrices(Math.max(1, canvas.clientWidth), Math.max(1, canvas.clientHeight));
      const r = canvas.getBoundingClientRect();
      return { invViewProj: Array.from(m.invViewProj), viewProj: Array.from(m.viewProj), width: m.width, height: m.height, left: r.left, top: r.top };
    },
    scene: () => view.sceneInfo(),
    sceneBoxes: () => {
      const b = view.currentBoxes();
      const bytes = b ? new Uint8Array(b.data.buffer, b.data.byteOffset, b.count * 15 * 8) : new Uint8Array(0);
      let text = '';
      for (let i = 0; i < bytes.length; i += 0x8000) {
        text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      }
      return btoa(text);
    },
    lastPick: (): PickInfo | null => picking.lastPick(),
    pickAt: (x: number, y: number): Promise<PickInfo> => picking.pickAt(x, y),
    lidarSweep: (s: number): Promise<LidarInfo> => lidar.sweepAt(s),
    lidarPointCount: () => lidar.pointCount(),
    overlapAt: (t: number): Promise<OverlapInfo> => overlaps.overlapAt(t),
    overlapCount: () => overlaps.overlapCount(),
    instances: () => instances.info(),
    verify: () => runVerify(),
  } satisfies Partial<DemoHook>);

  requestAnimationFrame(() => void loop());
  await setView(view.name);
  renderStats();
  hook.ready = true;
}

start().catch((e: unknown) => {
  if (renderingMessageShown) {
    return; // already explained: the canvas lacks its flags, and this is the same loss seen again
  }
  if (!hook.ready && isDeviceLoss(e)) {
    showRenderingFlagsMissing(e instanceof Error ? e.message : String(e));
    return;
  }
  hook.error = e instanceof Error ? e.message : String(e);
  console.error('webgpu-obb demo failed to start:', e);
  showMessage('The demo failed to start', `<p>${escapeHtml(hook.error)}</p>`);
});
