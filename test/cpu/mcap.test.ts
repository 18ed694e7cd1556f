/**
 * MCAP recordings (src/files/mcap.ts): a moving sensor driving through a small city (a ground
 * slab, two rows of buildings, parked and moving cars, pedestrians), several sweeps by the float64
 * reference and its per-point fields (lidarPointFields, what `sweep.fields` is), recorded with
 * ground truth, then read back by an independent path: `@mcap/core`'s indexed and stream readers,
 * each message decoded by `@foxglove/rosmsg2-serialization` from the schema text stored in the
 * file, and each PointCloud2's points decoded with the field names, offsets and datatypes from its
 * own header (not the writer's constants). Every point is compared with the float32 (and uint)
 * values the API's arrays give; the TF with the pose; the SceneUpdate with the ground truth.
 *
 * Also: the channel and schema set is what ros2 bag play and Foxglove expect (profile ros2,
 * `ros2msg` schemas named pkg/msg/Type, `cdr` messages, offered_qos_profiles), and every embedded
 * .msg definition parses to the same fields as the ROS 2 definitions of
 * @foxglove/rosmsg-msgs-common (Humble and Jazzy) and the foxglove_msgs that @foxglove/schemas
 * generates.
 */
import { describe, expect, it } from 'vitest';
import { McapIndexedReader, McapStreamReader, TempBuffer } from '@mcap/core';
import { parse } from '@foxglove/rosmsg';
import { MessageReader } from '@foxglove/rosmsg2-serialization';
import { ros2humble, ros2jazzy } from '@foxglove/rosmsg-msgs-common';
import type { MessageDefinition } from '@foxglove/message-definition';
import { BOX_F64, type BoxArray } from '../../src/core/types.ts';
import { boxArrayFrom } from '../../src/core/canonical.ts';
import type { BoxMotion, LidarDescription, LidarPose } from '../../src/core/lidar.ts';
import { lidarPointFields, lidarSweepReference } from '../../src/reference/lidar.ts';
import { lidarGroundTruth, type LidarGroundTruthBox } from '../../src/files/groundTruth.ts';
import { MCAP_SCHEMAS, McapRecorder, writeMcap, type McapSweep } from '../../src/files/mcap.ts';
import type { LidarPointCloud, PointCloudOptions } from '../../src/files/pointCloud.ts';
import { lidarSweepCloud } from '../../src/lidar/sweepCloud.ts';
import { mulberry32 } from '../../src/scenes/generate.ts';

const SWEEP_TIME = 0.1;
const CLASS_NAMES = ['Ground', 'Building', 'Car', 'Pedestrian'];

interface City {
  /** The boxes at time 0, as inputs. */
  readonly inputs: { center: [number, number, number]; halfExtents: [number, number, number]; rotation: [number, number, number, number] }[];
  readonly classIds: Uint16Array;
  /** Velocity per box (zero for the static ones). */
  readonly velocity: [number, number, number][];
}

/** A city block, seed 34: ground, buildings on both sides of a street along x, cars, people. */
function city(): City {
  const rnd = mulberry32(34);
  const inputs: City['inputs'] = [];
  const classIds: number[] = [];
  const velocity: [number, number, number][] = [];
  const add = (center: [number, number, number], half: [number, number, number], yaw: number, cls: number, v: [number, number, number] = [0, 0, 0]) => {
    inputs.push({ center, halfExtents: half, rotation: [0, 0, Math.sin(yaw / 2), Math.cos(yaw / 2)] });
    classIds.push(cls);
    velocity.push(v);
  };
  add([0, 0, -0.25], [80, 40, 0.25], 0, 0);
  for (const side of [-1, 1]) {
    for (let k = 0; k < 8; k++) {
      const w = 4 + 4 * rnd();
      add([-60 + 16 * k + 4 * rnd(), side * (14 + 3 * rnd()), 6 + 4 * rnd()], [w, 4 + 2 * rnd(), 6 + 4 * rnd()], 0.1 * (rnd() - 0.5), 1);
    }
  }
  for (let k = 0; k < 10; k++) {
    const moving = k % 3 === 0;
    const lane = k % 2 === 0 ? -3.5 : 3.5;
    add([-50 + 11 * k, lane + (rnd() - 0.5), 0.8], [2.2, 0.9, 0.8], lane < 0 ? 0 : Math.PI, 2, moving ? [lane < 0 ? 8 : -8, 0, 0] : [0, 0, 0]);
  }
  for (let k = 0; k < 6; k++) {
    add([-30 + 12 * k, (k % 2 ? 1 : -1) * 8.5, 0.9], [0.3, 0.3, 0.9], rnd() * 6, 3, [0, k % 2 ? -1.2 : 1.2, 0]);
  }
  return { inputs, classIds: Uint16Array.from(classIds), velocity };
}

