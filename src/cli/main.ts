/**
 * The `webgpu-obb` command (Node only; bin/webgpu-obb.js calls {@link main}).
 *
 * - `run SCENE.json [--backend gpu|cpu] [--runtime browser|node] [--out RESULT.json] [--browser PATH]`:
 *   runs the scene's queries and prints (or writes) the result file
 *   (docs/design.md, "Scene and result files").
 * - `verify SCENE.json [--runtime browser|node] [--browser PATH]`: runs the GPU and the float64
 *   reference, prints the comparator's report, exits 1 on any mismatch.
 * - `judge SCENE.json RESULT.json`, `judge MANIFEST.json RESULTS_DIR`, `cases DIR`: the
 *   verification kit for other implementations (./kit.ts).
 *
 * The GPU backend runs in headless Chromium (`--runtime browser`, the default) or in this process
 * on Dawn from the optional `webgpu` package (`--runtime node`, src/node/runtime.ts).
 *
 * stdout carries only the result JSON (run without --out) or the report (verify); progress goes
 * to stderr unless --quiet. Every failure is one line on stderr, never a stack trace (set
 * WEBGPU_OBB_DEBUG=1 to see one). Exit codes: {@link EXIT}.
 *
 * @example
 * process.exitCode = await main(['run', 'scene.json', '--backend', 'cpu']);
 */
import { readFileSync } from 'node:fs';
import { access, constants as fsConstants, mkdir, open, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ObbGpu } from '../ObbGpu.ts';
import { count, describeScene, type Scene, type SceneLidar } from '../files/scene.ts';
import { CliError, EXIT, ioReason, oneLine, readScene, sceneDigest, withinReferenceCapacity, writeFileAtomic, type CliIo } from './common.ts';

export { EXIT, type CliIo } from './common.ts';
import { sceneResultFromCpu, sceneResultFromGpu, type CpuSceneRaw, type GpuSceneRaw, type SceneResult } from '../files/results.ts';
import { runReference, runSceneGpuRaw } from './run.ts';
import { checkReferenceCapacity, phaseProgress, sceneMotion } from '../judge/judge.ts';
import {
  POINT_CLOUD_FORMATS, pointCloudExtension, writePointCloud,
  type PointCloudOptions, type PointFrame, type PointLayout, type PointTime, type RingOrder,
} from '../files/pointCloud.ts';
import { lidarSweepCloud } from '../lidar/sweepCloud.ts';
import { lidarGroundTruth, writeGroundTruthJson, writeOpenPcdetLabels } from '../files/groundTruth.ts';
import { McapRecorder, type McapWritable } from '../files/mcap.ts';
import { compareScene, formatSceneComparison } from './verify.ts';
import { KIT_COMMANDS, KIT_OPTIONS, KIT_USAGE, runKit, writeReports } from './kit.ts';
import { COMMAND_HELP } from './help.ts';

