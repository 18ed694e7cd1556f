/**
 * LiDAR in the file formats and the commands (CPU): scene files' `lidars` (presets by name,
 * sensors in degrees, poses, poseEnd) and moving boxes, refused in one line naming the value;
 * result files' `lidars` written by the reference, judged clean, and corrupted in known ways
 * (a wrong box, a range off by 1%, a count off, a missing sweep, a return without a box), each
 * found exactly; `run --lidar-out` writing PCD, PLY and KITTI files that read back. And the
 * reference's own motion: the boxes at a column's time and the sensor's path.
 */
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { PCDLoader } from 'three/examples/jsm/loaders/PCDLoader.js';
import { parseScene, SceneError } from '../../src/files/scene.ts';
import { judgeScene, ResultError, runReference } from '../../src/judge/index.ts';
import { sceneResultFromCpu, type SceneResult } from '../../src/files/results.ts';
import { formatResult } from '../../src/cli/main.ts';
import { heartbeat } from '../../src/cli/run.ts';
import { runCli as run } from './cliRun.ts';
import { lidarPreset } from '../../src/core/lidarPresets.ts';
import { boxAtTime, columnFrames } from '../../src/core/lidar.ts';
import { lidarPointFields, lidarRays, lidarSweepReference } from '../../src/reference/lidar.ts';
import { passesProgress, phaseProgress, sceneMotion } from '../../src/judge/judge.ts';
import { packPointRecords, writePcd, writePly, type PointCloudOptions } from '../../src/files/pointCloud.ts';
import { lidarSweepCloud } from '../../src/lidar/sweepCloud.ts';
import { lidarGroundTruth, writeGroundTruthJson, writeOpenPcdetLabels } from '../../src/files/groundTruth.ts';
import { McapIndexedReader, TempBuffer } from '@mcap/core';
import { parse as parseMsg } from '@foxglove/rosmsg';
import { MessageReader } from '@foxglove/rosmsg2-serialization';

const deg = Math.PI / 180;

function sceneJson(): Record<string, unknown> {
  return {
    boxes: [
      { center: [10, 0, 0], halfExtents: [2, 1, 1], rotation: [0, 0, 0, 1], velocity: [0, 5, 0] },
      { center: [0, 12, 0.5], halfExtents: [1, 3, 2], rotation: [0, 0, 0.3826834, 0.9238795], angularVelocity: [0, 0, 2] },
      { center: [-8, -8, 0], halfExtents: [1.5, 1.5, 3], rotation: [0, 0, 0, 1] },
      { center: [0, 0, -2.5], halfExtents: [50, 50, 0.5], rotation: [0, 0, 0, 1] },
      { center: [0.45, 0, 0], halfExtents: [0.05, 0.4, 0.4], rotation: [0, 0, 0, 1] },
    ],
    lidars: [
      {
        sensor: { elevationsDeg: [-15, -10, -5, 0, 5, 10, 15], columns: 180, maxRange: 100, minRange: 0.5, sweepTime: 0.1, azimuthOffsetsDeg: [0, 1, 0, -1, 0, 1, 0], beamOriginOffset: 0.015 },
        pose: { position: [0, 0, 0], rotation: [0, 0, 0, 1] }, poseEnd: { position: [2, 0, 0] },
      },
      { sensor: 'velodyne-vlp16', pose: { position: [0, 0, 1.5] } },
    ],
  };
}

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

/** Where two byte strings first differ (−1: equal, including their lengths); fast on large files, unlike toEqual. */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) {
      return i;
    }
  }
  return a.length === b.length ? -1 : n;
}