/** The city's boxes at time t (each moved by its velocity), canonical. */
function boxesAt(c: City, t: number): BoxArray {
  return boxArrayFrom(c.inputs.map((b, i) => ({ ...b, center: [b.center[0] + c.velocity[i]![0] * t, b.center[1] + c.velocity[i]![1] * t, b.center[2]] as [number, number, number] })));
}

const DESC: LidarDescription = {
  elevations: Array.from({ length: 16 }, (_, c) => ((c % 2 ? 1 : -1) * (Math.floor(c / 2) * 2 + 1) * Math.PI) / 180),
  azimuthSteps: 360, maxRange: 80, minRange: 0.5, sweepTime: SWEEP_TIME, beamOriginOffset: 0.01,
};

/** The vehicle drives along +x at 10 m/s, turning slowly; the sensor 1.9 m up. */
function poseAt(t: number): LidarPose {
  const yaw = 0.05 * t;
  return { origin: [-20 + 10 * t, -1.5, 1.9], rotation: [0, 0, Math.sin(yaw / 2), Math.cos(yaw / 2)] };
}

interface Sweep {
  readonly cloud: LidarPointCloud;
  readonly pose: LidarPose;
  readonly truth: LidarGroundTruthBox[];
  readonly stamp: number;
  readonly points: PointCloudOptions;
}

const c = city();
const moving = c.velocity.flatMap((v, i) => (v.some((x) => x !== 0) ? [i] : []));
const boxMotion: BoxMotion = { boxes: moving, velocity: moving.flatMap((i) => c.velocity[i]!) };
const OPTIONS: PointCloudOptions[] = [
  { classIds: c.classIds },
  { ring: 'elevation', elevations: DESC.elevations, time: 'nanoseconds', organized: true, classIds: c.classIds },
  { layout: 'autoware' },
  { frame: 'world' },
];
const sweeps: Sweep[] = OPTIONS.map((points, k) => {
  const t = k * SWEEP_TIME;
  const boxes = boxesAt(c, t);
  const pose = poseAt(t);
  const motion = { poseEnd: poseAt(t + SWEEP_TIME), boxMotion };
  const ref = lidarSweepReference(boxes, DESC, pose, motion);
  const cloud = lidarPointFields(boxes, DESC, pose, motion, Float32Array.from(ref.range), ref.box);
  const truth = lidarGroundTruth(boxes, pose, ref.returnsPerBox, { classIds: c.classIds, maxRange: DESC.maxRange });
  return { cloud, pose, truth, stamp: 1_700_000_000 + t, points };
});

/** The recording as McapSweeps. */
const recorded: McapSweep[] = sweeps.map((s) => ({ cloud: s.cloud, pose: s.pose, stamp: s.stamp, sensor: 'lidar_top', points: s.points, groundTruth: s.truth, classNames: CLASS_NAMES }));

const decoder = new TextDecoder();

interface Read {
  readonly profile: string;
  readonly schemas: Map<number, { name: string; encoding: string; text: string }>;
  readonly channels: Map<number, { topic: string; schemaId: number; messageEncoding: string; metadata: Map<string, string> }>;
  readonly messages: { topic: string; schema: string; logTime: bigint; publishTime: bigint; sequence: number; message: Record<string, unknown> }[];
}