const USAGE = `Usage:
  webgpu-obb run SCENE.json [--backend gpu|cpu] [--out RESULT.json] [--browser PATH]
                 [--runtime browser|node] [--adapter swiftshader|default]
                 [--accel auto|bvh|brute] [--lenient] [--quiet]
                 [--lidar-out DIR [--lidar-format pcd|ply|kitti|mcap] [--lidar-frame sensor|world]
                  [--lidar-ring laser|elevation] [--lidar-time seconds|nanoseconds]
                  [--lidar-layout default|autoware] [--lidar-organized] [--lidar-ground-truth]]
  webgpu-obb verify SCENE.json [--browser PATH] [--runtime browser|node] [--adapter swiftshader|default]
                 [--accel auto|bvh|brute] [--junit FILE.xml] [--html FILE.html] [--lenient] [--quiet]
${KIT_USAGE}
  webgpu-obb COMMAND --help | --help | --version

Commands:
  run      Run the scene's queries (closest hit per ray, SAT per listed pair, every
           overlapping pair) and print the result JSON, or write it with --out.
  verify   Run the scene on the GPU and on the float64 CPU reference, classify every GPU
           answer (agree / ambiguous / mismatch) and print the report.
${KIT_COMMANDS}

Options:
  --backend gpu|cpu   run: WebGPU (default) or the float64 CPU reference
  --runtime browser|node
                      where the GPU backend runs: headless Chromium (default), or this Node
                      process through Dawn (the optional \`webgpu\` package; on Linux it needs a
                      Vulkan loader and driver: Chromium's SwiftShader is found automatically)
  --adapter swiftshader|default
                      the WebGPU adapter: SwiftShader, the CPU WebGPU of Chromium (the default:
                      the same answers on every machine), or the machine's default, a real GPU
                      (for --runtime node: the system's Vulkan drivers, else SwiftShader);
                      overrides WEBGPU_OBB_ADAPTER
  --accel auto|bvh|brute
                      how the GPU finds boxes: a BVH built on the GPU, every box (brute force),
                      or by size (default: the BVH for rays from 512 boxes; for all pairs from
                      1,024 a uniform grid, or the BVH when one box is so wide that the grid
                      would be crowded; measured on SwiftShader, see README)
  --lenient           warn about unknown top-level scene (judge: result) fields instead of
                      refusing the file
${KIT_OPTIONS}
  -o, --out FILE      run: write the result to FILE (atomically) instead of stdout
  --lidar-out DIR     run: also write each LiDAR sweep's returns as a point cloud,
                      DIR/lidar-K.pcd|.ply|.bin (x y z, intensity = the modelled one or the
                      incidence cosine, ring, column, time, label = box, class with classIds,
                      return_index/return_count for a dual beam; KITTI: x y z and the
                      intensity as reflectance), from the sweep's own float32 (GPU) or
                      float64 (CPU) values
  --lidar-format pcd|ply|kitti|mcap
                      the point-cloud format (default pcd: binary PCD v0.7); mcap: one
                      recording DIR/lidar.mcap for Foxglove and ros2 bag play (sweep K on
                      /lidar_K/points, poses on /tf, all stamped 0; needs the optional
                      packages @mcap/core @foxglove/rosmsg @foxglove/rosmsg2-serialization)
  --lidar-frame sensor|world
                      the points' frame (default sensor, at each point's own time; world is
                      float64, not for KITTI)
  --lidar-ring laser|elevation
                      ring = the laser's index (default) or its elevation's rank, lowest
                      first (the ROS Velodyne driver's ring numbers)
  --lidar-time seconds|nanoseconds
                      per-point time: float32 seconds "time" (default, Velodyne) or uint32
                      nanoseconds "t" (Ouster), from the sweep start
  --lidar-layout default|autoware
                      the record layout; autoware: PointXYZIRCAEDT (sensor frame, ns)
  --lidar-organized   every ray, channels x columns (PCD HEIGHT = channels), NaN where no
                      return
  --lidar-ground-truth
                      also the boxes the sweep saw, in the sensor frame at the sweep start:
                      DIR/lidar-K.txt (OpenPCDet: x y z dx dy dz heading class) and
                      DIR/lidar-K.json; mcap: SceneUpdate cubes on /lidar_K/ground_truth
  --browser PATH      Chromium/Chrome for the GPU backend (default: $CHROME_PATH,
                      $PUPPETEER_EXECUTABLE_PATH, Puppeteer's cache, /usr/bin/chromium)
  -q, --quiet         no progress lines on stderr
  -h, --help          show this help
  -v, --version       print the version

Environment:
  CHROME_PATH          Chromium/Chrome executable (like --browser)
  WEBGPU_OBB_ADAPTER   swiftshader or default, as --adapter (which wins)
  VK_DRIVER_FILES      --runtime node: the Vulkan driver manifest(s) to use (wins over the above)
  WEBGPU_OBB_DEBUG=1   print stack traces of unexpected errors

Scene file: { "boxes": [ { "center": [x,y,z], "halfExtents": [hx,hy,hz],
                           "axes": [[ux,uy,uz],[vx,vy,vz],[wx,wy,wz]] | "rotation": [x,y,z,w] } ],
              "rays": [ { "origin": [x,y,z], "direction": [x,y,z], "maxDistance": d | null } ],
              "pairs": [ [i, j] ], "allPairs": true,
              "lidars": [ { "sensor": "velodyne-vlp16" | { "elevationsDeg": [...], "columns": N,
                            "maxRange": R, "azimuthOffsetsDeg"?, "beamOriginOffset"?,
                            "azimuthStartDeg"?, "azimuthEndDeg"?, "minRange"?, "sweepTime"?,
                            "verticalOffsets"? (m), "firingTimeOffsets"? (s) },
                            "pose": { "position": [x,y,z], "rotation": [x,y,z,w] }, "poseEnd"? } ] }
            (rays, pairs, allPairs, lidars optional; a box may carry "velocity" and
             "angularVelocity" [x,y,z], moving during the sweeps, and "reflectivity" (0..1)
             and "classId"; a lidars entry "intensity": true | { "referenceRange"?,
             "atmosphere"? }, "noise" (…StdDevDeg for angles), "beam" ("divergenceDeg": [h, v],
             "returns": "dual", …) and "seed": docs/lidar.md, "Scene and result files")

Result numbers: t, normals and gaps from the GPU are float32, written as the shortest decimal
that reads back as the same float32; the CPU reference's are float64.

Exit status: 0 ok; 1 verify or judge found a mismatch (or the run failed); 2 bad usage, a bad
scene file (unknown top-level fields too, unless --lenient), or a result file that does not
answer its scene (judge: missing, malformed, incomplete); 3 GPU backend unavailable (no Puppeteer or no
browser for --runtime browser, no webgpu package or Vulkan driver for --runtime node, no WebGPU
adapter).
`;