describe('scene files: lidars and moving boxes', () => {
  it('reads sensors in degrees, presets by name, poses and the moving boxes', () => {
    const scene = parseScene(sceneJson());
    expect(scene.lidars).toHaveLength(2);
    const [custom, preset] = scene.lidars!;
    expect(custom!.name).toBe('custom');
    expect(custom!.desc.elevations[0]).toBeCloseTo(-15 * deg, 15);
    expect(custom!.desc.azimuthOffsets![1]).toBeCloseTo(1 * deg, 15);
    expect(custom!.desc.azimuthSteps).toBe(180);
    expect(custom!.poseEnd).toEqual({ origin: [2, 0, 0] });
    expect(preset!.name).toBe('velodyne-vlp16');
    expect(preset!.desc).toEqual(lidarPreset('velodyne-vlp16'));
    expect(scene.boxMotion).toEqual({ boxes: [0, 1], velocity: [0, 5, 0, 0, 0, 0], angularVelocity: [0, 0, 0, 0, 0, 2] });
    expect(scene.unknownFields).toEqual([]);
  });

  it('refuses a bad sweep in one line naming the value', () => {
    const cases: [(j: Record<string, unknown>) => void, string][] = [
      [(j) => { (j['lidars'] as Record<string, unknown>[])[0]!['sensor'] = { ...((j['lidars'] as Record<string, Record<string, unknown>>[])[0]!['sensor']), azimuthOffsetDeg: [0] }; }, 'lidars[0].sensor has unknown key "azimuthOffsetDeg"'],
      [(j) => { ((j['lidars'] as Record<string, Record<string, unknown[]>>[])[0]!['sensor']!['elevationsDeg']!)[2] = 90; }, 'lidars[0].sensor.elevationsDeg [2] must be strictly inside ±π/2 radians'],
      [(j) => { (j['lidars'] as Record<string, unknown>[])[1]!['sensor'] = 'VLP-16'; }, 'lidars[1].sensor is not a known sensor ("VLP-16"; known: velodyne-vlp16,'],
      [(j) => { delete (j['lidars'] as Record<string, unknown>[])[1]!['pose']; }, 'lidars[1].pose is missing'],
      [(j) => { (j['lidars'] as Record<string, unknown>[])[1]!['pose'] = { position: [0, 0], rotation: [0, 0, 0, 1] }; }, 'lidars[1].pose.position must be an array of 3 numbers'],
      [(j) => { (j['lidars'] as Record<string, unknown>[])[1]!['pose'] = { origin: [0, 0, 0] }; }, 'lidars[1].pose has unknown key "origin"'],
      [(j) => { ((j['lidars'] as Record<string, Record<string, unknown>>[])[0]!['sensor']!['columns']) = 0; }, 'lidars[0].sensor.columns must be a positive integer (got 0)'],
      [(j) => { ((j['lidars'] as Record<string, Record<string, unknown>>[])[0]!['sensor']!['minRange']) = 200; }, 'lidars[0].sensor.minRange must be finite, >= 0 and <= maxRange (100)'],
      [(j) => { ((j['boxes'] as Record<string, unknown>[])[2]!['velocity']) = [1, 'x', 0]; }, 'boxes[2].velocity[1] is not a finite number (got string "x")'],
      [(j) => { j['lidars'] = {}; }, 'lidars must be an array of { "sensor", "pose", "poseEnd"? }'],
    ];
    for (const [edit, message] of cases) {
      const json = sceneJson();
      edit(json);
      let caught: unknown;
      try {
        parseScene(json);
      } catch (error) {
        caught = error;
      }
      expect(caught, message).toBeInstanceOf(SceneError);
      expect((caught as Error).message.startsWith(message), `${(caught as Error).message} ≠ ${message}`).toBe(true);
      expect((caught as Error).message).not.toContain('\n');
    }
  });
});

describe('result files: lidars judged', () => {
  const scene = parseScene(sceneJson());
  const good = sceneResultFromCpu(scene, runReference(scene));
  const someReturn = (r: SceneResult, k: number, boxIs?: number): number => r.lidars![k]!.box.findIndex((b, i) => b >= 0 && (boxIs === undefined || b === boxIs) && r.lidars![k]!.range[i]! > 3);

  it('the reference\'s own file is clean; its counts are those of its images; minRange drops the box at 0.4 m', () => {
    const v = judgeScene(scene, JSON.parse(formatResult(good)));
    expect(v.mismatch).toBe(0);
    expect(v.ambiguous).toBe(0);
    expect(v.comparisons.map((c) => c.family)).toEqual(['lidar[0]', 'lidar[0].returnsPerBox', 'lidar[1]', 'lidar[1].returnsPerBox']);
    expect(v.total).toBe(7 * 180 + 5 + 16 * 1808 + 5);
    const l = good.lidars![0]!;
    for (let b = 0; b < 5; b++) {
      expect(l.returnsPerBox[b]).toBe(l.box.filter((x) => x === b).length);
    }
    // Box 4 sits 0.4 m in front of the sensor's start: no return is nearer than minRange (0.5), and
    // without minRange the first columns would return it nearer.
    expect(l.range.every((t) => t === -1 || t >= 0.5)).toBe(true);
    const noMin = clone(sceneJson());
    delete ((noMin['lidars'] as Record<string, Record<string, unknown>>[])[0]!['sensor']!['minRange']);
    const without = sceneResultFromCpu(parseScene(noMin), runReference(parseScene(noMin))).lidars![0]!;
    expect(without.range.filter((t, r) => t >= 0 && t < 0.5 && without.box[r] === 4).length).toBeGreaterThan(5);
  });

  it('a wrong box, a range off by 1% and a count off are found, exactly', () => {
    const bad = clone(good);
    const r1 = someReturn(good, 0, 3);
    const r2 = someReturn(good, 0, 2);
    bad.lidars![0]!.box[r1] = 2;
    bad.lidars![0]!.returnsPerBox[3]!--;
    bad.lidars![0]!.returnsPerBox[2]!++;
    bad.lidars![0]!.range[r2] = bad.lidars![0]!.range[r2]! * 1.01;
    bad.lidars![1]!.returnsPerBox[0]! += 3;
    const v = judgeScene(scene, JSON.parse(formatResult(bad)));
    const [rays0, counts0, rays1, counts1] = v.comparisons;
    expect(rays0!.mismatchByReason).toEqual({ 'wrong-box': 1, 't-error': 1 });
    expect(rays0!.cases.map((c) => c.index).sort((a, b) => a - b)).toEqual([r1, r2].sort((a, b) => a - b));
    expect(rays0!.cases[0]!.detail).toMatch(/^ray \d+ \(channel \d, column \d+\): /);
    // The counts agree with the file's own (changed) image for box 2 and 3, so they are mismatches against the reference.
    expect(counts0!.mismatchByReason).toEqual({ 'return-count': 2 });
    expect(rays1!.mismatch).toBe(0);
    expect(counts1!.mismatchByReason).toEqual({ 'return-count': 1 });
    expect(v.mismatch).toBe(5);
  });

  it('malformed sweeps are named by path', () => {
    const edits: [(r: SceneResult) => void, string][] = [
      [(r) => { delete (r as { lidars?: unknown }).lidars; }, 'lidars is missing: the scene asks for LiDAR sweeps'],
      [(r) => { r.lidars!.pop(); }, 'lidars has 1 sweeps; the scene has 2'],
      [(r) => { (r.lidars![0] as { channels: number }).channels = 8; }, "lidars[0] is 8 channels × 180 columns; the scene's sensor has 7 × 180"],
      [(r) => { r.lidars![1]!.range.pop(); }, 'lidars[1].range has 28927 ranges; the scene has 28928'],
      [(r) => { r.lidars![0]!.box[someReturn(good, 0)] = -1; }, `lidars[0].range[${someReturn(good, 0)}] = `],
      [(r) => { r.lidars![0]!.box[0] = 9; }, 'lidars[0].box[0] is not a box index (0..4; got 9)'],
      [(r) => { r.lidars![0]!.returnsPerBox[1] = 1.5; }, 'lidars[0].returnsPerBox[1] is not a count (got 1.5)'],
    ];
    for (const [edit, message] of edits) {
      const r = clone(good);
      edit(r);
      expect(() => judgeScene(scene, JSON.parse(formatResult(r))), message).toThrow(ResultError);
      expect(() => judgeScene(scene, JSON.parse(formatResult(r)))).toThrow(message);
    }
  });
});

