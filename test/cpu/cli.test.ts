/**
 * The `webgpu-obb` command, CPU parts: scene parsing and its error paths, the CPU backend's
 * result file on hand-checked scenes, and the built command end to end (`node bin/webgpu-obb.js`,
 * which needs `npm run build`; `npm test` builds first).
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScene, parseSceneText, SceneError } from '../../src/files/scene.ts';
import { sceneResultFromGpu, shortestFloat32, type GpuSceneRaw, type SceneResult } from '../../src/files/results.ts';
import { runReference, runSceneCpu } from '../../src/cli/run.ts';
import { formatResult, main, type CliIo } from '../../src/cli/main.ts';
import { compareScene, formatSceneComparison } from '../../src/cli/verify.ts';
import { runCli } from './cliRun.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin', 'webgpu-obb.js');
const fixtureUrl = new URL('../fixtures/seed-sat-case.json', import.meta.url);

/** These tests run the built command: say so when dist/ is older than the sources. */
function warnIfStale(): void {
  const built = statSync(join(root, 'dist', 'cli.js')).mtimeMs;
  const newest = ['src', 'shaders']
    .flatMap((d) => readdirSync(join(root, d), { recursive: true, encoding: 'utf8' }).map((f) => join(root, d, f)))
    .reduce((m, f) => Math.max(m, statSync(f, { throwIfNoEntry: false })?.mtimeMs ?? 0), 0);
  if (newest > built) {
    console.warn('dist/ is older than src/ or shaders/: these tests run the built command; run `npm run build`');
  }
}

const unitBox = { center: [0, 0, 0], halfExtents: [1, 1, 1], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] };
const tiltedBox = { center: [5, 0, 0], halfExtents: [1, 2, 1], rotation: [0, 0, 0.3826834, 0.9238795] };

/** The message parseScene throws for `json`, with its path. */
function sceneError(json: unknown): { path: string; message: string } {
  try {
    parseScene(json);
  } catch (error) {
    expect(error).toBeInstanceOf(SceneError);
    const e = error as SceneError;
    return { path: e.path, message: e.message };
  }
  throw new Error('parseScene accepted a bad scene');
}