function processIo(): CliIo {
  return {
    out: (text) => {
      process.stdout.write(text);
    },
    err: (text) => {
      process.stderr.write(text);
    },
  };
}

/** The package root (the folder of webgpu-obb's package.json), from dist/ or from src/cli/. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
      if (pkg.name === 'webgpu-obb') {
        return dir;
      }
    } catch {
      // not here; look one level up
    }
    dir = dirname(dir);
  }
  throw new Error('cannot find the webgpu-obb package.json above the CLI');
}

function version(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: unknown };
  return String(pkg.version ?? 'unknown');
}

/** Fails early (before a long run) when --out cannot be written. */
async function checkOutPath(out: string): Promise<void> {
  const dir = dirname(resolve(out));
  try {
    if (!(await stat(dir)).isDirectory()) {
      throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    }
    await access(dir, fsConstants.W_OK);
  } catch (error) {
    throw new CliError(EXIT.USAGE, `--out ${out}: cannot write to ${dir} (${ioReason(error)})`);
  }
  const existing = await stat(out).catch(() => undefined);
  if (existing?.isDirectory()) {
    throw new CliError(EXIT.USAGE, `--out ${out}: is a directory`);
  }
}

/** JSON with one ray / pair per line: readable for small scenes, compact for large ones. */
export function formatResult(result: SceneResult): string {
  const lines = ['{'];
  const entries = Object.entries(result);
  entries.forEach(([key, value], i) => {
    const comma = i < entries.length - 1 ? ',' : '';
    if (Array.isArray(value)) {
      if (value.length === 0) {
        lines.push(`  ${JSON.stringify(key)}: []${comma}`);
        return;
      }
      lines.push(`  ${JSON.stringify(key)}: [`);
      value.forEach((item: unknown, k) => {
        lines.push(`    ${JSON.stringify(item)}${k < value.length - 1 ? ',' : ''}`);
      });
      lines.push(`  ]${comma}`);
    } else {
      lines.push(`  ${JSON.stringify(key)}: ${JSON.stringify(value)}${comma}`);
    }
  });
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** Runs the scene on the GPU in headless Chromium (loads Puppeteer only now). */
async function runGpu(
  sceneText: string, browser: string | undefined, progress: (m: string) => void, accel: 'auto' | 'bvh' | 'brute', adapter: 'swiftshader' | 'default' | undefined,
): Promise<GpuSceneRaw> {
  let runner: typeof import('./gpuRunner.ts');
  try {
    runner = await import('./gpuRunner.ts');
  } catch (error) {
    throw new CliError(
      EXIT.GPU_UNAVAILABLE,
      `the GPU backend cannot load (${oneLine(error)}); run \`npm install\` in the webgpu-obb package, or use --backend cpu`,
    );
  }
  // The page parses the very text Node validated, so both sides see the same scene.
  try {
    return await runner.runSceneInBrowser({ distDir: join(packageRoot(), 'dist'), sceneText, browser, adapter, progress, accel });
  } catch (error) {
    if (error instanceof runner.GpuUnavailableError) {
      throw new CliError(EXIT.GPU_UNAVAILABLE, oneLine(error));
    }
    throw new CliError(EXIT.FAILED, oneLine(error));
  }
}

const NODE_ADAPTER_HINT =
  '(--runtime node asks for SwiftShader unless WEBGPU_OBB_ADAPTER=default; `--runtime browser` or ' +
  '`--backend cpu` may run where this does not)';

/**
 * Runs the scene on the GPU in this process, on Dawn (the `webgpu` package), loaded only now.
 * The Vulkan driver follows WEBGPU_OBB_ADAPTER as the browser runtime does: SwiftShader unless
 * it says `default`.
 */
async function runGpuNode(scene: Scene, progress: (m: string) => void, accel: 'auto' | 'bvh' | 'brute', adapter: 'swiftshader' | 'default' | undefined): Promise<GpuSceneRaw> {
  let runtime: typeof import('../node/runtime.ts');
  try {
    runtime = await import('../node/runtime.ts');
  } catch (error) {
    throw new CliError(EXIT.GPU_UNAVAILABLE, `the Node runtime cannot load (${oneLine(error)}); use --runtime browser or --backend cpu`);
  }
  let gpu: ObbGpu;
  try {
    const driver = adapter === 'default' ? 'auto' : adapter ?? runtime.driverFromEnv() ?? 'swiftshader';
    progress(`runtime: node (Dawn), driver: ${driver}…`);
    gpu = await runtime.createNodeGpu({ driver });
  } catch (error) {
    if (error instanceof runtime.NodeGpuUnavailableError) {
      throw new CliError(EXIT.GPU_UNAVAILABLE, `${oneLine(error)} ${NODE_ADAPTER_HINT}`);
    }
    throw new CliError(EXIT.FAILED, `the Node runtime could not start: ${oneLine(error)}`);
  }
  try {
    progress(`vulkan: ${runtime.nodeVulkanSetup()?.summary ?? 'unknown'}`);
    progress(`adapter: ${gpu.adapterName}`);
    return await runSceneGpuRaw(scene, gpu, progress, accel);
  } catch (error) {
    throw new CliError(EXIT.FAILED, `GPU run failed: ${oneLine(error)}`);
  } finally {
    gpu.destroy();
  }
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(2)} s`;
}

/** What `--lidar-format` takes: the point-cloud formats, one file per sweep, and an MCAP recording of them all. */
const LIDAR_FORMATS = [...POINT_CLOUD_FORMATS, 'mcap'] as const;
type LidarFormat = (typeof LIDAR_FORMATS)[number];

/** The options that shape `--lidar-out`'s files (each needs it). */
const LIDAR_OUTPUT_OPTIONS = ['lidar-format', 'lidar-frame', 'lidar-ring', 'lidar-time', 'lidar-layout', 'lidar-organized', 'lidar-ground-truth'] as const;

interface Parsed {
  command: 'run' | 'verify';
  scene: string;
  backend: 'gpu' | 'cpu';
  runtime: 'browser' | 'node';
  accel: 'auto' | 'bvh' | 'brute';
  adapter: 'swiftshader' | 'default' | undefined;
  lenient: boolean;
  out: string | undefined;
  lidarOut: string | undefined;
  lidarFormat: LidarFormat;
  lidarFrame: PointFrame;
  lidarRing: RingOrder;
  lidarTime: PointTime | undefined;
  lidarLayout: PointLayout;
  lidarOrganized: boolean;
  lidarGroundTruth: boolean;
  junit: string | undefined;
  html: string | undefined;
  browser: string | undefined;
  quiet: boolean;
}

/** Parses argv; returns a number for --help / --version (already printed). */
function parse(argv: readonly string[], io: CliIo): Parsed | number {
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        backend: { type: 'string' },
        runtime: { type: 'string' },
        accel: { type: 'string' },
        adapter: { type: 'string' },
        lenient: { type: 'boolean' },
        junit: { type: 'string' },
        html: { type: 'string' },
        out: { type: 'string', short: 'o' },
        'lidar-out': { type: 'string' },
        'lidar-format': { type: 'string' },
        'lidar-frame': { type: 'string' },
        'lidar-ring': { type: 'string' },
        'lidar-time': { type: 'string' },
        'lidar-layout': { type: 'string' },
        'lidar-organized': { type: 'boolean' },
        'lidar-ground-truth': { type: 'boolean' },
        browser: { type: 'string' },
        quiet: { type: 'boolean', short: 'q' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    }));
  } catch (error) {
    // Node's messages continue with advice about '--' that does not apply here: keep sentence one.
    const first = oneLine(error).split(/\.\s/)[0] ?? '';
    throw new CliError(EXIT.USAGE, `${first.replace(/^Unknown/, 'unknown')} (see webgpu-obb --help)`);
  }
  if (values['help']) {
    io.out(USAGE);
    return EXIT.OK;
  }
  if (values['version']) {
    io.out(`${version()}\n`);
    return EXIT.OK;
  }
  const [command, scene, ...extra] = positionals;
  if (command === undefined) {
    io.err(USAGE);
    return EXIT.USAGE;
  }
  if (command !== 'run' && command !== 'verify') {
    throw new CliError(EXIT.USAGE, `unknown command '${command}' (expected run, verify, judge or cases; see webgpu-obb --help)`);
  }
  if (scene === undefined) {
    throw new CliError(EXIT.USAGE, `${command} needs a scene file: webgpu-obb ${command} SCENE.json`);
  }
  if (extra.length > 0) {
    throw new CliError(EXIT.USAGE, `unexpected argument '${extra[0] ?? ''}' (one scene file per run)`);
  }
  const backend = values['backend'];
  if (backend !== undefined && backend !== 'gpu' && backend !== 'cpu') {
    throw new CliError(EXIT.USAGE, `--backend must be gpu or cpu (got '${String(backend)}')`);
  }
  if (command === 'verify' && backend !== undefined) {
    throw new CliError(EXIT.USAGE, 'verify always runs both backends; drop --backend');
  }
  const runtime = values['runtime'];
  if (runtime !== undefined && runtime !== 'browser' && runtime !== 'node') {
    throw new CliError(EXIT.USAGE, `--runtime must be browser or node (got '${String(runtime)}')`);
  }
  if (runtime === 'node' && values['browser'] !== undefined) {
    throw new CliError(EXIT.USAGE, '--browser is for --runtime browser; --runtime node runs without one');
  }
  const accel = values['accel'];
  if (accel !== undefined && accel !== 'auto' && accel !== 'bvh' && accel !== 'brute') {
    throw new CliError(EXIT.USAGE, `--accel must be auto, bvh or brute (got '${String(accel)}')`);
  }
  if (accel !== undefined && backend === 'cpu') {
    throw new CliError(EXIT.USAGE, '--accel is for the GPU backend; the CPU reference has its own exact grid');
  }
  const adapter = values['adapter'];
  if (adapter !== undefined && adapter !== 'swiftshader' && adapter !== 'default') {
    throw new CliError(EXIT.USAGE, `--adapter must be swiftshader or default (got '${String(adapter)}')`);
  }
  if (adapter !== undefined && backend === 'cpu') {
    throw new CliError(EXIT.USAGE, '--adapter is for the GPU backend; the CPU reference needs no adapter');
  }
  const out = values['out'];
  if (command === 'verify' && out !== undefined) {
    throw new CliError(EXIT.USAGE, 'verify prints a report; --out is for run');
  }
  const junit = values['junit'];
  const html = values['html'];
  if (command === 'run' && (junit !== undefined || html !== undefined)) {
    throw new CliError(EXIT.USAGE, `--${junit !== undefined ? 'junit' : 'html'} is for verify and judge (run writes a result file: judge it)`);
  }
  const lidarOut = values['lidar-out'];
  const lidarFormat = values['lidar-format'] ?? 'pcd';
  const lidarFrame = values['lidar-frame'] ?? 'sensor';
  const lidarRing = values['lidar-ring'] ?? 'laser';
  const lidarTime = values['lidar-time'];
  const lidarLayout = values['lidar-layout'] ?? 'default';
  if (command === 'verify' && lidarOut !== undefined) {
    throw new CliError(EXIT.USAGE, 'verify prints a report; --lidar-out is for run');
  }
  const lidarOptions = LIDAR_OUTPUT_OPTIONS.filter((name) => values[name] !== undefined);
  if (lidarOut === undefined && lidarOptions.length > 0) {
    throw new CliError(EXIT.USAGE, `--${lidarOptions[0]!} needs --lidar-out DIR`);
  }
  if (!(LIDAR_FORMATS as readonly unknown[]).includes(lidarFormat)) {
    throw new CliError(EXIT.USAGE, `--lidar-format must be pcd, ply, kitti or mcap (got '${String(lidarFormat)}')`);
  }
  if (lidarFrame !== 'sensor' && lidarFrame !== 'world') {
    throw new CliError(EXIT.USAGE, `--lidar-frame must be sensor or world (got '${String(lidarFrame)}')`);
  }
  if (lidarRing !== 'laser' && lidarRing !== 'elevation') {
    throw new CliError(EXIT.USAGE, `--lidar-ring must be laser or elevation (got '${String(lidarRing)}')`);
  }
  if (lidarTime !== undefined && lidarTime !== 'seconds' && lidarTime !== 'nanoseconds') {
    throw new CliError(EXIT.USAGE, `--lidar-time must be seconds or nanoseconds (got '${String(lidarTime)}')`);
  }
  if (lidarLayout !== 'default' && lidarLayout !== 'autoware') {
    throw new CliError(EXIT.USAGE, `--lidar-layout must be default or autoware (got '${String(lidarLayout)}')`);
  }
  if (lidarFormat === 'kitti' && lidarFrame === 'world') {
    throw new CliError(EXIT.USAGE, 'KITTI .bin files are float32 in the sensor frame; --lidar-frame world needs pcd or ply');
  }
  const pointOption = ['lidar-ring', 'lidar-time', 'lidar-layout', 'lidar-organized'].find((name) => values[name] !== undefined);
  if (lidarFormat === 'kitti' && pointOption !== undefined) {
    throw new CliError(EXIT.USAGE, `KITTI .bin files hold x y z reflectance only; --${pointOption} needs pcd, ply or mcap`);
  }
  if (lidarLayout === 'autoware' && lidarFrame === 'world') {
    throw new CliError(EXIT.USAGE, '--lidar-layout autoware is PointXYZIRCAEDT, float32 x y z in the sensor frame; drop --lidar-frame world');
  }
  if (lidarLayout === 'autoware' && lidarTime === 'seconds') {
    throw new CliError(EXIT.USAGE, '--lidar-layout autoware stores time_stamp as uint32 nanoseconds; drop --lidar-time seconds');
  }
  const browser = values['browser'];
  return {
    command,
    scene,
    backend: backend ?? 'gpu',
    runtime: runtime ?? 'browser',
    accel: accel ?? 'auto',
    adapter,
    lenient: values['lenient'] === true,
    out: typeof out === 'string' ? out : undefined,
    lidarOut: typeof lidarOut === 'string' ? lidarOut : undefined,
    lidarFormat: lidarFormat as LidarFormat,
    lidarFrame: lidarFrame as PointFrame,
    lidarRing: lidarRing as RingOrder,
    lidarTime: lidarTime as PointTime | undefined,
    lidarLayout: lidarLayout as PointLayout,
    lidarOrganized: values['lidar-organized'] === true,
    lidarGroundTruth: values['lidar-ground-truth'] === true,
    junit: typeof junit === 'string' ? junit : undefined,
    html: typeof html === 'string' ? html : undefined,
    browser: typeof browser === 'string' ? browser : undefined,
    quiet: values['quiet'] === true,
  };
}

async function execute(args: Parsed, io: CliIo): Promise<number> {
  const started = performance.now();
  const progress = args.quiet ? (): void => {} : (message: string): void => io.err(`${message}\n`);
  if (args.out !== undefined) {
    await checkOutPath(args.out);
  }
  const { scene, text: sceneText } = await readScene(args.scene);
  if (scene.unknownFields.length > 0) {
    const fields = scene.unknownFields.join(', ');
    if (!args.lenient) {
      throw new CliError(EXIT.USAGE,
        `${args.scene}: unknown field(s) ${fields} (a scene has boxes, rays, pairs, allPairs, lidars; --lenient ignores the rest)`);
    }
    io.err(`webgpu-obb: warning: ${args.scene}: ignoring unknown field(s) ${fields}\n`);
  }
  progress(`scene: ${args.scene} (${describeScene(scene)})`);
  if (args.command === 'verify' || args.backend === 'cpu') {
    // Before a GPU run whose answers the reference could not then judge.
    withinReferenceCapacity(args.scene, () => checkReferenceCapacity(scene));
  }

  const gpuRaw = (): Promise<GpuSceneRaw> =>
    args.runtime === 'node' ? runGpuNode(scene, progress, args.accel, args.adapter) : runGpu(sceneText, args.browser, progress, args.accel, args.adapter);
  if (args.command === 'verify') {
    const raw = await gpuRaw();
    const ref = withinReferenceCapacity(args.scene, () => runReference(scene, progress));
    const cmp = compareScene(scene, raw, ref, progress);
    io.out(`${formatSceneComparison(args.scene, scene, raw.adapter, cmp)}\n`);
    await writeReports([{ name: args.scene, comparison: cmp, seconds: (performance.now() - started) / 1000 }], args.junit, args.html, `verify ${args.scene} on ${raw.adapter}`, progress);
    progress(`done in ${seconds(started)}`);
    return cmp.ok ? EXIT.OK : EXIT.FAILED;
  }

  if (args.lidarOut !== undefined) {
    // Before a long run: a scene without sweeps, or a recording without its packages, fails now.
    if (!scene.lidars) {
      throw new CliError(EXIT.USAGE, `--lidar-out ${args.lidarOut}: the scene has no "lidars" to write`);
    }
    if (args.lidarFormat === 'mcap') {
      await openRecorder({ write: () => Promise.resolve(), position: () => 0n });
    }
  }
  let result: SceneResult;
  /** The sweeps' own images: the GPU's float32 ranges, the reference's float64 ones (not the result file's decimals). */
  let sweeps: CpuSceneRaw['lidars'];
  if (args.backend === 'cpu') {
    progress('backend: cpu reference (float64)');
    const raw = withinReferenceCapacity(args.scene, () => runReference(scene, progress));
    result = sceneResultFromCpu(scene, raw);
    sweeps = raw.lidars;
  } else {
    const raw = await gpuRaw();
    result = sceneResultFromGpu(scene, raw);
    sweeps = raw.lidars?.map((l) => ({
      range: Float32Array.from(l.range), box: Int32Array.from(l.box), returnsPerBox: l.returnsPerBox,
      intensity: l.intensity && Float32Array.from(l.intensity),
      second: l.second && { range: Float32Array.from(l.second.range), box: Int32Array.from(l.second.box), intensity: Float32Array.from(l.second.intensity) },
    }));
  }
  // Name the scene answered, so that `judge` can refuse this result against another scene.
  const { backend, adapter, ...answers } = result;
  const text = formatResult({ backend, adapter, scene: sceneDigest(sceneText), ...answers });
  if (args.lidarOut !== undefined) {
    await writeLidarOutputs(scene, sweeps ?? [], args, progress);
  }
  if (args.out === undefined) {
    io.out(text);
  } else {
    await writeFileAtomic(args.out, text);
    progress(`wrote ${args.out}`);
  }
  progress(`done in ${seconds(started)}`);
  return EXIT.OK;
}

/**
 * The CLI's class names, by class id: `Box` for class 0 (every box of a scene without
 * `classId`s), `Class1`, `Class2`, … for the ids a scene's boxes give.
 */
function classNames(scene: Scene): string[] {
  const top = scene.materials ? Math.max(0, ...scene.materials.classId) : 0;
  return Array.from({ length: top + 1 }, (_, k) => (k === 0 ? 'Box' : `Class${k}`));
}

/** A recorder on `writable`, or exit 1 saying which packages to install. */
async function openRecorder(writable: McapWritable): Promise<McapRecorder> {
  try {
    return await McapRecorder.create(writable);
  } catch (error) {
    throw new CliError(EXIT.FAILED, `--lidar-format mcap: ${oneLine(error)}`);
  }
}

/** The point-cloud writers' options the command line chose, for sweep `l` (a `class` field when the scene's boxes give `classId`s). */
function pointOptions(args: Parsed, l: SceneLidar, scene: Scene): PointCloudOptions {
  return {
    frame: args.lidarFrame, ring: args.lidarRing, elevations: l.desc.elevations, layout: args.lidarLayout, organized: args.lidarOrganized,
    ...(args.lidarTime === undefined ? {} : { time: args.lidarTime }),
    ...(scene.materials && args.lidarLayout !== 'autoware' ? { classIds: scene.materials.classId } : {}),
  };
}

/**
 * Writes each sweep's points, and with --lidar-ground-truth its ground truth: per sweep
 * DIR/lidar-K.EXT (and DIR/lidar-K.txt, DIR/lidar-K.json), or one recording DIR/lidar.mcap. The
 * per-point fields are computed on the host in float64 (lidarPointFields, what the API's
 * `fields: true` gives) from the sweep's own ranges, so a file holds the API's values. The folder
 * is made when missing; each file is written atomically. Progress: a line per file, and counts
 * with an ETA while it lasts (phaseProgress).
 */
async function writeLidarOutputs(scene: Scene, sweeps: NonNullable<CpuSceneRaw['lidars']>, args: Parsed, progress: (message: string, periodic?: boolean) => void): Promise<void> {
  const dir = args.lidarOut!;
  const lidars = scene.lidars ?? [];
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new CliError(EXIT.FAILED, `--lidar-out ${dir}: cannot make the folder (${ioReason(error)})`);
  }
  const tick = phaseProgress(progress, args.lidarFormat === 'mcap' ? 'LiDAR recording' : 'LiDAR files', 'sweeps', 'points');
  tick?.(0, lidars.length, 0);
  let points = 0;
  /** The sweep's cloud and ground truth, from its own arrays. */
  const prepare = (k: number) => {
    const l = lidars[k]!;
    const sweep = sweeps[k]!;
    // The modelled intensities and a dual-return sweep's second returns travel with the points.
    const cloud = lidarSweepCloud(scene.boxes, l.desc, l.pose, sceneMotion(scene, l), sweep, { seed: l.seed });
    const classIds = scene.materials?.classId;
    const truth = args.lidarGroundTruth ? lidarGroundTruth(scene.boxes, l.pose, sweep.returnsPerBox, classIds ? { classIds } : {}) : undefined;
    const returns = cloud.box.reduce((n, b) => n + (b >= 0 ? 1 : 0), 0) + (cloud.second?.box.reduce((n, b) => n + (b >= 0 ? 1 : 0), 0) ?? 0);
    return { l, cloud, truth, returns };
  };
  if (args.lidarFormat === 'mcap') {
    const file = join(dir, 'lidar.mcap');
    const what = `--lidar-out ${file}: cannot write the recording`;
    const recorder = await writeStreamAtomic(file, what, async (writable) => {
      const r = await openRecorder(writable);
      for (let k = 0; k < lidars.length; k++) {
        const { l, cloud, truth, returns } = prepare(k);
        // A scene's sweeps are simultaneous: each sensor on its own topics, all stamped 0.
        await r.add({ cloud, pose: l.pose, stamp: 0, sensor: `lidar_${k}`, points: pointOptions(args, l, scene), classNames: classNames(scene), ...(truth ? { groundTruth: truth } : {}) });
        points += returns;
        tick?.(k + 1, lidars.length, points);
      }
      await r.close();
      return r;
    });
    progress(`wrote ${file} (${count(recorder.sweeps, 'sweep', 'sweeps')}, ${count(points, 'point', 'points')}, ${count(recorder.messages, 'message', 'messages')}, ${args.lidarFrame} frame)`);
    return;
  }
  const format = args.lidarFormat;
  for (let k = 0; k < lidars.length; k++) {
    const { l, cloud, truth, returns } = prepare(k);
    const file = join(dir, `lidar-${k}${pointCloudExtension(format)}`);
    let bytes: Uint8Array;
    try {
      bytes = format === 'kitti' ? writePointCloud(format, cloud) : writePointCloud(format, cloud, pointOptions(args, l, scene));
    } catch (error) {
      // An option the sweep cannot take (uint32 nanoseconds past 4.29 s), named in one line.
      throw new CliError(EXIT.FAILED, `--lidar-out ${file}: ${oneLine(error)}`);
    }
    await writeFileAtomic(file, bytes, `--lidar-out ${file}: cannot write the point cloud`);
    progress(`wrote ${file} (${returns} points, ${format}, ${args.lidarFrame} frame)`);
    if (truth) {
      const labels = join(dir, `lidar-${k}.txt`);
      await writeFileAtomic(labels, writeOpenPcdetLabels(truth, classNames(scene)), `--lidar-out ${labels}: cannot write the labels`);
      const json = join(dir, `lidar-${k}.json`);
      await writeFileAtomic(json, writeGroundTruthJson(truth, { classNames: classNames(scene), frameId: `lidar_${k}` }), `--lidar-out ${json}: cannot write the ground truth`);
      progress(`wrote ${labels} and ${json} (${count(truth.length, 'box', 'boxes')} seen)`);
    }
    points += returns;
    tick?.(k + 1, lidars.length, points);
  }
}

/**
 * Streams a file through `fill` into a temporary file beside it, then renames it into place
 * (atomic within one file system); removes the temporary file when anything fails.
 */
async function writeStreamAtomic<T>(path: string, what: string, fill: (writable: McapWritable) => Promise<T>): Promise<T> {
  const target = resolve(path);
  const tmp = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now().toString(36)}.tmp`);
  let handle: FileHandle | undefined;
  try {
    handle = await open(tmp, 'wx');
    const file = handle;
    let at = 0n;
    const value = await fill({
      write: async (bytes: Uint8Array) => {
        for (let done = 0; done < bytes.length;) {
          done += (await file.write(bytes, done, bytes.length - done)).bytesWritten;
        }
        at += BigInt(bytes.length);
      },
      position: () => at,
    });
    await handle.close();
    handle = undefined;
    await rename(tmp, target);
    return value;
  } catch (error) {
    await handle?.close().catch(() => {});
    await unlink(tmp).catch(() => {});
    throw error instanceof CliError ? error : new CliError(EXIT.FAILED, `${what} (${ioReason(error)})`);
  }
}

/**
 * Runs the command with `argv` (without node and the script) and returns the exit code.
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2));
 */
export async function main(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  try {
    const command = argv.find((a) => !a.startsWith('-'));
    if (argv.includes('--help') || argv.includes('-h')) {
      io.out(command !== undefined && Object.hasOwn(COMMAND_HELP, command) ? COMMAND_HELP[command as keyof typeof COMMAND_HELP] : USAGE);
      return EXIT.OK;
    }
    if (command === 'judge' || command === 'cases') {
      return await runKit(argv, io, version());
    }
    const parsed = parse(argv, io);
    return typeof parsed === 'number' ? parsed : await execute(parsed, io);
  } catch (error) {
    if (error instanceof CliError) {
      io.err(`webgpu-obb: ${error.message}\n`);
      return error.code;
    }
    io.err(`webgpu-obb: unexpected error: ${oneLine(error)}\n`);
    if (process.env['WEBGPU_OBB_DEBUG'] && error instanceof Error && error.stack) {
      io.err(`${error.stack}\n`);
    }
    return EXIT.FAILED;
  }
}