describe('run --lidar-out', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'obb-lidar-'));
    writeFileSync(join(dir, 'scene.json'), JSON.stringify(sceneJson()));
  });

  it('writes one point cloud per sweep, in each format, that reads back with the sweep\'s returns', async () => {
    const scene = parseScene(sceneJson());
    const result = sceneResultFromCpu(scene, runReference(scene));
    const returns = result.lidars!.map((l) => l.box.filter((b) => b >= 0).length);
    for (const format of ['pcd', 'ply', 'kitti'] as const) {
      const out = join(dir, format);
      const r = await run('run', join(dir, 'scene.json'), '--backend', 'cpu', '--out', join(dir, `${format}.json`), '--lidar-out', out, '--lidar-format', format);
      expect(r.code, r.err).toBe(0);
      const ext = format === 'kitti' ? 'bin' : format;
      expect(readdirSync(out).sort()).toEqual([`lidar-0.${ext}`, `lidar-1.${ext}`]);
      expect(r.err).toContain(`wrote ${join(out, `lidar-1.${ext}`)} (${returns[1]} points, ${format}, sensor frame)`);
      for (const k of [0, 1]) {
        const bytes = readFileSync(join(out, `lidar-${k}.${ext}`));
        if (format === 'kitti') {
          expect(bytes.length).toBe(16 * returns[k]!);
        } else if (format === 'pcd') {
          const points = new PCDLoader().parse(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
          expect(points.geometry.getAttribute('position').count).toBe(returns[k]);
        } else {
          expect(bytes.subarray(0, 1000).toString('latin1')).toContain(`element vertex ${returns[k]}`);
        }
      }
    }
  });

  /** The API's per-point fields of sweep k by the float64 reference, as `sweep.fields` gives them. */
  const referenceClouds = () => {
    const scene = parseScene(sceneJson());
    return scene.lidars!.map((l) => {
      const ref = lidarSweepReference(scene.boxes, l.desc, l.pose, sceneMotion(scene, l));
      return { l, ref, cloud: lidarPointFields(scene.boxes, l.desc, l.pose, sceneMotion(scene, l), ref.range, ref.box), boxes: scene.boxes };
    });
  };

  it('--lidar-ring, --lidar-time, --lidar-organized, --lidar-ground-truth: each file is the API writer\'s bytes for the sweep\'s own values', async () => {
    const out = join(dir, 'conventions');
    const r = await run('run', join(dir, 'scene.json'), '--backend', 'cpu', '--out', join(dir, 'conventions.json'), '--lidar-out', out,
      '--lidar-ring', 'elevation', '--lidar-time', 'nanoseconds', '--lidar-organized', '--lidar-ground-truth');
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['lidar-0.json', 'lidar-0.pcd', 'lidar-0.txt', 'lidar-1.json', 'lidar-1.pcd', 'lidar-1.txt']);
    for (const [k, { l, ref, cloud, boxes }] of referenceClouds().entries()) {
      const options: PointCloudOptions = { ring: 'elevation', elevations: l.desc.elevations, time: 'nanoseconds', organized: true };
      expect(firstDifference(readFileSync(join(out, `lidar-${k}.pcd`)), writePcd(cloud, options))).toBe(-1);
      const truth = lidarGroundTruth(boxes, l.pose, ref.returnsPerBox);
      expect(truth.length).toBeGreaterThan(0);
      expect(readFileSync(join(out, `lidar-${k}.txt`), 'utf8')).toBe(writeOpenPcdetLabels(truth, ['Box']));
      expect(readFileSync(join(out, `lidar-${k}.json`), 'utf8')).toBe(writeGroundTruthJson(truth, { classNames: ['Box'], frameId: `lidar_${k}` }));
      expect(r.err).toContain(`wrote ${join(out, `lidar-${k}.txt`)} and ${join(out, `lidar-${k}.json`)} (${truth.length} boxes seen)`);
    }
    const ply = join(dir, 'autoware');
    expect((await run('run', join(dir, 'scene.json'), '--backend', 'cpu', '--out', join(dir, 'autoware.json'), '--lidar-out', ply, '--lidar-format', 'ply', '--lidar-layout', 'autoware')).code).toBe(0);
    for (const [k, { cloud }] of referenceClouds().entries()) {
      expect(firstDifference(readFileSync(join(ply, `lidar-${k}.ply`)), writePly(cloud, { layout: 'autoware' }))).toBe(-1);
    }
  });

  it('--lidar-format mcap: one recording of every sweep, read back by @mcap/core, points as the API packs them', async () => {
    const out = join(dir, 'mcap');
    const r = await run('run', join(dir, 'scene.json'), '--backend', 'cpu', '--out', join(dir, 'mcap.json'), '--lidar-out', out, '--lidar-format', 'mcap', '--lidar-ground-truth', '--lidar-layout', 'autoware');
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(out)).toEqual(['lidar.mcap']);
    const clouds = referenceClouds();
    const points = clouds.reduce((n, c) => n + c.cloud.box.filter((b) => b >= 0).length, 0);
    expect(r.err).toContain(`wrote ${join(out, 'lidar.mcap')} (2 sweeps, ${points} points, 6 messages, sensor frame)`);
    const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(readFileSync(join(out, 'lidar.mcap'))) });
    expect(reader.header.profile).toBe('ros2');
    const topics = new Map([...reader.channelsById].map(([id, ch]) => [id, ch]));
    const decoders = new Map([...reader.schemasById].map(([id, sc]) => [id, new MessageReader(parseMsg(new TextDecoder().decode(sc.data), { ros2: true }))]));
    const seen: string[] = [];
    for await (const m of reader.readMessages()) {
      const ch = topics.get(m.channelId)!;
      seen.push(ch.topic);
      const message = decoders.get(ch.schemaId)!.readMessage<Record<string, unknown>>(m.data);
      const k = Number(/lidar_(\d)/.exec(ch.topic)?.[1] ?? -1);
      if (ch.topic.endsWith('/points')) {
        const { cloud } = clouds[k]!;
        expect(firstDifference(message['data'] as Uint8Array, packPointRecords(cloud, { layout: 'autoware' }).data)).toBe(-1);
        expect((message['header'] as { frame_id: string }).frame_id).toBe(`lidar_${k}`);
      }
      if (ch.topic.endsWith('/ground_truth')) {
        const { l, ref, boxes } = clouds[k]!;
        expect((message['entities'] as unknown[]).length).toBe(lidarGroundTruth(boxes, l.pose, ref.returnsPerBox).length);
      }
    }
    expect(seen).toEqual(['/tf', '/lidar_0/points', '/lidar_0/ground_truth', '/tf', '/lidar_1/points', '/lidar_1/ground_truth']);
  });

  it('the GPU backend (Dawn in Node) writes the API\'s float32 values, not points rebuilt from the result file\'s rounded decimals', async () => {
    const { createNodeGpu } = await import('../../src/node/runtime.ts');
    const scene = parseScene(sceneJson());
    const out = join(dir, 'gpu');
    const r = await run('run', join(dir, 'scene.json'), '--runtime', 'node', '--out', join(dir, 'gpu.json'), '--lidar-out', out, '--lidar-frame', 'world');
    expect(r.code, r.err).toBe(0);
    const result = JSON.parse(readFileSync(join(dir, 'gpu.json'), 'utf8')) as SceneResult;
    const gpu = await createNodeGpu({ driver: 'swiftshader' });
    try {
      const set = gpu.createBoxSet(scene.boxes);
      let differs = 0;
      for (const [k, l] of scene.lidars!.entries()) {
        const sensor = await gpu.createLidar(l.desc);
        const sweep = await gpu.lidarSweep(sensor, set, l.pose, { ...sceneMotion(scene, l), fields: true });
        // The API's own fields, written by the API's writer: the CLI's file, byte for byte.
        expect(firstDifference(readFileSync(join(out, `lidar-${k}.pcd`)), writePcd(sweep.fields!, { frame: 'world' }))).toBe(-1);
        // What the CLI wrote before: points rebuilt from the result file's shortest decimals.
        const rounded = lidarPointFields(scene.boxes, l.desc, l.pose, sceneMotion(scene, l), result.lidars![k]!.range, result.lidars![k]!.box);
        differs += sweep.fields!.worldXyz.filter((x, i) => sweep.box[Math.floor(i / 3)]! >= 0 && x !== rounded.worldXyz[i]).length;
        sensor.destroy();
      }
      expect(differs).toBeGreaterThan(0);
    } finally {
      gpu.destroy();
    }
  }, 120_000);

  it('refuses options that do not go together, in one line', async () => {
    const scene = join(dir, 'scene.json');
    expect((await run('run', scene, '--backend', 'cpu', '--lidar-format', 'ply')).err).toBe('webgpu-obb: --lidar-format needs --lidar-out DIR\n');
    expect((await run('run', scene, '--backend', 'cpu', '--lidar-out', dir, '--lidar-format', 'las')).err).toBe("webgpu-obb: --lidar-format must be pcd, ply, kitti or mcap (got 'las')\n");
    expect((await run('run', scene, '--backend', 'cpu', '--lidar-out', dir, '--lidar-format', 'kitti', '--lidar-frame', 'world')).err)
      .toBe('webgpu-obb: KITTI .bin files are float32 in the sensor frame; --lidar-frame world needs pcd or ply\n');
    expect((await run('verify', scene, '--lidar-out', dir)).code).toBe(2);
    const refused: [string[], string][] = [
      [['--lidar-organized'], '--lidar-organized needs --lidar-out DIR'],
      [['--lidar-ground-truth'], '--lidar-ground-truth needs --lidar-out DIR'],
      [['--lidar-out', dir, '--lidar-ring', 'rank'], "--lidar-ring must be laser or elevation (got 'rank')"],
      [['--lidar-out', dir, '--lidar-time', 'ms'], "--lidar-time must be seconds or nanoseconds (got 'ms')"],
      [['--lidar-out', dir, '--lidar-layout', 'ouster'], "--lidar-layout must be default or autoware (got 'ouster')"],
      [['--lidar-out', dir, '--lidar-format', 'kitti', '--lidar-time', 'nanoseconds'], 'KITTI .bin files hold x y z reflectance only; --lidar-time needs pcd, ply or mcap'],
      [['--lidar-out', dir, '--lidar-format', 'kitti', '--lidar-organized'], 'KITTI .bin files hold x y z reflectance only; --lidar-organized needs pcd, ply or mcap'],
      [['--lidar-out', dir, '--lidar-layout', 'autoware', '--lidar-frame', 'world'], '--lidar-layout autoware is PointXYZIRCAEDT, float32 x y z in the sensor frame; drop --lidar-frame world'],
      [['--lidar-out', dir, '--lidar-layout', 'autoware', '--lidar-time', 'seconds'], '--lidar-layout autoware stores time_stamp as uint32 nanoseconds; drop --lidar-time seconds'],
    ];
    for (const [options, message] of refused) {
      const r = await run('run', scene, '--backend', 'cpu', ...options);
      expect(r.code, options.join(' ')).toBe(2);
      expect(r.err).toBe(`webgpu-obb: ${message}\n`);
    }
    // A scene without sweeps is refused before the run.
    const noLidars = join(dir, 'no-lidars.json');
    writeFileSync(noLidars, JSON.stringify({ boxes: sceneJson()['boxes'] }));
    const none = await run('run', noLidars, '--backend', 'cpu', '--lidar-out', dir);
    expect(none.code).toBe(2);
    expect(none.err.split('\n').slice(-2)).toEqual([`webgpu-obb: --lidar-out ${dir}: the scene has no "lidars" to write`, '']);
    expect(none.err).not.toContain('backend: cpu');
  });

  it('--help shows a scene with a sensor preset the scene parser accepts', async () => {
    const help = (await run('--help')).out;
    const preset = /"sensor": "([^"]+)"/.exec(help)?.[1];
    expect(preset).toBe('velodyne-vlp16');
    expect(() => parseScene({ boxes: [], lidars: [{ sensor: preset, pose: { position: [0, 0, 0] } }] })).not.toThrow();
  });
});

