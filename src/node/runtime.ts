/**
 * The Node runtime (`webgpu-obb/node`): the same kernels, host classes and results as in the
 * browser, on a device from the `webgpu` npm package (Dawn for Node), for simulators, servers and
 * batch verification jobs that have no browser.
 *
 * `webgpu` is an optional dependency, loaded here with a dynamic import only when a Node device is
 * asked for; importing `webgpu-obb` (the main entry) never loads it.
 *
 * **Vulkan on Linux.** Dawn reaches the GPU through the Vulkan loader (`libvulkan.so.1`) and a
 * driver (an ICD: a JSON manifest naming the driver library). Before Dawn starts, this module
 * - keeps `VK_DRIVER_FILES` / `VK_ICD_FILENAMES` when either is set (the caller chose);
 * - otherwise (choice `auto`) lets the loader use the system drivers when `*.json` manifests exist
 *   in the standard `vulkan/icd.d` folders (a real GPU, or Mesa's lavapipe);
 * - otherwise (or with choice `swiftshader`) points both variables at the SwiftShader ICD that
 *   ships with Chromium or Chrome (`/usr/lib/chromium/vk_swiftshader_icd.json` on Debian), so a
 *   CPU-only machine with a browser installed also runs the kernels;
 * - uses the system loader when there is one, else preloads the loader bundled next to that
 *   browser's SwiftShader (`process.dlopen` with `RTLD_NODELETE`, so Dawn's own
 *   `dlopen("libvulkan.so.1")` finds it by its soname);
 * - and fails with a {@link NodeGpuUnavailableError} that says what is missing and how to get it.
 *
 * **Lifetime (the crash of issue #7).** The `GPU` object from Dawn's `create()` owns the Dawn
 * instance: its event processing and the driver's worker threads. If it is garbage-collected while
 * a device made from it is still working, the process dies (segfault, `pthread_mutex_lock`
 * assertion, "The futex facility returned an unexpected error code", `std::system_error`) or hangs.
 * A device does not keep its `GPU` alive, and nothing else does once the caller's local variable
 * goes out of scope, so "`ObbGpu.create({ gpu: create([]) })` then many dispatch + `mapAsync`
 * cycles" crashes as soon as a garbage collection happens to run. This module therefore creates one
 * `GPU` per process and keeps it in a module variable for the life of the process. With that
 * reference held, repeated dispatch + readback, many concurrent `mapAsync`, forced GCs, dropped
 * adapters, devices dropped without `destroy()`, and exit with work in flight were all stable
 * (docs/performance.md, "Dawn in Node: what crashed", has the numbers).
 *
 * @example
 * import { createNodeGpu } from 'webgpu-obb/node';
 * const gpu = await createNodeGpu();                   // Dawn; SwiftShader when there is no GPU
 * const set = gpu.createBoxSet(boxes);
 * const hits = await gpu.closestHit(set, rays);
 * gpu.destroy();
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants as osConstants, homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GpuContext } from '../runtime/context.ts';
import { ObbGpu, type ObbGpuOptions } from '../ObbGpu.ts';

/**
 * Which Vulkan driver Dawn should use on Linux (elsewhere Dawn uses Metal / D3D12 and this is
 * ignored):
 * - `auto` (default of the library): the system's drivers when any are installed, else Chromium's
 *   SwiftShader;
 * - `swiftshader`: Chromium's or Chrome's SwiftShader (CPU), the same answers on every machine;
 * - `system`: only the system's drivers (fails when none is installed);
 * - a path: that ICD manifest (`…/icd.d/nvidia_icd.json`, `…/vk_swiftshader_icd.json`).
 *
 * `VK_DRIVER_FILES` / `VK_ICD_FILENAMES`, when set, win over every choice.
 */
export type NodeDriverChoice = 'auto' | 'swiftshader' | 'system' | (string & {});

/** What is missing when the Node runtime cannot run (see {@link NodeGpuUnavailableError}). */
export type NodeGpuMissing = 'package' | 'loader' | 'driver' | 'adapter';

