/**
 * Finding and launching a headless Chromium with WebGPU enabled (Node only).
 *
 * Used by the GPU tests (test/gpu/harness.ts), the benchmarks and the CLI. Puppeteer is an
 * optional peer dependency of the package, loaded only when a browser is launched
 * ({@link loadPuppeteer}: a PuppeteerMissingError says how to add it). It never downloads a
 * browser here; {@link findBrowser} locates one that is already installed and fails with a
 * message that says how to get one.
 *
 * Adapter choice: by default Chromium is told to use SwiftShader (`--use-webgpu-adapter=swiftshader`),
 * the CPU Vulkan implementation that ships with it, so every machine gives the same answers.
 * Set `adapter: 'default'` (or env `WEBGPU_OBB_ADAPTER=default`) to let Chromium pick the real GPU
 * through Vulkan when one is present.
 */
import { accessSync, constants as fsConstants, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, PuppeteerNode } from 'puppeteer';

/** Which WebGPU adapter Chromium should expose: SwiftShader (CPU), or its default (a real GPU). */
export type AdapterChoice = 'swiftshader' | 'default';

/** Options of {@link chromiumArgs}. */
export interface ChromiumArgsOptions {
  /** Also enable what a WebGPU canvas needs to appear in screenshots. */
  canvas?: boolean;
  /** Default: env `WEBGPU_OBB_ADAPTER` when it is `default` or `swiftshader`, else `'swiftshader'`. */
  adapter?: AdapterChoice;
}

/** Options of {@link launchBrowser}. */
export interface LaunchOptions extends ChromiumArgsOptions {
  /** Path to a Chromium/Chrome executable; otherwise {@link findBrowser} searches. */
  browser?: string;
  /** Extra command-line flags, appended after {@link chromiumArgs}. */
  extraArgs?: readonly string[];
  /** Milliseconds a single DevTools protocol call may take (default 10 minutes: SwiftShader is slow). */
  protocolTimeout?: number;
}

/** Puppeteer is not installed: the message says how to add it (the CLI exits 3 with it). */
export class PuppeteerMissingError extends Error {
  override readonly name = 'PuppeteerMissingError';
}

/**
 * Loads Puppeteer, an optional peer dependency: only the browser runtime (the CLI's GPU backend,
 * the tests and benchmarks) needs it.
 */
export async function loadPuppeteer(): Promise<PuppeteerNode> {
  try {
    return (await import('puppeteer')).default;
  } catch (error) {
    throw new PuppeteerMissingError(
      'the browser runtime needs Puppeteer, which is not installed: `npm install puppeteer` ' +
        '(with PUPPETEER_SKIP_DOWNLOAD=1 to use a Chromium already installed), or use `--runtime node` or `--backend cpu`',
      { cause: error },
    );
  }
}

/** A launched browser and the one way to shut it down (closes Chromium, removes its profile). */
export interface LaunchedBrowser {
  browser: Browser;
  /** The executable that was started. */
  executablePath: string;
  /** The flags it was started with (besides Puppeteer's defaults). */
  args: string[];
  /** Idempotent. */
  close(): Promise<void>;
}

const INSTALL_HINT =
  'Install one (Debian/Ubuntu: `apt-get install -y chromium`) or point CHROME_PATH at a ' +
  'Chromium/Chrome executable (PUPPETEER_EXECUTABLE_PATH works too).';

const SYSTEM_BROWSERS: Readonly<Record<string, readonly string[]>> = {
  linux: [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
  ],
  darwin: [
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Google Chrome Canary.app/Contents/MacOS/Google Chrome Canary',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    join(homedir(), 'Applications/Google Chrome.app/Contents/MacOS/Google Chrome'),
    join(homedir(), 'Applications/Chromium.app/Contents/MacOS/Chromium'),
  ],
};