describe('the reference\'s motion', () => {
  it('a box at time τ: centre moved by v·τ, axes turned by |ω|·τ about ω', () => {
    const boxes = parseScene(sceneJson()).boxes;
    const out = new Float64Array(15);
    boxAtTime(boxes, 1, [1, 2, 3], [0, 0, Math.PI], 0.25, out, 0);
    expect([out[0], out[1], out[2]]).toEqual([0.25, 12.5, 1.25]);
    // Box 1 is turned 45° about z; π rad/s for 0.25 s turns it 45° more: its u axis at 90°, w still +z.
    expect(out[6]).toBeCloseTo(0, 6);
    expect(out[7]).toBeCloseTo(1, 6);
    expect(out[14]).toBeCloseTo(1, 6);
    expect(out[8]).toBeCloseTo(0, 12);
  });

  it('the sensor\'s path: column 0 at the start pose, column a at its time between the poses, the beam origin on the circle', () => {
    const desc = { elevations: [0], azimuthSteps: 4, maxRange: 10, sweepTime: 0.2, beamOriginOffset: 0.5 };
    const pose = { origin: [0, 0, 0] as const, rotation: [0, 0, 0, 1] as const };
    const poseEnd = { origin: [4, 0, 0] as const, rotation: [0, 0, Math.sin(Math.PI / 4), Math.cos(Math.PI / 4)] as const };
    const frames = columnFrames(desc, pose, poseEnd);
    expect(frames.map((f) => f.time)).toEqual([0, 0.05, 0.1, 0.15000000000000002]);
    expect(frames[2]!.position).toEqual([2, 0, 0]);
    // Halfway, the sensor has turned 45° (slerp); column 2's encoder angle is 180°.
    const rays = lidarRays(desc, pose, poseEnd);
    const o = 2 * 7;
    expect(rays.data[o]).toBeCloseTo(2 - 0.5 * Math.cos(45 * deg), 12);
    expect(rays.data[o + 1]).toBeCloseTo(-0.5 * Math.sin(45 * deg), 12);
    expect(rays.data[o + 3]).toBeCloseTo(-Math.cos(45 * deg), 12);
  });
});

