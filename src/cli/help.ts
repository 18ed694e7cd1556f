/**
 * `webgpu-obb COMMAND --help`: one page per command — usage, what it does, its options, examples
 * and exit codes. The examples are real command lines (lines starting with `$ `), and
 * test/cpu/cliHelp.test.ts runs them in order in an empty folder, so none can rot.
 */

const EXIT_CODES = `Exit status:
  0  ok
  1  verify or judge found a mismatch (or a run failed)
  2  bad usage, a bad scene file, a result that does not answer its scene, or an input the
     CPU reference cannot hold
  3  the GPU backend is unavailable (no browser or Puppeteer, no webgpu package or Vulkan
     driver for --runtime node, no WebGPU adapter)`;

/** The help page of each command. */
export const COMMAND_HELP: Readonly<Record<'run' | 'verify' | 'judge' | 'cases', string>> = {
  cases: `Usage: webgpu-obb cases DIR [--suite NAME]... [--seed N] [--size quick|full] [--quiet]

Writes the library's random, adversarial and exact suites as scene files (DIR/NAME.scene.json,
'/' in a group name written as '--') with DIR/manifest.json saying what each group tests, its
seed and counts. Groups marked "exact" have exact expected answers: an implementation's
answer there agrees or mismatches, never ambiguous. Run each scene with your implementation,
write NAME.result.json into a folder, and judge the folder.

Options:
  --suite NAME        only groups whose name starts with NAME (repeatable): random, rays,
                      pairs, all-pairs, exact, lidar, rays/grazing-edges, …
  --seed N            the suites' seed (default 20261201)
  --size quick|full   quick (default, about 16 MB) or full (random groups 10-20x larger)
  -q, --quiet         no progress lines on stderr

Examples:
  $ webgpu-obb cases suites --suite exact/rays-face-planes --suite lidar/street

${EXIT_CODES}
`,
  run: `Usage: webgpu-obb run SCENE.json [--backend gpu|cpu] [--out RESULT.json] [--runtime browser|node]
                      [--adapter swiftshader|default] [--accel auto|bvh|brute] [--browser PATH]
                      [--lenient] [--quiet]
                      [--lidar-out DIR [--lidar-format pcd|ply|kitti|mcap] [--lidar-frame sensor|world]
                       [--lidar-ring laser|elevation] [--lidar-time seconds|nanoseconds]
                       [--lidar-layout default|autoware] [--lidar-organized] [--lidar-ground-truth]]

Runs the scene's queries (closest hit per ray, SAT per listed pair, every overlapping pair,
LiDAR sweeps) and prints the result file (docs/design.md, "Scene and result files"), or writes
it with --out. The result names its scene by the SHA-256 of the scene file ("scene").

Options:
  --backend gpu|cpu   WebGPU (default) or the float64 CPU reference
  --runtime browser|node
                      the GPU in headless Chromium (default) or in this process on Dawn
  --adapter swiftshader|default
                      SwiftShader (default) or the machine's GPU
  --accel auto|bvh|brute
                      how the GPU finds boxes (default: by size)
  -o, --out FILE      write the result to FILE (atomically)
  --lidar-out DIR     also write each sweep's returns as a point cloud, DIR/lidar-K.pcd (from
                      the sweep's own float32 or float64 values; docs/lidar.md)
  --lidar-format pcd|ply|kitti|mcap
                      the format (default pcd); mcap: one recording DIR/lidar.mcap of every
                      sweep for Foxglove and ros2 bag play (optional packages: @mcap/core
                      @foxglove/rosmsg @foxglove/rosmsg2-serialization)
  --lidar-frame sensor|world
                      the points' frame (default sensor; world is float64)
  --lidar-ring laser|elevation
                      ring = the laser's index (default) or its elevation's rank (ROS Velodyne)
  --lidar-time seconds|nanoseconds
                      float32 seconds "time" (default) or uint32 nanoseconds "t" (Ouster)
  --lidar-layout default|autoware
                      the record layout; autoware: PointXYZIRCAEDT
  --lidar-organized   every ray, channels x columns, NaN where no return
  --lidar-ground-truth
                      also the boxes each sweep saw, sensor frame at its start: DIR/lidar-K.txt
                      (OpenPCDet) and .json; mcap: SceneUpdate cubes
  --lenient           warn about unknown scene fields instead of refusing the file
  -q, --quiet         no progress lines on stderr

Examples:
  $ webgpu-obb run suites/exact--rays-face-planes.scene.json --backend cpu --out suites/exact--rays-face-planes.result.json
  $ webgpu-obb run suites/lidar--street.scene.json --backend cpu --out suites/lidar--street.result.json --lidar-out lidar --lidar-ring elevation --lidar-time nanoseconds --lidar-organized --lidar-ground-truth

${EXIT_CODES}
`,
  verify: `Usage: webgpu-obb verify SCENE.json [--runtime browser|node] [--adapter swiftshader|default]
                         [--accel auto|bvh|brute] [--browser PATH] [--junit FILE.xml]
                         [--html FILE.html] [--lenient] [--quiet]

Runs the scene on the GPU and on the float64 CPU reference, classifies every GPU answer
(agree / ambiguous / mismatch, docs/design.md "Proving the GPU right") and prints the report.

Options:
  --runtime browser|node, --adapter, --accel, --browser
                      as for run
  --junit FILE.xml    also write a JUnit report
  --html FILE.html    also write a self-contained HTML report drawing each listed case
  -q, --quiet         no progress lines on stderr

Examples:
  $ webgpu-obb verify suites/exact--rays-face-planes.scene.json --runtime node --html verify.html

${EXIT_CODES}
`,
  judge: `Usage: webgpu-obb judge SCENE.json RESULT.json [--precision f32|f16|f64 | --unit-roundoff U]
                        [--junit FILE.xml] [--html FILE.html] [--lenient] [--quiet]
       webgpu-obb judge MANIFEST.json RESULTS_DIR [the same options]

Judges any implementation's result file against the float64 reference: every ray, pair,
all-pairs entry and LiDAR ray classified agree / ambiguous / mismatch with the error model of
its precision; what float arithmetic computes exactly is decided exactly. A result may report
less than every field (hit only; no t, normal or inside; overlap only): it is judged on what it
reports. Given a cases manifest and a folder of NAME.result.json files, judges every group.

Options:
  --precision f32|f16|f64
                      the arithmetic of the implementation (default f32)
  --unit-roundoff U   an explicit unit roundoff instead (claims nothing exact)
  --junit FILE.xml    also write a JUnit report (one test case per group)
  --html FILE.html    also write a self-contained HTML report
  --lenient           warn about unknown result fields instead of refusing the file
  -q, --quiet         no progress lines on stderr

Examples:
  $ webgpu-obb judge suites/exact--rays-face-planes.scene.json suites/exact--rays-face-planes.result.json --precision f64
  $ webgpu-obb judge suites/manifest.json suites --junit judge.xml

${EXIT_CODES}
`,
};

/** The command lines of a help page's examples (`$ webgpu-obb …`), without the prompt. */
export function helpExamples(help: string): string[][] {
  return help.split('\n').filter((l) => l.trimStart().startsWith('$ webgpu-obb ')).map((l) => l.trim().split(/\s+/).slice(2));
}