/** Reads a recording with @mcap/core's indexed reader, decoding each message from its file's own schema. */
async function readRecording(bytes: Uint8Array): Promise<Read> {
  const reader = await McapIndexedReader.Initialize({ readable: new TempBuffer(bytes) });
  const schemas = new Map([...reader.schemasById].map(([id, s]) => [id, { name: s.name, encoding: s.encoding, text: decoder.decode(s.data) }]));
  const channels = new Map([...reader.channelsById].map(([id, ch]) => [id, { topic: ch.topic, schemaId: ch.schemaId, messageEncoding: ch.messageEncoding, metadata: ch.metadata }]));
  const readers = new Map([...schemas].map(([id, s]) => [id, new MessageReader(parse(s.text, { ros2: true }))]));
  const messages: Read['messages'] = [];
  for await (const m of reader.readMessages()) {
    const ch = channels.get(m.channelId)!;
    const r = readers.get(ch.schemaId)!;
    const message = r.readMessage<Record<string, unknown>>(m.data);
    expect(r.lastReadHadTrailingBytes()).toBe(false);
    messages.push({ topic: ch.topic, schema: schemas.get(ch.schemaId)!.name, logTime: m.logTime, publishTime: m.publishTime, sequence: m.sequence, message });
  }
  return { profile: reader.header.profile, schemas, channels, messages };
}

type Point = Record<string, number>;

/** Every point of a PointCloud2, by the field table of its own header. */
function decodePointCloud2(msg: Record<string, unknown>): Point[] {
  const fields = msg['fields'] as { name: string; offset: number; datatype: number; count: number }[];
  const data = msg['data'] as Uint8Array;
  const step = msg['point_step'] as number;
  const width = msg['width'] as number;
  const height = msg['height'] as number;
  expect(msg['is_bigendian']).toBe(false);
  expect(msg['row_step']).toBe(step * width);
  expect(data.length).toBe(step * width * height);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const read: Record<number, (o: number) => number> = {
    1: (o) => view.getInt8(o), 2: (o) => view.getUint8(o), 3: (o) => view.getInt16(o, true), 4: (o) => view.getUint16(o, true),
    5: (o) => view.getInt32(o, true), 6: (o) => view.getUint32(o, true), 7: (o) => view.getFloat32(o, true), 8: (o) => view.getFloat64(o, true),
  };
  const out: Point[] = [];
  for (let i = 0; i < width * height; i++) {
    const p: Point = {};
    for (const f of fields) {
      expect(f.count).toBe(1);
      p[f.name] = read[f.datatype]!(i * step + f.offset);
    }
    out.push(p);
  }
  return out;
}

/** The rings of the ROS Velodyne driver, by its own loop (calibration.cc: next-smallest vertical angle). */
function driverRings(elevations: readonly number[]): number[] {
  const ring = new Array<number>(elevations.length).fill(0);
  let next = -Infinity;
  for (let k = 0; k < elevations.length; k++) {
    let min = Infinity;
    let index = elevations.length;
    elevations.forEach((e, j) => {
      if (next < e && e < min) {
        min = e;
        index = j;
      }
    });
    if (index < elevations.length) {
      ring[index] = k;
      next = min;
    }
  }
  return ring;
}