/** A scene whose boxes carry materials and whose first sweep has an intensity model, seeded noise and a dual-return beam. */
function beamSceneJson(): Record<string, unknown> {
  return {
    boxes: [
      { center: [10, 0, 0], halfExtents: [2, 1, 1], rotation: [0, 0, 0, 1], reflectivity: 0.3, classId: 2 },
      { center: [14, 0.9, 0.5], halfExtents: [0.5, 3, 3], rotation: [0, 0, 0, 1], reflectivity: 0.9, classId: 5 },
      { center: [0, 12, 0.5], halfExtents: [1, 3, 2], rotation: [0, 0, 0.3826834, 0.9238795], velocity: [1, 0, 0] },
      { center: [0, 0, -2.5], halfExtents: [50, 50, 0.5], rotation: [0, 0, 0, 1], reflectivity: 0.1 },
    ],
    lidars: [
      {
        sensor: { elevationsDeg: [-10, -5, 0, 5], columns: 90, maxRange: 60, sweepTime: 0.1 },
        pose: { position: [0, 0, 0.5] }, poseEnd: { position: [1, 0, 0.5] },
        intensity: { referenceRange: 10, atmosphere: 0.004 }, seed: 7,
        noise: { rangeStdDev: 0.02, rangeStdDevPerUnit: 0.0005, azimuthStdDevDeg: 0.03, dropout: 0.05, intensityDropout: { limit: 0.1, atZero: 0.5 } },
        beam: { divergenceDeg: [0.6, 0.3], rings: 1, samplesPerRing: 4, returns: 'dual', minSeparation: 1 },
      },
      { sensor: { elevationsDeg: [-10, 0], columns: 60, maxRange: 60 }, pose: { position: [0, 0, 0.5] }, intensity: true },
    ],
  };
}