describe('parseScene', () => {
  const box = (over: Record<string, unknown>): Record<string, unknown> => ({ ...unitBox, ...over });

  it.each([
    ['not an object', [1], '', /must be a JSON object/],
    ['boxes missing', { rays: [] }, 'boxes', /is missing/],
    ['boxes not an array', { boxes: {} }, 'boxes', /must be an array \(got object\)/],
    ['box not an object', { boxes: [unitBox, 3] }, 'boxes[1]', /is not an object/],
    ['negative half extent', { boxes: [unitBox, unitBox, unitBox, box({ halfExtents: [1, -0.5, 1] })] }, 'boxes[3].halfExtents[1]', /is negative \(-0\.5\)/],
    ['1e400 (JSON Infinity)', { boxes: [box({ center: [0, Infinity, 0] })] }, 'boxes[0].center[1]', /not finite \(Infinity\).*1\.8e308/],
    ['string number', { boxes: [box({ halfExtents: [1, '2', 1] })] }, 'boxes[0].halfExtents[1]', /is not a number \(got string "2"\)/],
    ['short vector', { boxes: [box({ center: [0, 0] })] }, 'boxes[0].center', /must be an array of 3 numbers/],
    ['no axes nor rotation', { boxes: [{ center: [0, 0, 0], halfExtents: [1, 1, 1] }] }, 'boxes[0].axes', /are missing/],
    ['axes and rotation', { boxes: [box({ rotation: [0, 0, 0, 1] })] }, 'boxes[0].axes', /both given/],
    ['not orthonormal', { boxes: [box({ axes: [[1, 0, 0], [0.01, 1, 0], [0, 0, 1]] })] }, 'boxes[0].axes', /not orthonormal/],
    ['zero quaternion', { boxes: [{ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 0] }] }, 'boxes[0].rotation', /zero quaternion/],
    ['rays not an array', { boxes: [], rays: 'x' }, 'rays', /must be an array/],
    ['zero direction', { boxes: [], rays: [{ origin: [0, 0, 0], direction: [1, 0, 0] }, { origin: [0, 0, 0], direction: [1, 0, 0] }, { origin: [0, 0, 0], direction: [0, 0, 0] }] }, 'rays[2].direction', /zero vector/],
    ['negative maxDistance', { boxes: [], rays: [{ origin: [0, 0, 0], direction: [1, 0, 0], maxDistance: -1 }] }, 'rays[0].maxDistance', /is negative/],
    ['string maxDistance', { boxes: [], rays: [{ origin: [0, 0, 0], direction: [1, 0, 0], maxDistance: 'far' }] }, 'rays[0].maxDistance', /is not a number/],
    ['pairs not an array', { boxes: [unitBox], pairs: 1 }, 'pairs', /must be an array/],
    ['pair not a pair', { boxes: [unitBox], pairs: [[0, 0, 0]] }, 'pairs[0]', /two box indices/],
    ['pair index out of range', { boxes: [unitBox, unitBox], pairs: [[0, 1], [1, 2]] }, 'pairs[1][1]', /= 2 is not a box index \(0\.\.1\)/],
    ['pair index not an integer', { boxes: [unitBox, unitBox], pairs: [[0.5, 1]] }, 'pairs[0][0]', /is not a box index/],
    ['negative pair index', { boxes: [unitBox, unitBox], pairs: [[-1, 1]] }, 'pairs[0][0]', /is not a box index/],
    ['allPairs not boolean', { boxes: [], allPairs: 'yes' }, 'allPairs', /must be true or false/],
    // Finite, but beyond float32's working range on the GPU: refused rather than sent as ∞.
    ['huge finite centre', { boxes: [unitBox, box({ center: [0, 0, 1e300] })] }, 'boxes[1].center[2]', /= 1e\+300 is beyond the GPU's range: .*≤ 1000000000000000/],
    ['huge finite half extent', { boxes: [box({ halfExtents: [1, 2e15, 1] })] }, 'boxes[0].halfExtents[1]', /beyond the GPU's range/],
    ['ray origin far from the boxes', { boxes: [unitBox], rays: [{ origin: [0, -3e15, 0], direction: [1, 0, 0] }] }, 'rays[0].origin[1]', /beyond the GPU's range/],
  ])('%s → %s', (_, json, path, message) => {
    const e = sceneError(json);
    expect(e.path).toBe(path);
    expect(e.message).toMatch(message);
    if (path) {
      expect(e.message.startsWith(`${path} `)).toBe(true);
    }
  });

  it('reads 1e400 in the file as Infinity and says so', () => {
    expect(() => parseSceneText('{"boxes":[{"center":[0,0,1e400],"halfExtents":[1,1,1],"rotation":[0,0,0,1]}]}'))
      .toThrow(/^boxes\[0\]\.center\[2\] is not finite \(Infinity\)/);
  });

  it('rejects truncated JSON as a SceneError', () => {
    expect(() => parseSceneText('{"boxes": [')).toThrow(SceneError);
    expect(() => parseSceneText('')).toThrow(/not valid JSON/);
  });

  it('accepts both box forms, optional queries, null maxDistance and a byte-order mark', () => {
    const scene = parseSceneText(`\ufeff${JSON.stringify({
      boxes: [unitBox, tiltedBox],
      rays: [{ origin: [0, 0, 0], direction: [0, 0, 2], maxDistance: null }],
      pairs: [[0, 1], [1, 1]],
      allPairs: true,
      description: 'ignored quietly',
      extra: 1,
    })}`);
    expect(scene.boxes.count).toBe(2);
    expect(scene.rays?.count).toBe(1);
    expect(scene.rays?.data[6]).toBe(Infinity);
    expect(scene.rays?.data[5]).toBe(1); // direction normalised
    expect(Array.from(scene.pairs ?? [])).toEqual([0, 1, 1, 1]);
    expect(scene.allPairs).toBe(true);
    expect(scene.unknownFields).toEqual(['extra']);
    const bare = parseScene({ boxes: [] });
    expect(bare.rays).toBeUndefined();
    expect(bare.pairs).toBeUndefined();
    expect(bare.allPairs).toBe(false);
  });
});

describe('runSceneCpu', () => {
  it('answers the design example exactly', () => {
    const result = runSceneCpu(parseScene({
      boxes: [unitBox, tiltedBox],
      rays: [
        { origin: [-10, 0, 0], direction: [1, 0, 0], maxDistance: 100 },
        { origin: [0, 0.5, 0], direction: [0, 1, 0] }, // origin inside box 0
        { origin: [0, 10, 0], direction: [1, 0, 0] }, // misses everything
        { origin: [-10, 0, 0], direction: [2, 0, 0], maxDistance: 8.5 }, // stops short of t = 9
        { origin: [-10, 0, 0], direction: [1, 0, 0], maxDistance: 9 }, // a hit at exactly maxDistance counts
        { origin: [0, 0, -10], direction: [0, 0, 1], maxDistance: null },
      ],
      pairs: [[0, 1], [0, 0]],
      allPairs: true,
    }));
    expect(Object.keys(result)).toEqual(['backend', 'adapter', 'rays', 'pairs', 'allPairs']);
    expect(result.backend).toBe('cpu');
    expect(result.adapter).toBe('cpu reference (float64)');
    expect(result.rays).toEqual([
      { hit: true, box: 0, t: 9, point: [-1, 0, 0], normal: [-1, 0, 0], inside: false },
      { hit: true, box: 0, t: 0, point: [0, 0.5, 0], inside: true },
      { hit: false },
      { hit: false },
      { hit: true, box: 0, t: 9, point: [-1, 0, 0], normal: [-1, 0, 0], inside: false },
      { hit: true, box: 0, t: 9, point: [0, 0, -1], normal: [0, 0, -1], inside: false },
    ]);
    // Inside: no normal key at all (not undefined, not null).
    expect(Object.keys(result.rays?.[1] ?? {})).toEqual(['hit', 'box', 't', 'point', 'inside']);
    expect(result.pairs?.[0]?.overlap).toBe(false);
    expect(result.pairs?.[1]).toMatchObject({ overlap: true });
    expect(result.allPairs).toEqual([]);
  });

  it('includes only the queries the scene asked for', () => {
    expect(Object.keys(runSceneCpu(parseScene({ boxes: [unitBox] })))).toEqual(['backend', 'adapter']);
    expect(Object.keys(runSceneCpu(parseScene({ boxes: [unitBox], allPairs: false })))).toEqual(['backend', 'adapter']);
    expect(runSceneCpu(parseScene({ boxes: [unitBox], rays: [], pairs: [] }))).toEqual({
      backend: 'cpu', adapter: 'cpu reference (float64)', rays: [], pairs: [],
    });
  });

  it('lists every overlapping pair once, i < j, sorted', () => {
    const at = (x: number): Record<string, unknown> => ({ center: [x, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] });
    const result = runSceneCpu(parseScene({ boxes: [at(0), at(10), at(1.5), at(11), at(30)], allPairs: true }));
    expect(result.allPairs).toEqual([[0, 2], [1, 3]]);
  });

  it('finds the published SAT case separated on A1xB2 (seed-sat-case.json)', () => {
    const result = runSceneCpu(parseSceneText(readFileSync(fixtureUrl, 'utf8')));
    const [ab, ba] = result.pairs ?? [];
    expect(ab).toMatchObject({ overlap: false, axis: 'A1xB2' });
    expect(ab?.gap).toBeCloseTo(0.1467145, 5);
    // Swapping A and B never changes the decision nor the gap; the axis name swaps roles.
    expect(ba).toMatchObject({ overlap: false, axis: 'A2xB1' });
    expect(ba?.gap).toBeCloseTo(0.1467145, 5);
  });

  it('formats one entry per line as valid JSON', () => {
    const result = runSceneCpu(parseScene({ boxes: [unitBox], rays: [{ origin: [-5, 0, 0], direction: [1, 0, 0] }], pairs: [] }));
    const text = formatResult(result);
    expect(JSON.parse(text)).toEqual(result);
    expect(text.split('\n')).toContain('    {"hit":true,"box":0,"t":4,"point":[-1,0,0],"normal":[-1,0,0],"inside":false}');
  });
});

describe('compareScene (what verify reports)', () => {
  const scene = parseScene({
    boxes: [unitBox, tiltedBox],
    rays: [{ origin: [-10, 0, 0], direction: [1, 0, 0] }, { origin: [0, 10, 0], direction: [1, 0, 0] }],
    pairs: [[0, 1]],
    allPairs: true,
  });

  /** The reference's answers dressed as GPU raw results (float32 numbers), optionally edited. */
  function fakeGpu(edit: (raw: { box: number[]; allPairs: number[] }) => void = () => {}): GpuSceneRaw {
    const ref = runReference(scene);
    const hits = ref.hits;
    const pairs = ref.pairs;
    if (!hits || !pairs || !ref.allPairs) {
      throw new Error('reference skipped a query');
    }
    const box = Array.from(hits.box);
    const allPairs = Array.from(ref.allPairs);
    edit({ box, allPairs });
    return {
      adapter: 'test double',
      origin: [0, 0, 0],
      rays: {
        box,
        t: Array.from(hits.t, (t, r) => (box[r] === -1 ? 0 : Math.fround(t))),
        face: Array.from(hits.face),
        inside: Array.from(hits.inside),
        normal: new Array<number>(3 * hits.count).fill(0),
      },
      pairs: { overlap: Array.from(pairs.overlap), gap: Array.from(pairs.gap, Math.fround), axis: Array.from(pairs.axis) },
      allPairs,
    };
  }

  it('agrees with the reference on the reference answers', () => {
    const cmp = compareScene(scene, fakeGpu());
    expect(cmp.ok).toBe(true);
    expect(cmp.comparisons.map((c) => c.family)).toEqual(['closestHit', 'obbPairs', 'allPairs']);
    expect(cmp.total).toBe(2 + 1 + 1);
    const report = formatSceneComparison('scene.json', scene, 'test double', cmp);
    expect(report).toMatch(/^scene: scene\.json \(2 boxes, 2 rays, 1 pair, all pairs\)$/m);
    expect(report).toMatch(/^OK: 0 mismatch, 0 ambiguous in 4 cases/m);
  });

  it('counts a wrong box and a phantom pair as mismatches', () => {
    const cmp = compareScene(scene, fakeGpu((raw) => {
      raw.box[0] = 1; // box 1 is behind box 0 on ray 0
      raw.allPairs.push(0, 1); // boxes 0 and 1 are far apart
    }));
    expect(cmp.ok).toBe(false);
    expect(cmp.mismatch).toBe(2);
    const report = formatSceneComparison('scene.json', scene, 'test double', cmp);
    expect(report).toMatch(/^FAIL: 2 mismatch/m);
    expect(report).toMatch(/MISMATCH wrong-box/);
  });

  it('writes the GPU\'s float32 numbers as the shortest decimal that reads back as the same float32', () => {
    const raw = fakeGpu();
    const gap = Math.fround(1.8786797523498535);
    const result = sceneResultFromGpu(scene, { ...raw, pairs: { ...raw.pairs!, gap: [gap] } });
    expect(result.pairs?.[0]?.gap).toBe(1.8786798);
    const first = result.rays?.[0];
    expect(first && first.hit ? first.t : undefined).toBe(9);
    for (let k = 0; k < 10_000; k++) {
      const x = Math.fround((Math.random() - 0.5) * 10 ** (Math.random() * 12 - 6));
      const y = shortestFloat32(x);
      expect(Math.fround(y)).toBe(x);
      expect(String(y).replace(/^-|e.*$|\./g, '').replace(/^0+/, '').length).toBeLessThanOrEqual(9);
    }
  });

  it('refuses GPU results that do not cover the scene', () => {
    const raw = fakeGpu();
    const rays = raw.rays;
    if (!rays) {
      throw new Error('fakeGpu gave no rays');
    }
    expect(() => compareScene(scene, { ...raw, rays: { ...rays, box: [0] } })).toThrow(/1 closest hits for 2 rays/);
  });
});

describe('main (in process)', () => {
  function capture(): CliIo & { stdout: string; stderr: string } {
    const io = {
      stdout: '',
      stderr: '',
      out: (text: string) => {
        io.stdout += text;
      },
      err: (text: string) => {
        io.stderr += text;
      },
    };
    return io;
  }

  it.each([
    [[], /Usage:/],
    [['frob', 'x.json'], /unknown command 'frob'/],
    [['run'], /run needs a scene file/],
    [['run', 'a.json', 'b.json'], /unexpected argument 'b\.json'/],
    [['run', 'a.json', '--backend', 'tpu'], /--backend must be gpu or cpu/],
    [['run', 'a.json', '--bogus'], /unknown option '--bogus' \(see webgpu-obb --help\)$/m],
    [['verify', 'a.json', '--backend', 'cpu'], /drop --backend/],
    [['verify', 'a.json', '--out', 'r.json'], /--out is for run/],
    [['run', 'a.json', '--accel', 'kd-tree'], /--accel must be auto, bvh or brute/],
    [['run', 'a.json', '--accel', 'bvh', '--backend', 'cpu'], /--accel is for the GPU backend/],
    [['run', 'a.json', '--adapter', 'nvidia'], /--adapter must be swiftshader or default/],
    [['run', 'a.json', '--adapter', 'default', '--backend', 'cpu'], /--adapter is for the GPU backend/],
  ])('%j is a usage error (exit 2)', async (argv, message) => {
    const io = capture();
    expect(await main(argv, io)).toBe(2);
    expect(io.stderr).toMatch(message);
    expect(io.stdout).toBe('');
  });

  it('prints --help and --version on stdout', async () => {
    const help = capture();
    expect(await main(['--help'], help)).toBe(0);
    expect(help.stdout).toMatch(/webgpu-obb run SCENE\.json \[--backend gpu\|cpu\] \[--out RESULT\.json\] \[--browser PATH\]/);
    const version = capture();
    expect(await main(['--version'], version)).toBe(0);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(version.stdout).toBe(`${pkg.version}\n`);
  });
});

describe('webgpu-obb (built command, --backend cpu)', () => {
  let dir = '';

  beforeAll(() => {
    if (!existsSync(join(root, 'dist', 'cli.js'))) {
      throw new Error('dist/cli.js is missing: run `npm run build` first (`npm test` does it for you)');
    }
    warnIfStale();
    dir = mkdtempSync(join(tmpdir(), 'webgpu-obb-cli-'));
  });

  afterAll(() => {
    if (dir) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
    const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  function write(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }

  const scene = { boxes: [unitBox, tiltedBox], rays: [{ origin: [-10, 0, 0], direction: [1, 0, 0], maxDistance: 100 }], pairs: [[0, 1]], allPairs: true };
  /** What `run --backend cpu` writes for the scene file `text`: the reference's answers and the file's SHA-256. */
  const cpuResult = (text: string): SceneResult => ({
    ...runSceneCpu(parseScene(JSON.parse(text))), scene: `sha256:${createHash('sha256').update(text).digest('hex')}`,
  });

  it('runs a scene and prints the result JSON on stdout only', () => {
    const file = write('scene.json', JSON.stringify(scene));
    const r = cli('run', file, '--backend', 'cpu');
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as SceneResult;
    expect(result).toEqual(cpuResult(JSON.stringify(scene)));
    expect(result.rays?.[0]).toEqual({ hit: true, box: 0, t: 9, point: [-1, 0, 0], normal: [-1, 0, 0], inside: false });
    expect(r.stderr).toMatch(/done in/);
    const quiet = cli('run', file, '--backend', 'cpu', '--quiet');
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toBe(r.stdout);
  });

  it('runs the published SAT fixture file (its extra fields, expected and randomSuite, need --lenient)', () => {
    expect(cli('run', fileURLToPath(fixtureUrl), '--backend', 'cpu', '-q').code).toBe(2);
    const r = cli('run', fileURLToPath(fixtureUrl), '--backend', 'cpu', '-q', '--lenient');
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as SceneResult;
    expect(result.pairs?.[0]?.axis).toBe('A1xB2');
    expect(result.pairs?.[0]?.gap).toBeCloseTo(0.1467145, 5);
  });

  it('writes --out atomically and leaves no temporary file behind', () => {
    const file = write('scene-out.json', JSON.stringify(scene));
    const out = join(dir, 'result.json');
    const r = cli('run', file, '--backend', 'cpu', '--out', out, '-q');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(cpuResult(JSON.stringify(scene)));
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const bad = cli('run', file, '--backend', 'cpu', '--out', join(dir, 'no-such-dir', 'r.json'));
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toMatch(/^webgpu-obb: --out .*: cannot write to .* \(no such file\)$/);
  });

  const malformed: [string, string, RegExp][] = [
    ['truncated JSON', '{"boxes": [{"center": [0, 0', /scene\.json: not valid JSON \(/],
    ['empty file', '', /not valid JSON/],
    ['wrong type', '{"boxes": [{"center": [0, 0, 0], "halfExtents": [1, 1, "1"], "rotation": [0, 0, 0, 1]}]}', /boxes\[0\]\.halfExtents\[2\] is not a number/],
    ['missing field', '{"rays": []}', /boxes is missing/],
    ['missing box field', '{"boxes": [{"center": [0, 0, 0], "rotation": [0, 0, 0, 1]}]}', /boxes\[0\]\.halfExtents is missing/],
    ['huge number', '{"boxes": [{"center": [0, 0, 1e400], "halfExtents": [1, 1, 1], "rotation": [0, 0, 0, 1]}]}', /boxes\[0\]\.center\[2\] is not finite \(Infinity\)/],
    ['negative half extent', `{"boxes": [${JSON.stringify(unitBox)}, {"center": [0, 0, 0], "halfExtents": [1, -0.5, 1], "rotation": [0, 0, 0, 1]}]}`, /boxes\[1\]\.halfExtents\[1\] is negative \(-0\.5\)/],
    ['pair index out of range', `{"boxes": [${JSON.stringify(unitBox)}], "pairs": [[0, 1]]}`, /pairs\[0\]\[1\] = 1 is not a box index \(0\.\.0\)/],
    ['zero ray direction', `{"boxes": [], "rays": [{"origin": [0, 0, 0], "direction": [0, 0, 0]}]}`, /rays\[0\]\.direction is the zero vector/],
    ['huge finite number', '{"boxes": [{"center": [0, 0, 0], "halfExtents": [1, 1, 1], "rotation": [0, 0, 0, 1]}, {"center": [0, -1e300, 0], "halfExtents": [1, 1, 1], "rotation": [0, 0, 0, 1]}]}', /boxes\[1\]\.center\[1\] = -1e\+300 is beyond the GPU's range/],
    ['wrong top-level type', '[{"center": [0, 0, 0]}]', /must be a JSON object/],
    ['boxes of the wrong type', '{"boxes": "many"}', /boxes must be an array \(got string "many"\)/],
  ];

  it.each(malformed)('%s → exit 2 with one line and no stack trace', (_, text, message) => {
    write('scene.json', text);
    const r = cli('run', 'scene.json', '--backend', 'cpu');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^webgpu-obb: scene\.json: /);
    expect(lines[0]).toMatch(message);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it('refuses unknown top-level fields with exit 2 naming them, even with -q; --lenient warns and runs', () => {
    const text = JSON.stringify({ ...scene, lidar: {}, frustum: [], description: 'ok: a known quiet field' });
    write('scene.json', text);
    const r = cli('run', 'scene.json', '--backend', 'cpu', '-q');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe('webgpu-obb: scene.json: unknown field(s) lidar, frustum (a scene has boxes, rays, pairs, allPairs, lidars; --lenient ignores the rest)');
    const lenient = cli('run', 'scene.json', '--backend', 'cpu', '-q', '--lenient');
    expect(lenient.code, lenient.stderr).toBe(0);
    expect(lenient.stderr.trim()).toBe('webgpu-obb: warning: scene.json: ignoring unknown field(s) lidar, frustum');
    expect(JSON.parse(lenient.stdout)).toEqual({ ...runSceneCpu(parseScene(scene)), scene: cpuResult(text).scene });
  });

  it('reports an unreadable scene file with exit 2', () => {
    const r = cli('run', 'missing.json', '--backend', 'cpu');
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('webgpu-obb: missing.json: cannot read the scene (no such file)');
  });

  it('reports a missing browser with exit 3 and how to fix it', () => {
    write('scene.json', JSON.stringify(scene));
    const r = spawnSync(process.execPath, [bin, 'run', 'scene.json', '-q'], {
      cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, CHROME_PATH: join(dir, 'no-chromium') },
    });
    expect(r.status).toBe(3);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/CHROME_PATH/);
    expect(lines[0]).toMatch(/apt-get install -y chromium/);
  });

  it('builds a browser page that imports nothing but its own chunks', () => {
    // dist/page.js runs in Chromium with no import map: every import must be relative.
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) {
        return;
      }
      seen.add(file);
      const code = readFileSync(join(root, 'dist', file), 'utf8');
      for (const m of code.matchAll(/(?:\bimport|\bexport)\s*(?:[\w*{}\s,$]*?\sfrom\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g)) {
        const spec = m[1] ?? m[2] ?? '';
        expect(spec, `${file} imports '${spec}'`).toMatch(/^\.\//);
        visit(spec.slice(2));
      }
    };
    visit('page.js');
    expect(seen.size).toBeGreaterThan(1);
  });
});

describe('what the CPU backend cannot hold (in process)', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'webgpu-obb-capacity-'));
  });
  afterAll(() => {
    if (dir) {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  /** Exit code and the lines of stderr (stdout must stay empty). */
  async function refused(...argv: string[]): Promise<{ code: number; lines: string[] }> {
    const r = await runCli(...argv);
    expect(r.out).toBe('');
    return { code: r.code, lines: r.err.trimEnd().split('\n') };
  }

  it('refuses the 181-byte scene of one channel × 1e9 columns at once: exit 2, one line naming the value and the product', async () => {
    // It ran 56 s to 4.6 GB and V8 aborted (exit 134); 1e12 columns said "Invalid typed array length".
    const text = '{"boxes":[{"center":[0,0,0],"halfExtents":[1,1,1],"rotation":[0,0,0,1]}],"lidars":[{"sensor":{"elevationsDeg":[0],"columns":1000000000,"maxRange":100},"pose":{"position":[0,0,0]}}]}';
    expect(text.length).toBe(181);
    const file = join(dir, 'sweep-1e9.json');
    writeFileSync(file, text);
    for (const argv of [['run', file, '--backend', 'cpu'], ['run', file, '--backend', 'cpu', '-q'], ['verify', file]]) {
      const r = await refused(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.lines).toEqual([`webgpu-obb: ${file}: lidars[0].sensor.columns is too many: 1 channel × 1000000000 columns = 1000000000 rays per sweep, more than any backend holds (268435456 = 2^28)`]);
    }
    writeFileSync(file, text.replace('1000000000', '1000000000000'));
    expect((await refused('run', file, '--backend', 'cpu')).lines[0]).toMatch(/lidars\[0\]\.sensor\.columns is too many: 1 channel × 1000000000000 columns = 1000000000000 rays per sweep/);
  });

  it('refuses a sweep the GPU might run but the CPU reference cannot hold, before running either (run --backend cpu, verify)', async () => {
    const file = join(dir, 'sweep-2e7.json');
    writeFileSync(file, JSON.stringify({ boxes: [unitBox], lidars: [{ sensor: { elevationsDeg: [-10, 0, 10, 20], columns: 5_000_000, maxRange: 100 }, pose: { position: [0, 0, 3] } }] }));
    const line = `webgpu-obb: ${file}: lidars[0].sensor.columns: 4 channels × 5000000 columns = 20000000 rays per sweep is more than the CPU reference holds (16777216 = 2^24)`;
    for (const argv of [['run', file, '--backend', 'cpu', '-q'], ['verify', file, '-q']]) {
      const r = await refused(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.lines).toEqual([line]);
    }
    const loud = await refused('run', file, '--backend', 'cpu');
    expect(loud.lines.at(-1)).toBe(line);
    expect(loud.lines).toHaveLength(2); // "scene: …", then the refusal: nothing was computed
  });
});