/** What the API's arrays say each point of sweep `s` holds, in the file's order. */
function expectedPoints(s: Sweep): Point[] {
  const { cloud, points: o } = s;
  const A = cloud.columns;
  const rings = o.ring === 'elevation' ? driverRings(DESC.elevations) : DESC.elevations.map((_, ch) => ch);
  let rays: number[] = [];
  if (o.organized) {
    for (let k = 0; k < cloud.channels; k++) {
      const ch = rings.indexOf(k);
      for (let a = 0; a < A; a++) {
        rays.push(ch * A + a);
      }
    }
  } else {
    rays = [...cloud.range.keys()].filter((r) => cloud.range[r]! >= 0);
  }
  const f = Math.fround;
  return rays.map((r) => {
    const hit = cloud.range[r]! >= 0;
    const xyz = o.frame === 'world' ? cloud.worldXyz : cloud.sensorXyz;
    const round = o.frame === 'world' ? (x: number) => x : f;
    const [x, y, z] = [0, 1, 2].map((k) => (hit ? round(xyz[3 * r + k]!) : Number.NaN));
    const ring = rings[Math.floor(r / A)]!;
    const ns = Math.round(cloud.time[r]! * 1e9);
    if (o.layout === 'autoware') {
      const [sx, sy, sz] = [0, 1, 2].map((k) => cloud.sensorXyz[3 * r + k]!);
      const az = Math.atan2(sy!, sx!);
      return {
        x: x!, y: y!, z: z!, intensity: Math.round(255 * cloud.incidence[r]!), return_type: 1, channel: ring,
        azimuth: f(az < 0 ? az + 2 * Math.PI : az), elevation: f(Math.atan2(sz!, Math.hypot(sx!, sy!))), distance: f(Math.hypot(sx!, sy!, sz!)), time_stamp: ns,
      };
    }
    const p: Point = { x: x!, y: y!, z: z!, intensity: f(cloud.incidence[r]!), ring, column: r % A };
    if (o.time === 'nanoseconds') {
      p['t'] = ns;
    } else {
      p['time'] = f(cloud.time[r]!);
    }
    p['label'] = hit ? cloud.box[r]! : -1;
    if (o.classIds) {
      p['class'] = hit ? o.classIds[cloud.box[r]!]! : 0xffff;
    }
    return p;
  });
}

describe('the test\'s city drive', () => {
  it('sees buildings, parked and moving cars and pedestrians in every sweep', () => {
    for (const s of sweeps) {
      const seen = new Set(s.truth.filter((t) => t.points > 0).map((t) => c.classIds[t.id]));
      expect([...seen].sort()).toEqual([0, 1, 2, 3]);
      expect(s.truth.some((t) => moving.includes(t.id) && t.points > 0)).toBe(true);
      expect(s.truth.some((t) => t.points === 0)).toBe(true); // in range, hidden
    }
  });
});