describe('scene and result files: what the beam sees', () => {
  const scene = parseScene(beamSceneJson());
  const good = sceneResultFromCpu(scene, runReference(scene));

  it('reads materials, the intensity model, noise in degrees, the beam and the seed into the description', () => {
    expect(Array.from(scene.materials!.reflectivity)).toEqual([Math.fround(0.3), Math.fround(0.9), 1, Math.fround(0.1)]);
    expect(Array.from(scene.materials!.classId)).toEqual([2, 5, 0, 0]);
    const [dual, plain] = scene.lidars!;
    expect(dual!.desc.intensity).toEqual({ referenceRange: 10, atmosphere: 0.004 });
    expect(dual!.desc.noise!.azimuthStdDev).toBeCloseTo(0.03 * deg, 15);
    expect(dual!.desc.beam).toEqual({ divergence: [0.6 * deg, 0.3 * deg], rings: 1, samplesPerRing: 4, returns: 'dual', minSeparation: 1 });
    expect([dual!.seed, dual!.intensity, plain!.seed, plain!.intensity]).toEqual([7, true, 0, true]);
    expect(parseScene(sceneJson()).materials).toBeUndefined();
    expect(parseScene(sceneJson()).lidars!.map((l) => l.intensity)).toEqual([false, false]);
  });

  it('refuses a bad field in one line naming it, unknown keys by name', () => {
    const lidar0 = (j: Record<string, unknown>): Record<string, unknown> => (j['lidars'] as Record<string, unknown>[])[0]!;
    const cases: [(j: Record<string, unknown>) => void, string][] = [
      [(j) => { (j['boxes'] as Record<string, unknown>[])[1]!['reflectivity'] = 1.5; }, 'boxes[1].reflectivity must be a number in [0, 1] (got 1.5)'],
      [(j) => { (j['boxes'] as Record<string, unknown>[])[0]!['classId'] = 70000; }, 'boxes[0].classId must be an integer in [0, 65535] (got 70000)'],
      [(j) => { (lidar0(j)['noise'] as Record<string, unknown>)['rangeSigma'] = 1; }, 'lidars[0].noise has unknown key "rangeSigma"'],
      [(j) => { (lidar0(j)['beam'] as Record<string, unknown>)['divergence'] = [0.1, 0.1]; }, 'lidars[0].beam has unknown key "divergence"'],
      [(j) => { (lidar0(j)['beam'] as Record<string, unknown>)['returns'] = 'first'; }, 'lidars[0].beam.returns must be "strongest", "last" or "dual"'],
      [(j) => { (lidar0(j)['intensity'] as Record<string, unknown>)['gain'] = 2; }, 'lidars[0].intensity has unknown key "gain"'],
      [(j) => { (lidar0(j)['noise'] as Record<string, unknown>)['dropout'] = 2; }, 'lidars[0].noise.dropout '],
      [(j) => { (lidar0(j)['noise'] as Record<string, unknown>)['azimuthStdDevDeg'] = 5; }, 'lidars[0].noise.azimuthStdDevDeg '],
      [(j) => { lidar0(j)['seed'] = -1; }, 'lidars[0].seed must be an integer in [0, 2^32) (got -1)'],
      [(j) => { lidar0(j)['returns'] = 'dual'; }, 'lidars[0] has unknown key "returns"'],
    ];
    for (const [edit, message] of cases) {
      const json = beamSceneJson();
      edit(json);
      let caught: unknown;
      try {
        parseScene(json);
      } catch (error) {
        caught = error;
      }
      expect(caught, message).toBeInstanceOf(SceneError);
      expect((caught as Error).message.startsWith(message), `${(caught as Error).message} ≠ ${message}`).toBe(true);
      expect((caught as Error).message).not.toContain('\n');
    }
  });

  it('the CPU backend\'s result (materials, noise, dual returns) is judged with 0 mismatch, pass by pass and beam by beam', async () => {
    const l0 = good.lidars![0]!;
    expect(l0.passes).toHaveLength(5);
    expect(l0.second!.box.filter((b) => b >= 0).length).toBeGreaterThan(0);
    expect(l0.returnCount!.filter((n) => n === 2).length).toBe(l0.second!.box.filter((b) => b >= 0).length);
    expect(good.lidars![1]!.intensity!.some((x) => x > 0 && x < 1)).toBe(true);
    const v = judgeScene(scene, JSON.parse(formatResult(good)));
    expect(v.mismatch).toBe(0);
    expect(v.comparisons.map((c) => c.family)).toEqual([
      ...[0, 1, 2, 3, 4].flatMap((j) => [`lidar[0].pass[${j}]`, `lidar[0].pass[${j}].intensity`]),
      'lidar[0].returns', 'lidar[0].returnsPerBox', 'lidar[1]', 'lidar[1].intensity', 'lidar[1].returnsPerBox',
    ]);
    // Through the command: run --backend cpu, then judge the file it wrote.
    const dir = mkdtempSync(join(tmpdir(), 'obb-beam-'));
    writeFileSync(join(dir, 'scene.json'), JSON.stringify(beamSceneJson()));
    const r = await run('run', join(dir, 'scene.json'), '--backend', 'cpu', '--out', join(dir, 'result.json'));
    expect(r.code, r.err).toBe(0);
    const j = await run('judge', join(dir, 'scene.json'), join(dir, 'result.json'));
    expect(j.code, j.out + j.err).toBe(0);
    expect(j.out).toContain('OK: 0 mismatch');
  });

  it('the GPU backend (Dawn in Node): run writes materials, intensities, passes and dual returns that judge clean; verify agrees', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obb-beam-gpu-'));
    writeFileSync(join(dir, 'scene.json'), JSON.stringify(beamSceneJson()));
    const r = await run('run', join(dir, 'scene.json'), '--runtime', 'node', '--out', join(dir, 'gpu.json'));
    expect(r.code, r.err).toBe(0);
    const result = JSON.parse(readFileSync(join(dir, 'gpu.json'), 'utf8')) as SceneResult;
    expect(result.backend).toBe('gpu');
    expect(result.lidars![0]!.passes).toHaveLength(5);
    expect(result.lidars![0]!.second!.box.some((b) => b >= 0)).toBe(true);
    const j = await run('judge', join(dir, 'scene.json'), join(dir, 'gpu.json'));
    expect(j.code, j.out + j.err).toBe(0);
    expect(j.out).toMatch(/lidar\[0\]\.returns/);
    const v = await run('verify', join(dir, 'scene.json'), '--runtime', 'node');
    expect(v.code, v.out + v.err).toBe(0);
    expect(v.out).toContain('OK: 0 mismatch');
    // The API's own fields carry what the beam saw: the modelled intensities and the second returns.
    const { createNodeGpu } = await import('../../src/node/runtime.ts');
    const gpu = await createNodeGpu({ driver: 'swiftshader' });
    try {
      const set = gpu.createBoxSet(scene.boxes);
      await set.setMaterials(scene.materials!);
      const l = scene.lidars![0]!;
      const sensor = await gpu.createLidar(l.desc);
      const sweep = await gpu.lidarSweep(sensor, set, l.pose, { ...sceneMotion(scene, l), seed: l.seed, intensity: true, fields: true });
      const f = sweep.fields!;
      expect(Array.from(f.intensity!)).toEqual(Array.from(sweep.intensity!, (x, r) => (sweep.box[r]! >= 0 ? x : 0)));
      expect(Array.from(f.second!.box)).toEqual(Array.from(sweep.second!.box));
      expect(Array.from(f.second!.intensity!)).toEqual(Array.from(sweep.second!.intensity, (x, r) => (sweep.second!.box[r]! >= 0 ? x : 0)));
      expect(f.returnMode).toBe('dual');
      expect(packPointRecords(f).width).toBe(sweep.returnCount!.reduce((n, x) => n + x, 0));
      sensor.destroy();
      set.destroy();
    } finally {
      gpu.destroy();
    }
  }, 180_000);

  it('run --lidar-out writes the modelled intensities, second returns and classes: the API writer\'s bytes for the sweep\'s own values', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'obb-beam-out-'));
    writeFileSync(join(dir, 'scene.json'), JSON.stringify(beamSceneJson()));
    const out = join(dir, 'points');
    const r = await run('run', join(dir, 'scene.json'), '--backend', 'cpu', '--out', join(dir, 'r.json'), '--lidar-out', out, '--lidar-ground-truth');
    expect(r.code, r.err).toBe(0);
    const ref = runReference(scene);
    for (const [k, l] of scene.lidars!.entries()) {
      const s = ref.lidars![k]!;
      const cloud = lidarSweepCloud(scene.boxes, l.desc, l.pose, sceneMotion(scene, l), s, { seed: l.seed });
      expect(firstDifference(readFileSync(join(out, `lidar-${k}.pcd`)), writePcd(cloud, { classIds: scene.materials!.classId }))).toBe(-1);
      const truth = lidarGroundTruth(scene.boxes, l.pose, s.returnsPerBox, { classIds: scene.materials!.classId });
      expect(readFileSync(join(out, `lidar-${k}.txt`), 'utf8')).toBe(writeOpenPcdetLabels(truth, ['Box', 'Class1', 'Class2', 'Class3', 'Class4', 'Class5']));
    }
    const header = readFileSync(join(out, 'lidar-0.pcd')).subarray(0, 600).toString('latin1');
    expect(header).toContain('FIELDS x y z intensity ring column time label class return_index return_count');
    expect(header).toContain('intensity = modelled intensity');
    const seconds = Array.from(ref.lidars![0]!.second!.box).filter((b) => b >= 0).length;
    expect(seconds).toBeGreaterThan(0);
    expect(r.err).toContain(`wrote ${join(out, 'lidar-0.pcd')} (${Array.from(ref.lidars![0]!.box).filter((b) => b >= 0).length + seconds} points, pcd, sensor frame)`);
    expect(readFileSync(join(out, 'lidar-0.txt'), 'utf8')).toMatch(/ Class5\n/);
  });

  it('a tampered result is caught with its reason: an intensity beyond its bound, a second return\'s box', async () => {
    const bad = clone(good);
    const l1 = bad.lidars![1]!;
    const ri = l1.box.findIndex((b, r) => b >= 0 && l1.intensity![r]! > 0.05 && l1.intensity![r]! < 0.9);
    l1.intensity![ri] = l1.intensity![ri]! * 1.01;
    const l0 = bad.lidars![0]!;
    const rs = l0.second!.box.findIndex((b) => b >= 0);
    const was = l0.second!.box[rs]!;
    const now = was === 1 ? 3 : 1;
    l0.second!.box[rs] = now;
    l0.returnsPerBox[was]!--;
    l0.returnsPerBox[now]!++;
    const v = judgeScene(scene, JSON.parse(formatResult(bad)));
    const by = new Map(v.comparisons.map((c) => [c.family, c]));
    expect(by.get('lidar[1].intensity')!.mismatch).toBe(1);
    expect(by.get('lidar[1].intensity')!.cases[0]!.index).toBe(ri);
    expect(by.get('lidar[0].returns')!.mismatchByReason).toEqual({ return: 1 });
    expect(by.get('lidar[0].returns')!.cases[0]!.index).toBe(rs);
    expect(by.get('lidar[0].returnsPerBox')!.mismatch).toBe(0);
    expect(v.mismatch).toBe(2);
    // Through the command, with both reports: exit 1, each mismatch named.
    const dir = mkdtempSync(join(tmpdir(), 'obb-beam-bad-'));
    writeFileSync(join(dir, 'scene.json'), JSON.stringify(beamSceneJson()));
    writeFileSync(join(dir, 'bad.json'), formatResult(bad));
    const j = await run('judge', join(dir, 'scene.json'), join(dir, 'bad.json'), '--html', join(dir, 'r.html'), '--junit', join(dir, 'r.xml'));
    expect(j.code, j.err).toBe(1);
    expect(j.out).toContain('FAIL: 2 mismatch');
    expect(readFileSync(join(dir, 'r.html'), 'utf8')).toContain('<span class="fail">return 1</span>; <span class="fail">intensity 1</span>');
    expect(readFileSync(join(dir, 'r.xml'), 'utf8')).toContain('lidar[1].intensity');
    // Keys the scene does not give rise to, or misses, are named.
    const extra = clone(good);
    (extra.lidars![1] as { returnCount?: number[] }).returnCount = [];
    expect(() => judgeScene(scene, JSON.parse(formatResult(extra)))).toThrow('lidars[1].returnCount is present, but the scene does not ask for it (it comes with a beam)');
    const missing = clone(good);
    delete (missing.lidars![0] as { passes?: unknown }).passes;
    expect(() => judgeScene(scene, JSON.parse(formatResult(missing)))).toThrow("lidars[0].passes is missing: the scene asks for it (it comes with range noise, dropout or a beam: each sub-ray pass's hits");
    const unknown = clone(good) as unknown as { lidars: Record<string, unknown>[] };
    unknown.lidars[1]!['echo'] = [];
    expect(() => judgeScene(scene, unknown)).toThrow('lidars[1].echo is not a field of this entry');
  });
});