/**
 * The Node runtime cannot run here: the `webgpu` package, the Vulkan loader, a Vulkan driver or
 * an adapter is missing. The message names what was searched and how to install what is missing.
 *
 * @example
 * try { await createNodeGpu() } catch (e) {
 *   if (e instanceof NodeGpuUnavailableError) console.error(e.missing, e.message); // 'driver', 'No Vulkan driver …'
 * }
 */
export class NodeGpuUnavailableError extends Error {
  override readonly name = 'NodeGpuUnavailableError';
  constructor(
    readonly missing: NodeGpuMissing,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The parts of the `webgpu` package this module uses (pass the module itself as the `webgpu` option).
 *
 * @example
 * const gpu = await createNodeGpu({ webgpu: await import('webgpu') });
 */
export interface DawnModule {
  /** Creates Dawn's `GPU` (the `navigator.gpu` of Node) with Dawn's options (`backend=…`, toggles). */
  create(options: string[]): GPU;
  readonly globals: object;
}

/** Where the Vulkan driver and loader came from (Linux); `{ platform }` only elsewhere. */
export interface VulkanSetup {
  readonly platform: string;
  /**
   * - `env`: VK_DRIVER_FILES / VK_ICD_FILENAMES were set by the caller;
   * - `option`: the `driver` option named a manifest;
   * - `system`: the loader's own search of the standard icd.d folders;
   * - `swiftshader`: a browser's SwiftShader, set by this module;
   * - `native`: not Linux (Dawn uses the platform's API).
   */
  readonly driverSource: 'env' | 'option' | 'system' | 'swiftshader' | 'native';
  /** ICD manifests in use (or found, for `system`). */
  readonly drivers: readonly string[];
  /** The Vulkan loader: `libvulkan.so.1` (the system's) or the path of a bundled one. */
  readonly loader: string;
  /** One line for progress output and reports. */
  readonly summary: string;
}

/** Options of {@link createNodeGpu} and {@link createNodeContext}. */
export interface NodeGpuOptions extends Omit<ObbGpuOptions, 'gpu' | 'device'> {
  /**
   * Vulkan driver choice (Linux). Default: env `WEBGPU_OBB_ADAPTER` (`swiftshader` →
   * `'swiftshader'`, `default` → `'auto'`) when set, else `'auto'`. Decided once per process:
   * the first call that starts Dawn fixes it.
   */
  readonly driver?: NodeDriverChoice;
  /**
   * The `webgpu` package: the module itself, or a path to its folder or entry file, or a bare
   * specifier. Default: env `WEBGPU_OBB_WEBGPU` when set, else `import('webgpu')`, else Node's
   * CommonJS resolution from the working directory (which honours `NODE_PATH`).
   */
  readonly webgpu?: DawnModule | string;
  /** Options for Dawn's `create()` (toggles, `backend=…`, `adapter=…`; see the `webgpu` README). */
  readonly dawnOptions?: readonly string[];
}

/** What {@link findVulkan} looks at; tests pass their own. */
export interface VulkanProbe {
  /** `process.platform`. */
  readonly platform: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether `path` is a file. */
  readonly isFile: (path: string) => boolean;
  /** The names in directory `path`; none when it is not one. */
  readonly listDir: (path: string) => readonly string[];
  /** Whether `dlopen(nameOrPath)` succeeds; a by-name check searches the system's library paths. */
  readonly canLoad: (nameOrPath: string) => boolean;
  readonly home: string;
}

// glibc's (and musl's) RTLD_NODELETE; Node's os.constants.dlopen does not list it. It keeps a
// library loaded after Node's process.dlopen closes it again (it is not a Node addon, so Node
// reports "did not self-register" and calls dlclose).
const RTLD_NODELETE = 0x1000;

const LOADER_SONAME = 'libvulkan.so.1';
const SWIFTSHADER_ICD = 'vk_swiftshader_icd.json';

/** Folders of browsers that ship SwiftShader's ICD (and usually a Vulkan loader) next to them. */
const BROWSER_DIRS = [
  '/usr/lib/chromium',
  '/usr/lib/chromium-browser',
  '/usr/lib64/chromium-browser',
  '/usr/lib64/chromium',
  '/opt/google/chrome',
  '/opt/google/chrome-beta',
  '/opt/google/chrome-unstable',
  '/opt/chromium',
  '/opt/chromium.org/chromium',
  '/snap/chromium/current/usr/lib/chromium-browser',
];

/** Puppeteer cache layouts that hold a Linux Chrome build. */
const PUPPETEER_LAYOUTS: Readonly<Record<string, string>> = {
  chrome: 'chrome-linux64',
  'chrome-headless-shell': 'chrome-headless-shell-linux64',
};

const INSTALL_LOADER =
  'Install the Vulkan loader (Debian/Ubuntu: `apt-get install -y libvulkan1`), or install Chromium ' +
  '(`apt-get install -y chromium`), which bundles a loader and SwiftShader';

const INSTALL_DRIVER =
  'On a machine without a GPU, install Chromium (Debian/Ubuntu: `apt-get install -y chromium`): its ' +
  'SwiftShader (a CPU Vulkan driver) is found automatically. On a GPU machine, install the vendor\'s ' +
  'Vulkan driver. Or point VK_DRIVER_FILES at a driver\'s ICD manifest (a .json file)';

function defaultProbe(): VulkanProbe {
  return {
    platform: process.platform,
    env: process.env,
    isFile: (path) => {
      try {
        return statSync(path).isFile();
      } catch {
        return false;
      }
    },
    listDir: (path) => {
      try {
        return readdirSync(path);
      } catch {
        return [];
      }
    },
    canLoad: (nameOrPath) => {
      try {
        // Not a Node addon: success shows up as "did not self-register"; RTLD_NODELETE keeps the
        // library mapped, so a later dlopen by its soname (Dawn's) finds this very copy.
        process.dlopen({ exports: {} }, nameOrPath, osConstants.dlopen.RTLD_NOW | osConstants.dlopen.RTLD_GLOBAL | RTLD_NODELETE);
        return true;
      } catch (error) {
        return /did not self-register/.test(error instanceof Error ? error.message : String(error));
      }
    },
    home: homedir(),
  };
}

/** The standard folders the Vulkan loader searches for ICD manifests (Linux). */
function systemIcdDirs(env: VulkanProbe['env'], home: string): string[] {
  const config = (env['XDG_CONFIG_DIRS'] || '/etc/xdg').split(delimiter).filter(Boolean);
  const data = (env['XDG_DATA_DIRS'] || '/usr/local/share:/usr/share').split(delimiter).filter(Boolean);
  const dirs = [
    ...config.map((d) => join(d, 'vulkan/icd.d')),
    '/etc/vulkan/icd.d',
    '/usr/local/etc/vulkan/icd.d',
    ...data.map((d) => join(d, 'vulkan/icd.d')),
    '/usr/local/share/vulkan/icd.d',
    '/usr/share/vulkan/icd.d',
    join(env['XDG_DATA_HOME'] || join(home, '.local/share'), 'vulkan/icd.d'),
  ];
  return [...new Set(dirs)];
}

/** Browser folders to search for SwiftShader: CHROME_PATH's, the usual installs, Puppeteer's cache. */
function browserDirs(probe: VulkanProbe): string[] {
  const dirs: string[] = [];
  for (const name of ['CHROME_PATH', 'PUPPETEER_EXECUTABLE_PATH']) {
    const exe = probe.env[name];
    if (exe) {
      dirs.push(dirname(exe));
      try {
        dirs.push(dirname(realpathSync(exe)));
      } catch {
        // a missing file is findBrowser's business; here it only adds no folder
      }
    }
  }
  dirs.push(...BROWSER_DIRS);
  const cache = probe.env['PUPPETEER_CACHE_DIR'] || join(probe.home, '.cache', 'puppeteer');
  for (const [product, layout] of Object.entries(PUPPETEER_LAYOUTS)) {
    const builds = [...probe.listDir(join(cache, product))].sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
    dirs.push(...builds.map((b) => join(cache, product, b, layout)));
  }
  return [...new Set(dirs)];
}

function envDrivers(env: VulkanProbe['env']): { name: string; files: string[] } | undefined {
  for (const name of ['VK_DRIVER_FILES', 'VK_ICD_FILENAMES']) {
    const value = env[name];
    if (value) {
      return { name, files: value.split(delimiter).filter(Boolean) };
    }
  }
  return undefined;
}

/**
 * The driver choice from env `WEBGPU_OBB_ADAPTER` (as the browser runtime reads it), if set.
 *
 * @example
 * driverFromEnv({ WEBGPU_OBB_ADAPTER: 'default' }) // 'auto'
 * driverFromEnv({})                                // undefined
 */
export function driverFromEnv(env: VulkanProbe['env'] = process.env): NodeDriverChoice | undefined {
  const value = env['WEBGPU_OBB_ADAPTER']?.trim().toLowerCase();
  if (value === undefined || value === '') {
    return undefined;
  }
  if (value === 'swiftshader') {
    return 'swiftshader';
  }
  if (value === 'default') {
    return 'auto';
  }
  throw new Error(`WEBGPU_OBB_ADAPTER must be 'swiftshader' or 'default', not '${value}'.`);
}

/**
 * Decides which Vulkan driver and loader Dawn will use. Changes nothing but this: the default
 * probe checks a loader by loading it (pinned, so Dawn later finds that copy). Returns the
 * decision, the environment variables to set and the loader to preload; throws
 * {@link NodeGpuUnavailableError} (`loader` or `driver`) when something is missing.
 *
 * @example
 * const { setup, setEnv } = findVulkan('auto');
 * setup.summary // "SwiftShader /usr/lib/chromium/vk_swiftshader_icd.json, loader /usr/lib/chromium/libvulkan.so.1"
 */
export function findVulkan(
  choice: NodeDriverChoice = 'auto', probe: VulkanProbe = defaultProbe(),
): { setup: VulkanSetup; setEnv: Record<string, string>; preload: string | undefined } {
  const platform = probe.platform;
  if (platform !== 'linux') {
    return { setup: { platform, driverSource: 'native', drivers: [], loader: '', summary: `${platform} (Dawn's native backend)` }, setEnv: {}, preload: undefined };
  }
  const browsers = browserDirs(probe);

  // 1. The driver.
  let driverSource: VulkanSetup['driverSource'];
  let drivers: string[];
  const setEnv: Record<string, string> = {};
  const fromEnv = envDrivers(probe.env);
  if (fromEnv) {
    const missing = fromEnv.files.filter((f) => !probe.isFile(f));
    if (missing.length === fromEnv.files.length) {
      throw new NodeGpuUnavailableError('driver',
        `${fromEnv.name} names no existing ICD manifest (${missing.join(', ')}). Fix or unset it. ${INSTALL_DRIVER}.`);
    }
    driverSource = 'env';
    drivers = fromEnv.files.filter((f) => probe.isFile(f));
  } else if (choice !== 'auto' && choice !== 'swiftshader' && choice !== 'system') {
    const path = resolve(choice);
    if (!probe.isFile(path)) {
      throw new NodeGpuUnavailableError('driver', `the driver option names ${path}, which is not a file (an ICD manifest .json is expected). ${INSTALL_DRIVER}.`);
    }
    driverSource = 'option';
    drivers = [path];
  } else {
    const systemDirs = systemIcdDirs(probe.env, probe.home);
    const system = choice === 'swiftshader'
      ? []
      : systemDirs.flatMap((d) => probe.listDir(d).filter((f) => f.endsWith('.json')).sort().map((f) => join(d, f)));
    if (system.length > 0) {
      driverSource = 'system';
      drivers = system;
    } else if (choice === 'system') {
      throw new NodeGpuUnavailableError('driver',
        `No system Vulkan driver: no ICD manifest (*.json) in ${systemDirs.join(', ')}. ${INSTALL_DRIVER}.`);
    } else {
      const icd = browsers.map((d) => join(d, SWIFTSHADER_ICD)).find((p) => probe.isFile(p));
      if (!icd) {
        throw new NodeGpuUnavailableError('driver',
          'No Vulkan driver found: VK_DRIVER_FILES and VK_ICD_FILENAMES are unset, ' +
            (choice === 'swiftshader' ? '' : `no ICD manifest (*.json) is in ${systemDirs.join(', ')}, `) +
            `and no Chromium/Chrome SwiftShader (${SWIFTSHADER_ICD}) is in ${browsers.join(', ')}. ${INSTALL_DRIVER}.`);
      }
      driverSource = 'swiftshader';
      drivers = [icd];
    }
  }
  if (driverSource === 'option' || driverSource === 'swiftshader') {
    // New loaders read VK_DRIVER_FILES, old ones VK_ICD_FILENAMES; both name the same manifest.
    setEnv['VK_DRIVER_FILES'] = drivers.join(delimiter);
    setEnv['VK_ICD_FILENAMES'] = drivers.join(delimiter);
  }

  // 2. The loader: the system's, else one bundled with a browser (next to the ICD first).
  let loader: string;
  let preload: string | undefined;
  if (probe.canLoad(LOADER_SONAME)) {
    loader = LOADER_SONAME;
  } else {
    const nearDriver = drivers.map((d) => join(dirname(d), LOADER_SONAME));
    const candidates = [...new Set([...nearDriver, ...browsers.map((d) => join(d, LOADER_SONAME))])];
    const found = candidates.find((p) => probe.isFile(p) && probe.canLoad(p));
    if (!found) {
      throw new NodeGpuUnavailableError('loader',
        `Dawn needs the Vulkan loader ${LOADER_SONAME}: it is not in the system's library paths and no ` +
          `browser bundles one (searched ${candidates.join(', ')}). ${INSTALL_LOADER}.`);
    }
    loader = found;
    preload = found;
  }

  const what = driverSource === 'swiftshader' ? `SwiftShader ${drivers.join(', ')}`
    : driverSource === 'env' ? `${fromEnv?.name ?? 'env'}=${drivers.join(delimiter)}`
      : driverSource === 'system' ? `system drivers ${drivers.join(', ')}`
        : `driver ${drivers.join(', ')}`;
  return {
    setup: { platform, driverSource, drivers, loader, summary: `${what}, loader ${loader === LOADER_SONAME ? `${LOADER_SONAME} (system)` : loader}` },
    setEnv,
    preload,
  };
}

function isPathLike(spec: string): boolean {
  return isAbsolute(spec) || spec.startsWith('./') || spec.startsWith('../');
}

function asDawnModule(mod: unknown, from: string): DawnModule {
  const m = mod as Partial<DawnModule> | undefined;
  if (typeof m?.create !== 'function') {
    throw new NodeGpuUnavailableError('package', `${from} does not look like the \`webgpu\` package (no create()).`);
  }
  return m as DawnModule;
}

const NO_PACKAGE =
  'The Node runtime needs the optional dependency `webgpu` (Dawn for Node), which is not installed ' +
  'or has no build for this platform: run `npm install webgpu` (or set WEBGPU_OBB_WEBGPU to the ' +
  'package\'s folder)';

/** Loads the `webgpu` package (see {@link NodeGpuOptions.webgpu}). */
async function importDawn(spec: DawnModule | string | undefined): Promise<DawnModule> {
  if (typeof spec === 'object') {
    return asDawnModule(spec, 'the webgpu option');
  }
  const target = spec ?? process.env['WEBGPU_OBB_WEBGPU'];
  if (target) {
    try {
      // A folder resolves through its package.json "main", as require() does.
      const url = isPathLike(target) ? pathToFileURL(createRequire(import.meta.url).resolve(resolve(target))).href : target;
      return asDawnModule(await import(/* @vite-ignore */ url), target);
    } catch (error) {
      if (error instanceof NodeGpuUnavailableError) {
        throw error;
      }
      throw new NodeGpuUnavailableError('package', `${NO_PACKAGE}. Loading ${target} failed: ${(error as Error).message}`, { cause: error });
    }
  }
  try {
    return asDawnModule(await import('webgpu'), 'webgpu');
  } catch (first) {
    // ESM ignores NODE_PATH; CommonJS resolution from the working directory honours it.
    let path: string;
    try {
      path = createRequire(join(process.cwd(), 'noop.js')).resolve('webgpu');
    } catch {
      throw new NodeGpuUnavailableError('package', `${NO_PACKAGE}. (${(first as Error).message})`, { cause: first });
    }
    try {
      return asDawnModule(await import(/* @vite-ignore */ pathToFileURL(path).href), path);
    } catch (error) {
      throw new NodeGpuUnavailableError('package', `${NO_PACKAGE}. Loading ${path} failed: ${(error as Error).message}`, { cause: error });
    }
  }
}

/** The process's one Dawn instance; see the module comment ("Lifetime") for why it is never dropped. */
interface DawnRuntime {
  readonly gpu: GPU;
  readonly module: DawnModule;
  readonly vulkan: VulkanSetup;
  readonly choice: NodeDriverChoice;
}

let runtime: Promise<DawnRuntime> | undefined;
// Held strongly for the life of the process (module state is never collected): the Dawn instance
// must outlive every device made from it.
let keptAlive: DawnRuntime | undefined;

async function startDawn(choice: NodeDriverChoice, options: NodeGpuOptions): Promise<DawnRuntime> {
  // The environment must be right before Dawn creates its Vulkan instance (in create()).
  // findVulkan's default probe has already loaded (and pinned) a bundled loader when it chose one.
  const { setup, setEnv } = findVulkan(choice);
  const previous = Object.keys(setEnv).map((name) => [name, process.env[name]] as const);
  for (const [name, value] of Object.entries(setEnv)) {
    process.env[name] = value;
  }
  try {
    const module = await importDawn(options.webgpu);
    const gpu = module.create([...(options.dawnOptions ?? [])]);
    const started: DawnRuntime = { gpu, module, vulkan: setup, choice };
    keptAlive = started;
    return started;
  } catch (error) {
    // Leave the environment as it was, so a retry decides afresh (not as "set by the caller").
    for (const [name, value] of previous) {
      if (value === undefined) {
        delete process.env[name];
      } else {
        process.env[name] = value;
      }
    }
    throw error;
  }
}

/**
 * The process's Dawn `GPU` (created on first use, never released) and the Vulkan setup it runs
 * on. For callers who want raw WebGPU devices next to this library's. The driver choice is made
 * by the first call; a later call asking for a different one throws.
 *
 * @example
 * const { gpu, vulkan } = await nodeGpu();
 * console.error(vulkan.summary);
 * const adapter = await gpu.requestAdapter();
 */
export async function nodeGpu(options: Pick<NodeGpuOptions, 'driver' | 'webgpu' | 'dawnOptions'> = {}): Promise<{ gpu: GPU; vulkan: VulkanSetup; module: DawnModule }> {
  const choice = options.driver ?? driverFromEnv() ?? 'auto';
  if (!runtime) {
    runtime = startDawn(choice, options);
    // A failed start (no driver yet) may be retried after the caller fixes the machine.
    runtime.catch(() => {
      runtime = undefined;
    });
  }
  const r = await runtime;
  if (r.choice !== choice && options.driver !== undefined) {
    throw new Error(
      `webgpu-obb/node: Dawn already runs with driver '${r.choice}' (${r.vulkan.summary}); the Vulkan driver is chosen once per process, so '${choice}' cannot be used now.`,
    );
  }
  return { gpu: r.gpu, vulkan: r.vulkan, module: r.module };
}

/**
 * The Vulkan setup of the running Dawn instance, or undefined before the first {@link nodeGpu}.
 *
 * @example
 * const gpu = await createNodeGpu();
 * console.error(`vulkan: ${nodeVulkanSetup()?.summary}`); // "SwiftShader /usr/lib/chromium/…, loader …"
 */
export function nodeVulkanSetup(): VulkanSetup | undefined {
  return keptAlive?.vulkan;
}

async function gpuWithAdapter(options: NodeGpuOptions): Promise<GPU> {
  const { gpu, vulkan } = await nodeGpu(options);
  // Checked here (GpuContext asks again) so that "no adapter" is a typed error with the setup.
  const adapter = await gpu.requestAdapter(options.adapterOptions);
  if (!adapter) {
    throw new NodeGpuUnavailableError('adapter',
      `Dawn found no WebGPU adapter (Vulkan: ${vulkan.summary}). The driver may be too old for Dawn ` +
        '(Mesa\'s lavapipe before 23.x is), or it cannot start here; try WEBGPU_OBB_ADAPTER=swiftshader ' +
        'with Chromium installed, set VK_LOADER_DEBUG=error,driver to see why the loader rejected a driver, ' +
        `or point VK_DRIVER_FILES at another ICD manifest. ${INSTALL_DRIVER}.`);
  }
  return gpu;
}

/**
 * An {@link ObbGpu} on a Dawn device: the same kernels, host classes and results as in a
 * browser. Throws {@link NodeGpuUnavailableError} when the `webgpu` package, the Vulkan loader,
 * a driver or an adapter is missing.
 *
 * @example
 * import { createNodeGpu } from 'webgpu-obb/node';
 * const gpu = await createNodeGpu({ driver: 'swiftshader' });
 * console.log(gpu.adapterName); // "google swiftshader … (fallback)"
 * const pairs = await gpu.allPairs(gpu.createBoxSet(boxes));
 * gpu.destroy();
 */
export async function createNodeGpu(options: NodeGpuOptions = {}): Promise<ObbGpu> {
  const gpu = await gpuWithAdapter(options);
  // `driver`, `webgpu` and `dawnOptions` ride along unread: the context ignores unknown keys.
  const obb = await ObbGpu.create({ ...options, gpu });
  destroyAtExit(obb.ctx.device);
  return obb;
}

/** The devices made here, destroyed (if still alive) when the process exits. */
const atExit = new Set<WeakRef<GPUDevice>>();
let exitHooked = false;

/**
 * `process.exit()` with work in flight segfaulted in Dawn (webgpu 0.6.2, SwiftShader) in 1 of 80
 * runs of a script; with the device destroyed in the `exit` event first, which ends its work in
 * order, 150 of 150 ran clean (docs/node.md, "Stability of Dawn in Node").
 */
function destroyAtExit(device: GPUDevice): void {
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      for (const ref of atExit) {
        try {
          ref.deref()?.destroy();
        } catch {
          // Exiting anyway: a device that cannot be destroyed any more is gone already.
        }
      }
    });
  }
  for (const ref of atExit) {
    if (!ref.deref()) {
      atExit.delete(ref);
    }
  }
  atExit.add(new WeakRef(device));
}

/**
 * A {@link GpuContext} on a Dawn device, for callers who build on the lower layers (their own
 * encoders, `RayQueries`, `PairQueries`).
 *
 * @example
 * const ctx = await createNodeContext();
 * const rays = new RayQueries(ctx, new BufferPool(ctx), 64);
 */
export async function createNodeContext(options: NodeGpuOptions = {}): Promise<GpuContext> {
  const gpu = await gpuWithAdapter(options);
  const ctx = await GpuContext.create({ ...options, gpu });
  destroyAtExit(ctx.device);
  return ctx;
}