/** Executable paths inside one Puppeteer cache build folder, per product, Linux then macOS. */
const CACHE_LAYOUTS: Readonly<Record<string, readonly string[]>> = {
  chrome: [
    'chrome-linux64/chrome',
    'chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
    'chrome-mac-x64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing',
  ],
  'chrome-headless-shell': [
    'chrome-headless-shell-linux64/chrome-headless-shell',
    'chrome-headless-shell-mac-arm64/chrome-headless-shell',
    'chrome-headless-shell-mac-x64/chrome-headless-shell',
  ],
};

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) {
      return false;
    }
    accessSync(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Browsers in Puppeteer's cache, full Chrome before headless shell, newest build first. */
function puppeteerCacheCandidates(): string[] {
  const cacheDir = process.env['PUPPETEER_CACHE_DIR'] || join(homedir(), '.cache', 'puppeteer');
  const found: string[] = [];
  for (const [product, layouts] of Object.entries(CACHE_LAYOUTS)) {
    let builds: string[];
    try {
      builds = readdirSync(join(cacheDir, product));
    } catch {
      continue;
    }
    // Folder names look like `linux-131.0.6778.85`; compare the numbers, not the characters.
    builds.sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
    for (const build of builds) {
      for (const layout of layouts) {
        found.push(join(cacheDir, product, build, layout));
      }
    }
  }
  return found;
}

/**
 * The path of a Chromium or Chrome executable to run WebGPU in.
 *
 * Order: `explicit`, env `CHROME_PATH`, env `PUPPETEER_EXECUTABLE_PATH`, Puppeteer's cache
 * (`PUPPETEER_CACHE_DIR` or `~/.cache/puppeteer`), then the system install (`/usr/bin/chromium`,
 * `/usr/bin/chromium-browser`, `/usr/bin/google-chrome[-stable]`, the macOS app bundles).
 * A path given explicitly or through an env variable must exist and be executable, or this throws
 * rather than silently falling back to another browser.
 *
 * @example
 * const chrome = findBrowser(); // '/usr/bin/chromium'
 * @throws Error when nothing is found; the message says how to install one.
 */
export function findBrowser(explicit?: string): string {
  const named: [string, string | undefined][] = [
    ['the browser option', explicit],
    ['CHROME_PATH', process.env['CHROME_PATH']],
    ['PUPPETEER_EXECUTABLE_PATH', process.env['PUPPETEER_EXECUTABLE_PATH']],
  ];
  for (const [source, path] of named) {
    if (path) {
      if (!isExecutableFile(path)) {
        throw new Error(`${source} names ${path}, which is not an executable file. ${INSTALL_HINT}`);
      }
      return path;
    }
  }
  const searched = [...puppeteerCacheCandidates(), ...(SYSTEM_BROWSERS[process.platform] ?? [])];
  for (const path of searched) {
    if (isExecutableFile(path)) {
      return path;
    }
  }
  throw new Error(
    `No Chromium or Chrome found (searched CHROME_PATH, PUPPETEER_EXECUTABLE_PATH, Puppeteer's cache, ` +
      `${(SYSTEM_BROWSERS[process.platform] ?? []).join(', ') || 'no system paths on this platform'}). ` +
      INSTALL_HINT,
  );
}

/** The adapter choice from env `WEBGPU_OBB_ADAPTER` (`swiftshader` | `default`), else SwiftShader. */
export function adapterFromEnv(): AdapterChoice {
  const value = process.env['WEBGPU_OBB_ADAPTER']?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'swiftshader') {
    return 'swiftshader';
  }
  if (value === 'default') {
    return 'default';
  }
  throw new Error(`WEBGPU_OBB_ADAPTER must be 'swiftshader' or 'default', not '${value}'.`);
}

/**
 * Chromium flags for headless WebGPU.
 *
 * - `swiftshader` (default): `--enable-unsafe-webgpu --use-webgpu-adapter=swiftshader` and the
 *   quiet-profile flags; with `canvas`, also Vulkan/ANGLE on SwiftShader so a WebGPU canvas shows
 *   up in screenshots (without them the captured canvas is blank).
 * - `default`: no adapter override; Vulkan is enabled and ANGLE runs on Vulkan so Dawn can reach a
 *   real GPU (the recipe Chrome's team gives for headless GPU testing on Linux).
 *
 * `--no-sandbox` is included because CI runs as root; `--disable-dev-shm-usage` because containers
 * often have a 64 MB /dev/shm.
 *
 * @example
 * chromiumArgs({ canvas: true }) // [..., '--enable-features=Vulkan', '--use-angle=swiftshader', ...]
 */
export function chromiumArgs(options: ChromiumArgsOptions = {}): string[] {
  const adapter = options.adapter ?? adapterFromEnv();
  const args = [
    '--enable-unsafe-webgpu',
    ...(adapter === 'swiftshader' ? ['--use-webgpu-adapter=swiftshader'] : []),
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-dev-shm-usage',
  ];
  if (adapter === 'swiftshader') {
    if (options.canvas) {
      args.push('--enable-features=Vulkan', '--use-angle=swiftshader', '--use-vulkan=swiftshader');
    }
  } else {
    args.push(
      '--enable-features=Vulkan',
      '--use-angle=vulkan',
      '--disable-vulkan-surface',
      '--ignore-gpu-blocklist',
    );
  }
  return args;
}

/**
 * Starts headless Chromium with WebGPU on, in a fresh temporary profile.
 *
 * @example
 * const { browser, close } = await launchBrowser();
 * try {
 *   const page = await browser.newPage();
 *   await page.goto('http://127.0.0.1:5173/');
 * } finally {
 *   await close();
 * }
 */
export async function launchBrowser(options: LaunchOptions = {}): Promise<LaunchedBrowser> {
  const executablePath = findBrowser(options.browser);
  const argOptions: ChromiumArgsOptions = {};
  if (options.canvas !== undefined) {
    argOptions.canvas = options.canvas;
  }
  if (options.adapter !== undefined) {
    argOptions.adapter = options.adapter;
  }
  const args = [...chromiumArgs(argOptions), ...(options.extraArgs ?? [])];
  const puppeteer = await loadPuppeteer();
  const userDataDir = await mkdtemp(join(tmpdir(), 'webgpu-obb-chromium-'));
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath,
      headless: true,
      // Puppeteer edits the array it is given (it merges --enable-features); hand it a copy.
      args: [...args],
      userDataDir,
      protocolTimeout: options.protocolTimeout ?? 600_000,
    });
  } catch (error) {
    await removeDir(userDataDir);
    throw new Error(`Could not start ${executablePath}: ${(error as Error).message}`, { cause: error });
  }
  let closing: Promise<void> | undefined;
  return {
    browser,
    executablePath,
    args,
    close() {
      closing ??= (async () => {
        try {
          await browser.close();
        } finally {
          await removeDir(userDataDir);
        }
      })();
      return closing;
    },
  };
}

async function removeDir(path: string): Promise<void> {
  // Chromium's helpers can still hold files for a moment after exit; retry, then give up quietly.
  await rm(path, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }).catch(() => {});
}