describe('progress of a beam\'s reference sweep', () => {
  it('counts the rays of every sub-ray pass as one phase, with an ETA over the passes to come', () => {
    const lines: string[] = [];
    let now = 0;
    const tick = passesProgress(phaseProgress((m) => lines.push(m), 'LiDAR sweep 0 (cpu)', 'rays (3 sub-ray passes)', 'hits', () => now), 3)!;
    // Each pass counts 0 … 1,000 again, a second per 250 rays; 10 hits per 100 rays.
    for (let pass = 0; pass < 3; pass++) {
      for (let done = 0; done <= 1000; done += 250) {
        tick(done, 1000, done / 10);
        now += 1000;
      }
    }
    expect(lines[0]).toBe('LiDAR sweep 0 (cpu): 500 / 3,000 rays (3 sub-ray passes), 50 hits, ETA 10 s');
    expect(lines.at(-1)).toBe('LiDAR sweep 0 (cpu): 2,750 / 3,000 rays (3 sub-ray passes), 275 hits, ETA 1 s');
    const counts = lines.map((l) => Number(/: ([\d,]+) \//.exec(l)![1]!.replace(/,/g, '')));
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(passesProgress(undefined, 3)).toBeUndefined();
  });
});

describe('progress while the GPU sweeps', () => {
  it('one submission is not silent: after 2 s a line a second with the sweeps, the rays and the time so far', async () => {
    vi.useFakeTimers();
    try {
      const lines: [string, boolean | undefined][] = [];
      let done!: (v: number) => void;
      const wait = heartbeat((m, periodic) => lines.push([m, periodic]), 'LiDAR: 2 sweeps, 524,288 rays', new Promise<number>((r) => { done = r; }));
      await vi.advanceTimersByTimeAsync(4500);
      done(7);
      expect(await wait).toBe(7);
      await vi.advanceTimersByTimeAsync(3000);
      expect(lines).toEqual([
        ['LiDAR: 2 sweeps, 524,288 rays: waiting for the GPU, 2 s so far', true],
        ['LiDAR: 2 sweeps, 524,288 rays: waiting for the GPU, 3 s so far', true],
        ['LiDAR: 2 sweeps, 524,288 rays: waiting for the GPU, 4 s so far', true],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