describe('writeMcap: a moving sensor in a city, read back by @mcap/core', () => {
  it('every point of every sweep equals the API\'s float32 (and integer) values, by the field table of each PointCloud2', async () => {
    const bytes = await writeMcap(recorded);
    expect(bytes.byteOffset).toBe(0);
    expect(bytes.byteLength).toBe(bytes.buffer.byteLength);
    const read = await readRecording(bytes);
    const clouds = read.messages.filter((m) => m.topic === '/lidar_top/points');
    expect(clouds).toHaveLength(sweeps.length);
    let compared = 0;
    clouds.forEach((m, k) => {
      const s = sweeps[k]!;
      const header = m.message['header'] as { stamp: { sec: number; nanosec: number }; frame_id: string };
      const ns = BigInt(Math.round(s.stamp * 1e9));
      expect(BigInt(header.stamp.sec) * 1_000_000_000n + BigInt(header.stamp.nanosec)).toBe(ns);
      expect(m.logTime).toBe(ns);
      expect(m.publishTime).toBe(ns);
      expect(m.sequence).toBe(k);
      expect(header.frame_id).toBe(s.points.frame === 'world' ? 'world' : 'lidar_top');
      const got = decodePointCloud2(m.message);
      const want = expectedPoints(s);
      expect(got.length).toBe(want.length);
      expect(Object.keys(got[0]!)).toEqual(Object.keys(want[0]!));
      expect(m.message['height']).toBe(s.points.organized ? DESC.elevations.length : 1);
      expect(m.message['is_dense']).toBe(!s.points.organized);
      // toEqual treats NaN as equal to NaN: the organised cloud's no-returns are NaN in both.
      expect(got).toEqual(want);
      compared += got.length;
    });
    expect(compared).toBeGreaterThan(10_000);
  });

  it('records the pose on /tf at each sweep\'s start and the ground truth as SceneUpdate cubes in the sensor frame', async () => {
    const read = await readRecording(await writeMcap(recorded));
    const tf = read.messages.filter((m) => m.topic === '/tf');
    const boxes = read.messages.filter((m) => m.topic === '/lidar_top/ground_truth');
    expect(tf).toHaveLength(sweeps.length);
    expect(boxes).toHaveLength(sweeps.length);
    sweeps.forEach((s, k) => {
      const [t] = tf[k]!.message['transforms'] as { header: { frame_id: string }; child_frame_id: string; transform: { translation: Record<string, number>; rotation: Record<string, number> } }[];
      expect(t!.header.frame_id).toBe('world');
      expect(t!.child_frame_id).toBe('lidar_top');
      expect(t!.transform.translation).toEqual({ x: s.pose.origin[0], y: s.pose.origin[1], z: s.pose.origin[2] });
      const q = s.pose.rotation!;
      expect([t!.transform.rotation['x'], t!.transform.rotation['y'], t!.transform.rotation['z'], t!.transform.rotation['w']]).toEqual(q.map((x) => x / Math.hypot(...q)));
      const update = boxes[k]!.message as { deletions: { type: number }[]; entities: { frame_id: string; id: string; frame_locked: boolean; metadata: { key: string; value: string }[]; cubes: { pose: { position: Record<string, number>; orientation: Record<string, number> }; size: Record<string, number> }[] }[] };
      expect(update.deletions).toEqual([expect.objectContaining({ type: 1, id: '' })]);
      expect(update.entities).toHaveLength(s.truth.length);
      update.entities.forEach((e, i) => {
        const truth = s.truth[i]!;
        expect(e.frame_id).toBe('lidar_top');
        expect(e.id).toBe(`box ${truth.id}`);
        expect(e.frame_locked).toBe(false);
        expect(e.metadata).toEqual(expect.arrayContaining([{ key: 'class', value: CLASS_NAMES[truth.classId] }, { key: 'points', value: String(truth.points) }]));
        const [cube] = e.cubes;
        expect(cube!.pose.position).toEqual({ x: truth.center[0], y: truth.center[1], z: truth.center[2] });
        expect(cube!.pose.orientation).toEqual({ x: truth.rotation[0], y: truth.rotation[1], z: truth.rotation[2], w: truth.rotation[3] });
        expect(cube!.size).toEqual({ x: truth.extents[0], y: truth.extents[1], z: truth.extents[2] });
      });
    });
  });

  it('is what ros2 bag play and Foxglove expect: profile ros2, ros2msg schemas, cdr messages, QoS metadata, time order; the stream reader checks every CRC', async () => {
    const bytes = await writeMcap(recorded, { foxglovePointCloud: true });
    const read = await readRecording(bytes);
    expect(read.profile).toBe('ros2');
    expect([...read.schemas.values()].map((s) => [s.name, s.encoding]).sort()).toEqual([
      ['foxglove_msgs/msg/PointCloud', 'ros2msg'], ['foxglove_msgs/msg/SceneUpdate', 'ros2msg'],
      ['sensor_msgs/msg/PointCloud2', 'ros2msg'], ['tf2_msgs/msg/TFMessage', 'ros2msg'],
    ]);
    expect([...read.channels.values()].map((ch) => ch.topic).sort()).toEqual(['/lidar_top/ground_truth', '/lidar_top/points', '/lidar_top/points/foxglove', '/tf']);
    for (const ch of read.channels.values()) {
      expect(ch.messageEncoding).toBe('cdr');
      expect(ch.metadata.get('offered_qos_profiles')).toMatch(/^- history: 3\n {2}depth: 0\n {2}reliability: 1\n {2}durability: 2\n/);
    }
    const times = read.messages.map((m) => m.logTime);
    expect(times).toEqual([...times].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    // foxglove.PointCloud carries the same records as the PointCloud2 of its sweep.
    const fox = read.messages.filter((m) => m.topic === '/lidar_top/points/foxglove');
    const ros = read.messages.filter((m) => m.topic === '/lidar_top/points');
    fox.forEach((m, k) => {
      expect(m.message['data']).toEqual(ros[k]!.message['data']);
      expect(m.message['point_stride']).toBe(ros[k]!.message['point_step']);
      expect((m.message['fields'] as { name: string }[]).map((f) => f.name)).toEqual((ros[k]!.message['fields'] as { name: string }[]).map((f) => f.name));
    });
    // The stream reader reads every record in order and validates the CRCs.
    const stream = new McapStreamReader({ validateCrcs: true });
    stream.append(bytes);
    const kinds = new Map<string, number>();
    for (let record; (record = stream.nextRecord()); ) {
      kinds.set(record.type, (kinds.get(record.type) ?? 0) + 1);
    }
    expect(stream.done()).toBe(true);
    expect(kinds.get('Message')).toBe(4 * sweeps.length);
    expect(kinds.get('Footer')).toBe(1);
    expect(kinds.get('Statistics')).toBe(1);
  });

  it('each embedded .msg definition has the fields of ROS 2\'s (Humble and Jazzy) and of @foxglove/schemas\' foxglove_msgs', async () => {
    const { foxgloveMessageSchemas, generateRosMsgMergedSchema } = await import('@foxglove/schemas/internal');
    /** Definitions by type name without `/msg/`, fields as name: type[] (constants with their values). */
    const normal = (defs: readonly MessageDefinition[], defaults = true) => new Map(defs.filter((d) => d.name !== undefined).map((d) => [
      d.name!.replace('/msg/', '/'),
      d.definitions.map((f) => `${f.isConstant ? 'const ' : ''}${f.type.replace('/msg/', '/')}${f.isArray ? '[]' : ''} ${f.name}${f.isConstant ? `=${String(f.value)}` : ''}${defaults && f.defaultValue !== undefined ? ` default ${String(f.defaultValue)}` : ''}`),
    ]));
    for (const [name, text] of Object.entries(MCAP_SCHEMAS)) {
      const ours = parse(text, { ros2: true });
      expect(ours[0]!.name, name).toBeUndefined(); // the top-level message comes first, unnamed
      const mine = normal([{ ...ours[0]!, name }, ...ours.slice(1)]);
      const short = name.replace('/msg/', '/');
      if (name.startsWith('foxglove_msgs/')) {
        // Foxglove's generator writes geometry_msgs/Quaternion without ROS 2's defaults (0 0 0 1),
        // which change no byte of the encoding: compared without defaults.
        const theirs = normal(parse(generateRosMsgMergedSchema(foxgloveMessageSchemas[short.split('/')[1] as 'SceneUpdate'], { rosVersion: 2 }), { ros2: true }).map((d, i) => (i === 0 ? { ...d, name } : d)), false);
        const mineNoDefaults = normal([{ ...ours[0]!, name }, ...ours.slice(1)], false);
        // Ours also carries builtin_interfaces' Time and Duration, as rosbag2 writes dependencies.
        expect([...mineNoDefaults.keys()].filter((k) => !k.startsWith('builtin_interfaces/')).sort()).toEqual([...theirs.keys()].sort());
        for (const [type, fields] of theirs) {
          expect(mineNoDefaults.get(type), `${name}: ${type}`).toEqual(fields);
        }
      } else {
        for (const distro of [ros2humble, ros2jazzy]) {
          const catalogue = distro as Record<string, MessageDefinition>;
          for (const [type, fields] of mine) {
            if (type.startsWith('builtin_interfaces/')) {
              continue; // ROS 2's time: rosmsg reads builtin_interfaces/Time as the primitive `time`
            }
            expect(fields, `${name}: ${type}`).toEqual(normal([catalogue[type]!]).get(type));
          }
        }
      }
    }
  });
});

describe('McapRecorder', () => {
  it('takes the packages as libraries, records sweeps in time order only, and refuses what does not fit before writing', async () => {
    const out = new TempBuffer();
    const libraries = { mcap: await import('@mcap/core'), rosmsg: await import('@foxglove/rosmsg'), rosmsg2: await import('@foxglove/rosmsg2-serialization') };
    const recorder = await McapRecorder.create(out, { libraries, fixedFrame: 'map' });
    await recorder.add({ ...recorded[0]!, stamp: 5n * 1_000_000_000n });
    await expect(recorder.add({ ...recorded[1]!, stamp: 4.9 })).rejects.toThrow(/^stamp 4.9 is before the previous sweep's/);
    await expect(recorder.add({ ...recorded[1]!, stamp: -1 })).rejects.toThrow(/^stamp must be between 0 and 2\^31 s/);
    await expect(recorder.add({ ...recorded[1]!, stamp: 6, sensor: 'lidar top' })).rejects.toThrow(/^sensor must be a name/);
    await expect(recorder.add({ ...recorded[1]!, stamp: 6, sensor: 'map' })).rejects.toThrow(/^sensor must differ from the fixed frame/);
    await expect(recorder.add({ ...recorded[1]!, stamp: 6, points: { layout: 'autoware', frame: 'world' } })).rejects.toThrow(/^layout 'autoware'/);
    await expect(recorder.add({ ...recorded[1]!, stamp: 6, pose: { origin: [0, 0] as unknown as [number, number, number] } })).rejects.toThrow(/pose\.origin/);
    // Two sensors in one file, each with its own topics and frame; the same stamp is allowed.
    await recorder.add({ ...recorded[1]!, stamp: 5, sensor: 'lidar_front' });
    expect(recorder.sweeps).toBe(2);
    expect(recorder.messages).toBe(6);
    await recorder.close();
    await recorder.close();
    await expect(recorder.add(recorded[2]!)).rejects.toThrow(/closed/);
    const read = await readRecording(out.get());
    expect(read.messages.map((m) => m.topic)).toEqual(['/tf', '/lidar_top/points', '/lidar_top/ground_truth', '/tf', '/lidar_front/points', '/lidar_front/ground_truth']);
    expect(read.messages.map((m) => m.logTime)).toEqual(new Array(6).fill(5_000_000_000n));
    expect((read.messages[3]!.message['transforms'] as { header: { frame_id: string }; child_frame_id: string }[])[0]).toMatchObject({ header: { frame_id: 'map' }, child_frame_id: 'lidar_front' });
  });

  it('says which package is wrong, and refuses a writable without write and position', async () => {
    await expect(McapRecorder.create(new TempBuffer(), { libraries: { mcap: {}, rosmsg: {}, rosmsg2: {} } })).rejects.toThrow(/@mcap\/core has no export McapWriter/);
    await expect(McapRecorder.create({} as unknown as TempBuffer)).rejects.toThrow(/writable must have write/);
    await expect(McapRecorder.create(new TempBuffer(), { fixedFrame: 'my map' })).rejects.toThrow(/^fixedFrame must be/);
  });

  it('a box the sweep never hit is not in the default ground truth; the recording without ground truth has no SceneUpdate channel', async () => {
    const s = sweeps[0]!;
    const seen = lidarGroundTruth(boxesAt(c, 0), s.pose, countsOf(s.cloud.box, c.inputs.length));
    expect(seen.every((t) => t.points > 0)).toBe(true);
    expect(seen.length).toBeLessThan(s.truth.length);
    const read = await readRecording(await writeMcap([{ cloud: s.cloud, pose: s.pose, stamp: 0 }]));
    expect([...read.channels.values()].map((ch) => ch.topic).sort()).toEqual(['/lidar/points', '/tf']);
    expect(read.messages[1]!.message['header']).toEqual({ stamp: { sec: 0, nanosec: 0 }, frame_id: 'lidar' });
    expect(BOX_F64.STRIDE).toBe(15);
  });
});

function countsOf(box: Int32Array, n: number): Uint32Array {
  const out = new Uint32Array(n);
  for (const b of box) {
    if (b >= 0) {
      out[b]!++;
    }
  }
  return out;
}

describe('a dual-return sweep with materials and modelled intensity, recorded and read back', () => {
  // A 9-sub-ray beam in dual mode over the city, reflectivity by class (ground, building, car, person).
  const desc: LidarDescription = {
    ...DESC, intensity: { referenceRange: 20, atmosphere: 0.004 },
    beam: { divergence: [0.02, 0.01], rings: 1, samplesPerRing: 8, returns: 'dual', minSeparation: 0.5 },
  };
  const reflectivity = Float32Array.from(c.classIds, (k) => [0.2, 0.6, 0.9, 0.4][k]!);
  const boxes = boxesAt(c, 0);
  const pose = poseAt(0);
  const motion = { poseEnd: poseAt(SWEEP_TIME), boxMotion };
  const ref = lidarSweepReference(boxes, desc, pose, motion, { intensity: true, materials: { reflectivity } });
  // The API's arrays as a sweep reads them back: float32 ranges and intensities.
  const f32 = (a: ArrayLike<number>): Float32Array => Float32Array.from(a);
  const cloud = lidarSweepCloud(boxes, desc, pose, motion, {
    range: f32(ref.range), box: ref.box, intensity: f32(ref.intensity!),
    second: { range: f32(ref.second!.range), box: ref.second!.box, intensity: f32(ref.second!.intensity) },
  });
  const A = desc.azimuthSteps;
  /** Each return as (ray, index): a beam's second right after its first. */
  const order = [...ref.box.keys()].flatMap((r) => [...(ref.box[r]! >= 0 ? [[r, 0]] : []), ...(ref.second!.box[r]! >= 0 ? [[r, 1]] : [])]);

  it('has second returns and modelled intensities below 1 to record', () => {
    expect(order.filter(([, j]) => j === 1).length).toBeGreaterThan(20);
    expect(Array.from(ref.intensity!).some((x) => x > 0 && x < 1)).toBe(true);
    expect(cloud.second!.box.filter((b) => b >= 0).length).toBe(order.filter(([, j]) => j === 1).length);
  });

  it('every point, first and second returns, equals the arrays\' float32 values: x y z, intensity, ring, column, time, label, return_index, return_count', async () => {
    const read = await readRecording(await writeMcap([{ cloud, pose, stamp: 3, sensor: 'lidar_top' }]));
    const [m] = read.messages.filter((x) => x.topic === '/lidar_top/points');
    const got = decodePointCloud2(m!.message);
    const f = Math.fround;
    const want = order.map(([r, j]) => {
      const xyz = j === 0 ? cloud.sensorXyz : cloud.second!.sensorXyz;
      const two = ref.second!.box[r!]! >= 0 ? 2 : 1;
      return {
        x: f(xyz[3 * r!]!), y: f(xyz[3 * r! + 1]!), z: f(xyz[3 * r! + 2]!),
        intensity: f(j === 0 ? ref.intensity![r!]! : ref.second!.intensity[r!]!), ring: Math.floor(r! / A), column: r! % A,
        time: f(cloud.time[r!]!), label: j === 0 ? ref.box[r!]! : ref.second!.box[r!]!, return_index: j!, return_count: two,
      };
    });
    expect(got).toEqual(want);
    // A second return lies on its beam's own ray, farther than the first by at least minSeparation.
    for (const [r, j] of order) {
      if (j === 1) {
        expect(ref.second!.range[r!]! - ref.range[r!]!).toBeGreaterThanOrEqual(0.5);
      }
    }
  });

  it("Autoware's layout: intensity round(255 · I), return_type by range and intensity of the beam's two returns (or 7, dual only)", async () => {
    const read = await readRecording(await writeMcap([{ cloud, pose, stamp: 3, sensor: 'lidar_top', points: { layout: 'autoware' } }]));
    const got = decodePointCloud2(read.messages.find((x) => x.topic === '/lidar_top/points')!.message);
    const intensityOf = (r: number, j: number): number => Math.fround(j === 0 ? ref.intensity![r]! : ref.second!.intensity[r]!);
    const rangeOf = (r: number, j: number): number => Math.fround(j === 0 ? ref.range[r]! : ref.second!.range[r]!);
    expect(got.map((p) => p['intensity'])).toEqual(order.map(([r, j]) => Math.round(255 * Math.min(1, intensityOf(r!, j!)))));
    expect(got.map((p) => p['return_type'])).toEqual(order.map(([r, j]) => {
      if (ref.second!.box[r!]! < 0) {
        return 7;
      }
      const k = 1 - j!;
      const isFirst = rangeOf(r!, j!) < rangeOf(r!, k);
      const isStrongest = intensityOf(r!, j!) > intensityOf(r!, k) || (intensityOf(r!, j!) === intensityOf(r!, k) && !isFirst);
      return isFirst ? (isStrongest ? 3 : 5) : (isStrongest ? 4 : 6);
    }));
  });
});
