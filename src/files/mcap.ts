/**
 * MCAP recordings of LiDAR sweeps (https://mcap.dev), written with `@mcap/core`, that Foxglove
 * opens and `ros2 bag play` plays (docs/lidar.md, "Recordings"). One file holds many sweeps of
 * one or more sensors, each sweep as:
 * - `/tf`, `tf2_msgs/msg/TFMessage`: the sensor's pose in the fixed frame at the sweep start
 *   (header.frame_id = the fixed frame, child_frame_id = the sensor's frame);
 * - `/SENSOR/points`, `sensor_msgs/msg/PointCloud2`: the points as the point-cloud writers pack
 *   them (src/files/pointCloud.ts: the same fields, types and options), stamped with the sweep
 *   start; each point's `time` / `t` / `time_stamp` is relative to that stamp;
 * - `/SENSOR/ground_truth`, `foxglove_msgs/msg/SceneUpdate` (with ground truth): one cube entity
 *   per box in the sensor's frame at the sweep start, after deleting the previous sweep's;
 * - `/SENSOR/points/foxglove`, `foxglove_msgs/msg/PointCloud` (optional): the same records.
 *
 * Every channel is ROS 2: schema encoding `ros2msg` (the .msg text with its dependencies, as
 * the "Message Definition Encoding" document of ros2/rosbag2 specifies) and message encoding `cdr`,
 * serialised by `@foxglove/rosmsg2-serialization` from the definitions `@foxglove/rosmsg` parses,
 * with the `offered_qos_profiles` metadata and the `ros2` profile of the MCAP specification
 * (foxglove/mcap docs/specification/profiles/ros2.md). One encoding for all channels because
 * rosbag2's reader refuses a bag whose topics differ in serialization format ("Topics with
 * different rwm serialization format have been found", rosbag2_cpp's SequentialReader): a JSON
 * `foxglove.SceneUpdate` channel would stop `ros2 bag play` from playing the points. Foxglove
 * reads the ROS 2 schema `foxglove_msgs/msg/SceneUpdate` as a SceneUpdate
 * (docs.foxglove.dev, message-schemas/scene-update: "ROS 2 | foxglove_msgs/msg/SceneUpdate");
 * `ros2 bag play` publishes it where the `foxglove_msgs` package is installed and otherwise
 * skips that topic with a warning ("Ignoring a topic", rosbag2_transport's Player).
 *
 * The three packages are optional peer dependencies of webgpu-obb, loaded on first use (in Node,
 * `npm install @mcap/core @foxglove/rosmsg @foxglove/rosmsg2-serialization`); a bundler or browser
 * passes them as `libraries`. Nothing here does I/O: the recorder writes to the caller's
 * {@link McapWritable}, {@link writeMcap} returns the bytes.
 *
 * @example
 * const sweeps: McapSweep[] = [];
 * const path: LidarPose[] = [{ origin: [0, 0, 1.8] }, { origin: [1, 0, 1.8] }, { origin: [2, 0, 1.8] }]; // 10 m/s
 * for (const [k, at] of path.entries()) {
 *   const s = await gpu.lidarSweep(sensor, set, at, { fields: true });
 *   sweeps.push({ cloud: s.fields!, pose: at, stamp: 0.1 * k, groundTruth: lidarGroundTruth(set.boxes, at, s.returnsPerBox) });
 * }
 * const bytes = await writeMcap(sweeps); // open it in Foxglove, or `ros2 bag play` it
 */
import type * as McapCore from '@mcap/core';
import type * as RosMsg from '@foxglove/rosmsg';
import type * as RosMsg2 from '@foxglove/rosmsg2-serialization';
import { checkPose, type LidarPose } from '../core/lidar.ts';
import { detHypot } from '../core/detmath.ts';
import { packPointRecords, type LidarPointCloud, type PointCloudOptions, type PointFieldType } from './pointCloud.ts';
import type { LidarGroundTruthBox } from './groundTruth.ts';

/**
 * Where a recorder writes: `@mcap/core`'s `IWritable` (its `TempBuffer`, `@mcap/nodejs`'s
 * `FileHandleWritable`, or a few lines over a file handle or a stream).
 *
 * @example
 * import { open } from 'node:fs/promises';
 * const file = await open('drive.mcap', 'w');
 * let at = 0n;
 * const writable: McapWritable = {
 *   write: async (bytes) => { await file.write(bytes); at += BigInt(bytes.length); },
 *   position: () => at,
 * };
 */
export interface McapWritable {
  /** Appends `buffer` (the recorder awaits each write before the next). */
  write(buffer: Uint8Array): Promise<unknown>;
  /** Bytes written so far. */
  position(): bigint;
}

/**
 * The three optional packages, for callers whose bundler resolves them (a browser app): the
 * modules `@mcap/core`, `@foxglove/rosmsg` and `@foxglove/rosmsg2-serialization`.
 *
 * @example
 * const libraries: McapLibraries = {
 *   mcap: await import('@mcap/core'), rosmsg: await import('@foxglove/rosmsg'),
 *   rosmsg2: await import('@foxglove/rosmsg2-serialization'),
 * };
 */
export interface McapLibraries {
  readonly mcap: object;
  readonly rosmsg: object;
  readonly rosmsg2: object;
}

/**
 * Options of a recording ({@link McapRecorder.create}, {@link writeMcap}).
 *
 * @example
 * const options: McapRecorderOptions = { fixedFrame: 'map', foxglovePointCloud: true };
 */
export interface McapRecorderOptions {
  /** The fixed frame the sensors' poses are in (default `"world"`); world-frame clouds use it as their frame. */
  readonly fixedFrame?: string;
  /** Also write each cloud as `foxglove_msgs/msg/PointCloud` on `/SENSOR/points/foxglove` (default false). */
  readonly foxglovePointCloud?: boolean;
  /** The packages, when they cannot be imported by name (bundlers, browsers). */
  readonly libraries?: McapLibraries;
}

/**
 * One sweep to record.
 *
 * @example
 * const one: McapSweep = { cloud: sweep.fields!, pose, stamp: 12.5, sensor: 'lidar_top',
 *   points: { ring: 'elevation', elevations: desc.elevations, time: 'nanoseconds' },
 *   groundTruth: lidarGroundTruth(set.boxes, pose, sweep.returnsPerBox) };
 */
export interface McapSweep {
  /** The per-ray fields (a sweep's `fields`, or `lidarPointFields`). */
  readonly cloud: LidarPointCloud;
  /** The sensor's pose in the fixed frame at the sweep start (τ = 0). */
  readonly pose: LidarPose;
  /** The sweep start: seconds (a number) or nanoseconds (a bigint), ≥ 0; not before the previous sweep's. */
  readonly stamp: number | bigint;
  /** The sensor's name: its frame id and topic prefix (default `"lidar"`; letters, digits, `_`). */
  readonly sensor?: string;
  /** How the points are packed (the point-cloud writers' options; default their defaults). */
  readonly points?: PointCloudOptions;
  /** Boxes to draw as cubes, in the sensor frame at the sweep start (`lidarGroundTruth`). */
  readonly groundTruth?: readonly LidarGroundTruthBox[];
  /** Names of the class ids, shown with the cubes. */
  readonly classNames?: readonly string[];
}

/** The loaded packages, typed. */
interface Libraries {
  readonly McapWriter: typeof McapCore.McapWriter;
  readonly parse: typeof RosMsg.parse;
  readonly MessageWriter: typeof RosMsg2.MessageWriter;
}

const PACKAGES = ['@mcap/core', '@foxglove/rosmsg', '@foxglove/rosmsg2-serialization'] as const;

/** A module's export by name, also behind a CommonJS `default` (how Node and bundlers present CJS). */
function exported<T>(module: unknown, name: string, from: string): T {
  const m = module as Record<string, unknown> | undefined;
  const value = m?.[name] ?? (m?.['default'] as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) {
    throw new TypeError(`${from} has no export ${name}: is it ${from === PACKAGES[0] ? '@mcap/core 2' : 'the right package'}?`);
  }
  return value as T;
}

/**
 * Imports a package by a name the bundler does not see: the optional peers stay out of this
 * package's bundle and out of its users' bundles unless they install them (then they pass them as
 * `libraries`).
 */
function importOptional(name: string): Promise<unknown> {
  return import(/* @vite-ignore */ name);
}

async function loadLibraries(given: McapLibraries | undefined): Promise<Libraries> {
  let modules: readonly unknown[];
  if (given !== undefined) {
    if (typeof given !== 'object' || given === null) {
      throw new TypeError('libraries must be { mcap, rosmsg, rosmsg2 }: the modules @mcap/core, @foxglove/rosmsg, @foxglove/rosmsg2-serialization');
    }
    modules = [given.mcap, given.rosmsg, given.rosmsg2];
  } else {
    try {
      modules = await Promise.all(PACKAGES.map(importOptional));
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new Error(
        `MCAP recordings need the optional packages ${PACKAGES.join(', ')}: npm install ${PACKAGES.join(' ')} (${reason})`,
        { cause: error },
      );
    }
  }
  return {
    McapWriter: exported(modules[0], 'McapWriter', PACKAGES[0]),
    parse: exported(modules[1], 'parse', PACKAGES[1]),
    MessageWriter: exported(modules[2], 'MessageWriter', PACKAGES[2]),
  };
}

/**
 * The rosbag2 `ros2msg` delimiter before each dependency: 80 `=` and `MSG: ` with the type as the
 * fields name it (`std_msgs/Header`), as rosbag2's LocalMessageDefinitionSource writes it (and
 * @foxglove/rosmsg matches the fields' types to these names exactly).
 */
const DELIMITER = `${'='.repeat(80)}\nMSG: `;

/** A complete `ros2msg` definition: the message's fields, then each dependency after the delimiter. */
function definition(main: string, dependencies: readonly (readonly [string, string])[]): string {
  return [main, ...dependencies.map(([name, text]) => `${DELIMITER}${name}\n${text}`)].join('\n');
}

// The .msg texts, without their comments. ROS 2's, from ros2/common_interfaces (sensor_msgs,
// std_msgs, geometry_msgs), ros2/geometry2 (tf2_msgs) and ros2/rcl_interfaces
// (builtin_interfaces); Foxglove's from foxglove_msgs for ROS 2 (foxglove/schemas, version 2.1.0
// of @foxglove/schemas generates the same). test/cpu/mcap.test.ts checks each against
// @foxglove/rosmsg-msgs-common's ROS 2 definitions and @foxglove/schemas.
const TIME = ['builtin_interfaces/Time', 'int32 sec\nuint32 nanosec'] as const;
const DURATION = ['builtin_interfaces/Duration', 'int32 sec\nuint32 nanosec'] as const;
const HEADER = ['std_msgs/Header', 'builtin_interfaces/Time stamp\nstring frame_id'] as const;
const VECTOR3 = ['geometry_msgs/Vector3', 'float64 x\nfloat64 y\nfloat64 z'] as const;
const POINT = ['geometry_msgs/Point', 'float64 x\nfloat64 y\nfloat64 z'] as const;
const QUATERNION = ['geometry_msgs/Quaternion', 'float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1'] as const;
const POSE = ['geometry_msgs/Pose', 'Point position\nQuaternion orientation'] as const;
const COLOR = ['foxglove_msgs/Color', 'float64 r\nfloat64 g\nfloat64 b\nfloat64 a'] as const;

/** The schemas a recording registers: name → complete `ros2msg` definition. */
export const MCAP_SCHEMAS = {
  'sensor_msgs/msg/PointCloud2': definition(
    'std_msgs/Header header\nuint32 height\nuint32 width\nPointField[] fields\nbool is_bigendian\n' +
    'uint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense',
    [HEADER, TIME, ['sensor_msgs/PointField',
      'uint8 INT8 = 1\nuint8 UINT8 = 2\nuint8 INT16 = 3\nuint8 UINT16 = 4\nuint8 INT32 = 5\nuint8 UINT32 = 6\n' +
      'uint8 FLOAT32 = 7\nuint8 FLOAT64 = 8\nstring name\nuint32 offset\nuint8 datatype\nuint32 count']],
  ),
  'tf2_msgs/msg/TFMessage': definition('geometry_msgs/TransformStamped[] transforms', [
    ['geometry_msgs/TransformStamped', 'std_msgs/Header header\nstring child_frame_id\nTransform transform'],
    HEADER, TIME, ['geometry_msgs/Transform', 'Vector3 translation\nQuaternion rotation'], VECTOR3, QUATERNION,
  ]),
  'foxglove_msgs/msg/SceneUpdate': definition('foxglove_msgs/SceneEntityDeletion[] deletions\nfoxglove_msgs/SceneEntity[] entities', [
    ['foxglove_msgs/SceneEntityDeletion', 'builtin_interfaces/Time timestamp\nuint8 MATCHING_ID=0\nuint8 ALL=1\nuint8 type\nstring id'],
    ['foxglove_msgs/SceneEntity',
      'builtin_interfaces/Time timestamp\nstring frame_id\nstring id\nbuiltin_interfaces/Duration lifetime\nbool frame_locked\n' +
      'foxglove_msgs/KeyValuePair[] metadata\nfoxglove_msgs/ArrowPrimitive[] arrows\nfoxglove_msgs/CubePrimitive[] cubes\n' +
      'foxglove_msgs/SpherePrimitive[] spheres\nfoxglove_msgs/CylinderPrimitive[] cylinders\nfoxglove_msgs/LinePrimitive[] lines\n' +
      'foxglove_msgs/TriangleListPrimitive[] triangles\nfoxglove_msgs/TextPrimitive[] texts\nfoxglove_msgs/ModelPrimitive[] models'],
    TIME, DURATION,
    ['foxglove_msgs/KeyValuePair', 'string key\nstring value'],
    ['foxglove_msgs/ArrowPrimitive',
      'geometry_msgs/Pose pose\nfloat64 shaft_length\nfloat64 shaft_diameter\nfloat64 head_length\nfloat64 head_diameter\nfoxglove_msgs/Color color'],
    POSE, POINT, QUATERNION, COLOR,
    ['foxglove_msgs/CubePrimitive', 'geometry_msgs/Pose pose\ngeometry_msgs/Vector3 size\nfoxglove_msgs/Color color'],
    VECTOR3,
    ['foxglove_msgs/SpherePrimitive', 'geometry_msgs/Pose pose\ngeometry_msgs/Vector3 size\nfoxglove_msgs/Color color'],
    ['foxglove_msgs/CylinderPrimitive',
      'geometry_msgs/Pose pose\ngeometry_msgs/Vector3 size\nfloat64 bottom_scale\nfloat64 top_scale\nfoxglove_msgs/Color color'],
    ['foxglove_msgs/LinePrimitive',
      'uint8 LINE_STRIP=0\nuint8 LINE_LOOP=1\nuint8 LINE_LIST=2\nuint8 type\ngeometry_msgs/Pose pose\nfloat64 thickness\n' +
      'bool scale_invariant\ngeometry_msgs/Point[] points\nfoxglove_msgs/Color color\nfoxglove_msgs/Color[] colors\nuint32[] indices'],
    ['foxglove_msgs/TriangleListPrimitive',
      'geometry_msgs/Pose pose\ngeometry_msgs/Point[] points\nfoxglove_msgs/Color color\nfoxglove_msgs/Color[] colors\nuint32[] indices'],
    ['foxglove_msgs/TextPrimitive',
      'geometry_msgs/Pose pose\nbool billboard\nfloat64 font_size\nbool scale_invariant\nfoxglove_msgs/Color color\nstring text'],
    ['foxglove_msgs/ModelPrimitive',
      'geometry_msgs/Pose pose\ngeometry_msgs/Vector3 scale\nfoxglove_msgs/Color color\nbool override_color\nstring url\n' +
      'string media_type\nuint8[] data'],
  ]),
  'foxglove_msgs/msg/PointCloud': definition(
    'builtin_interfaces/Time timestamp\nstring frame_id\ngeometry_msgs/Pose pose\nuint32 point_stride\n' +
    'foxglove_msgs/PackedElementField[] fields\nuint8[] data',
    [TIME, POSE, POINT, QUATERNION, ['foxglove_msgs/PackedElementField',
      'string name\nuint32 offset\nuint8 UNKNOWN=0\nuint8 UINT8=1\nuint8 INT8=2\nuint8 UINT16=3\nuint8 INT16=4\n' +
      'uint8 UINT32=5\nuint8 INT32=6\nuint8 FLOAT32=7\nuint8 FLOAT64=8\nuint8 type']],
  ),
} as const;

type SchemaName = keyof typeof MCAP_SCHEMAS;

/**
 * What a recorder announces for each channel as `offered_qos_profiles`: reliable, volatile, the
 * RMW defaults elsewhere, in the YAML form rosbag2 (Humble) writes for a topic (bag metadata
 * version ≤ 8, which rosbag2's MCAP reader assumes for a file without its own metadata record).
 */
const QOS_PROFILES =
  '- history: 3\n  depth: 0\n  reliability: 1\n  durability: 2\n  deadline:\n    sec: 9223372036\n    nsec: 854775807\n' +
  '  lifespan:\n    sec: 9223372036\n    nsec: 854775807\n  liveliness: 1\n  liveliness_lease_duration:\n' +
  '    sec: 9223372036\n    nsec: 854775807\n  avoid_ros_namespace_conventions: false';

/** `sensor_msgs/PointField` datatypes. */
const ROS_DATATYPE: Readonly<Record<PointFieldType, number>> = { uint8: 2, uint16: 4, int32: 5, uint32: 6, float32: 7, float64: 8 };
/** `foxglove_msgs/PackedElementField` types. */
const FOXGLOVE_TYPE: Readonly<Record<PointFieldType, number>> = { uint8: 1, uint16: 3, uint32: 5, int32: 6, float32: 7, float64: 8 };

/** Colours of the cubes by class id (a short qualitative palette, then repeated). */
const PALETTE: readonly (readonly [number, number, number])[] = [
  [0.12, 0.47, 0.71], [1, 0.5, 0.05], [0.17, 0.63, 0.17], [0.84, 0.15, 0.16], [0.58, 0.4, 0.74], [0.55, 0.34, 0.29], [0.89, 0.47, 0.76], [0.5, 0.5, 0.5],
];

const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
/** Largest stamp a ROS 2 `builtin_interfaces/Time` holds (int32 seconds). */
const MAX_STAMP_NS = 2n ** 31n * 1_000_000_000n - 1n;

function stampNanoseconds(stamp: number | bigint): bigint {
  let ns: bigint;
  if (typeof stamp === 'bigint') {
    ns = stamp;
  } else if (typeof stamp === 'number' && Number.isFinite(stamp)) {
    ns = BigInt(Math.round(stamp * 1e9));
  } else {
    throw new RangeError(`stamp must be seconds (a finite number) or nanoseconds (a bigint) (got ${String(stamp)})`);
  }
  if (ns < 0n || ns > MAX_STAMP_NS) {
    throw new RangeError(`stamp must be between 0 and 2^31 s (a ROS 2 time; got ${String(stamp)})`);
  }
  return ns;
}

function rosTime(ns: bigint): { sec: number; nanosec: number } {
  return { sec: Number(ns / 1_000_000_000n), nanosec: Number(ns % 1_000_000_000n) };
}

function unitQuaternion(q: readonly number[] | undefined): { x: number; y: number; z: number; w: number } {
  const [x, y, z, w] = q ?? [0, 0, 0, 1];
  const len = detHypot(x!, y!, z!, w!);
  return { x: x! / len, y: y! / len, z: z! / len, w: w! / len };
}

/**
 * Records LiDAR sweeps into one MCAP file (the module's channels and schemas). Create it on a
 * writable, `add` each sweep (awaiting each call: `@mcap/core`'s writer takes one call at a
 * time), then `close`: the file is complete (summary, indexes, statistics) only after `close`.
 *
 * @example
 * import { TempBuffer } from '@mcap/core'; // or a file: McapWritable
 * const path: LidarPose[] = [{ origin: [0, 0, 1.8] }, { origin: [1, 0, 1.8] }];
 * const recorder = await McapRecorder.create(new TempBuffer());
 * for (const [k, at] of path.entries()) {
 *   const s = await gpu.lidarSweep(sensor, set, at, { fields: true });
 *   await recorder.add({ cloud: s.fields!, pose: at, stamp: k * 0.1, groundTruth: lidarGroundTruth(set.boxes, at, s.returnsPerBox) });
 * }
 * await recorder.close();
 */
export class McapRecorder {
  readonly #lib: Libraries;
  readonly #writer: McapCore.McapWriter;
  readonly #fixedFrame: string;
  readonly #foxglove: boolean;
  readonly #schemas = new Map<SchemaName, { id: number; writer: RosMsg2.MessageWriter }>();
  readonly #channels = new Map<string, { id: number; sequence: number; schema: SchemaName }>();
  #last = -1n;
  #busy = false;
  #closed = false;
  #sweeps = 0;
  #messages = 0;

  private constructor(lib: Libraries, writer: McapCore.McapWriter, options: McapRecorderOptions) {
    this.#lib = lib;
    this.#writer = writer;
    this.#fixedFrame = options.fixedFrame ?? 'world';
    this.#foxglove = options.foxglovePointCloud ?? false;
  }

  /**
   * A recorder writing to `writable`: loads the packages (or takes `options.libraries`) and
   * writes the MCAP header (profile `ros2`). Rejects when the packages are missing, saying how to
   * install them.
   *
   * @example
   * import { TempBuffer } from '@mcap/core';
   * const recorder = await McapRecorder.create(new TempBuffer(), { fixedFrame: 'map' });
   */
  static async create(writable: McapWritable, options: McapRecorderOptions = {}): Promise<McapRecorder> {
    if (typeof writable !== 'object' || writable === null || typeof writable.write !== 'function' || typeof writable.position !== 'function') {
      throw new TypeError('writable must have write(bytes) and position()');
    }
    const fixedFrame = options.fixedFrame ?? 'world';
    if (typeof fixedFrame !== 'string' || !NAME.test(fixedFrame)) {
      throw new RangeError(`fixedFrame must be a frame name of letters, digits and _ (got ${String(fixedFrame)})`);
    }
    const lib = await loadLibraries(options.libraries);
    // @mcap/core's defaults: chunked (1 MiB, uncompressed, as rosbag2 writes by default), message
    // and chunk indexes, statistics, the schemas and channels repeated in the summary.
    const writer = new lib.McapWriter({ writable });
    await writer.start({ profile: 'ros2', library: 'webgpu-obb' });
    return new McapRecorder(lib, writer, options);
  }

  /** Sweeps recorded so far. */
  get sweeps(): number {
    return this.#sweeps;
  }

  /** Messages written so far (all channels). */
  get messages(): number {
    return this.#messages;
  }

  async #channel(topic: string, schema: SchemaName): Promise<{ id: number; sequence: number; schema: SchemaName }> {
    const known = this.#channels.get(topic);
    if (known) {
      return known;
    }
    let s = this.#schemas.get(schema);
    if (!s) {
      const text = MCAP_SCHEMAS[schema];
      const id = await this.#writer.registerSchema({ name: schema, encoding: 'ros2msg', data: new TextEncoder().encode(text) });
      s = { id, writer: new this.#lib.MessageWriter(this.#lib.parse(text, { ros2: true })) };
      this.#schemas.set(schema, s);
    }
    const id = await this.#writer.registerChannel({
      topic, schemaId: s.id, messageEncoding: 'cdr', metadata: new Map([['offered_qos_profiles', QOS_PROFILES]]),
    });
    const channel = { id, sequence: 0, schema };
    this.#channels.set(topic, channel);
    return channel;
  }

  async #write(topic: string, schema: SchemaName, time: bigint, message: unknown): Promise<void> {
    const channel = await this.#channel(topic, schema);
    const data = this.#schemas.get(schema)!.writer.writeMessage(message);
    await this.#writer.addMessage({ channelId: channel.id, sequence: channel.sequence++, logTime: time, publishTime: time, data });
    this.#messages++;
  }

  /**
   * Records one sweep: its pose on `/tf`, its points on `/SENSOR/points` (and
   * `/SENSOR/points/foxglove` when asked), its ground truth on `/SENSOR/ground_truth`, all at the
   * sweep's stamp (log and publish time). Stamps must not decrease from one sweep to the next.
   * Rejects with a RangeError naming what does not fit (before writing anything of the sweep).
   *
   * @example
   * import { TempBuffer } from '@mcap/core';
   * const recorder = await McapRecorder.create(new TempBuffer());
   * await recorder.add({ cloud: sweep.fields!, pose, stamp: 0.1, sensor: 'lidar_top' });
   */
  async add(sweep: McapSweep): Promise<void> {
    if (this.#closed) {
      throw new Error('McapRecorder.add: the recording is closed');
    }
    if (this.#busy) {
      throw new Error('McapRecorder.add: the previous call has not finished (await each call)');
    }
    if (typeof sweep !== 'object' || sweep === null) {
      throw new RangeError('sweep must be { cloud, pose, stamp, sensor?, points?, groundTruth?, classNames? }');
    }
    const sensor = sweep.sensor ?? 'lidar';
    if (typeof sensor !== 'string' || !NAME.test(sensor)) {
      throw new RangeError(`sensor must be a name of letters, digits and _ (got ${String(sensor)})`);
    }
    if (sensor === this.#fixedFrame) {
      throw new RangeError(`sensor must differ from the fixed frame (${this.#fixedFrame})`);
    }
    const ns = stampNanoseconds(sweep.stamp);
    if (ns < this.#last) {
      throw new RangeError(`stamp ${String(sweep.stamp)} is before the previous sweep's: add sweeps in time order`);
    }
    checkPose(sweep.pose, 'pose');
    const records = packPointRecords(sweep.cloud, sweep.points);
    const truth = sweep.groundTruth ?? undefined;
    if (truth !== undefined && !Array.isArray(truth)) {
      throw new RangeError('groundTruth must be an array of boxes (lidarGroundTruth)');
    }
    const stamp = rosTime(ns);
    const frame = (sweep.points?.frame ?? 'sensor') === 'world' ? this.#fixedFrame : sensor;
    this.#busy = true;
    try {
      const o = sweep.pose.origin;
      await this.#write('/tf', 'tf2_msgs/msg/TFMessage', ns, {
        transforms: [{
          header: { stamp, frame_id: this.#fixedFrame }, child_frame_id: sensor,
          transform: { translation: { x: o[0], y: o[1], z: o[2] }, rotation: unitQuaternion(sweep.pose.rotation) },
        }],
      });
      await this.#write(`/${sensor}/points`, 'sensor_msgs/msg/PointCloud2', ns, {
        header: { stamp, frame_id: frame },
        height: records.height, width: records.width,
        fields: records.fields.map((f) => ({ name: f.name, offset: f.offset, datatype: ROS_DATATYPE[f.type], count: 1 })),
        is_bigendian: false, point_step: records.pointStep, row_step: records.pointStep * records.width,
        data: records.data, is_dense: records.dense,
      });
      if (this.#foxglove) {
        await this.#write(`/${sensor}/points/foxglove`, 'foxglove_msgs/msg/PointCloud', ns, {
          timestamp: stamp, frame_id: frame,
          pose: { position: { x: 0, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
          point_stride: records.pointStep,
          fields: records.fields.map((f) => ({ name: f.name, offset: f.offset, type: FOXGLOVE_TYPE[f.type] })),
          data: records.data,
        });
      }
      if (truth !== undefined) {
        await this.#write(`/${sensor}/ground_truth`, 'foxglove_msgs/msg/SceneUpdate', ns, sceneUpdate(truth, stamp, sensor, sweep.classNames));
      }
      this.#last = ns;
      this.#sweeps++;
    } finally {
      this.#busy = false;
    }
  }

  /**
   * Ends the recording: writes the summary (schemas, channels, statistics, chunk indexes) and the
   * footer. The recorder takes no more sweeps; closing twice is a no-op.
   *
   * @example
   * import { TempBuffer } from '@mcap/core';
   * const recorder = await McapRecorder.create(new TempBuffer());
   * await recorder.add({ cloud, pose, stamp: 0 });
   * await recorder.close();
   */
  async close(): Promise<void> {
    if (this.#closed) {
      return;
    }
    if (this.#busy) {
      throw new Error('McapRecorder.close: a call to add has not finished (await it first)');
    }
    this.#closed = true;
    await this.#writer.end();
  }
}

/** The ground truth as a SceneUpdate: delete the earlier boxes, then one cube (and a label) per box. */
function sceneUpdate(truth: readonly LidarGroundTruthBox[], stamp: { sec: number; nanosec: number }, frame: string, classNames: readonly string[] | undefined): unknown {
  const pose = (p: readonly number[], q: readonly number[]) => ({ position: { x: p[0], y: p[1], z: p[2] }, orientation: { x: q[0], y: q[1], z: q[2], w: q[3] } });
  return {
    // Entities persist until replaced: drop every entity stamped before this sweep.
    deletions: [{ timestamp: stamp, type: 1, id: '' }],
    entities: truth.map((t) => {
      const [r, g, b] = PALETTE[t.classId % PALETTE.length]!;
      const name = classNames?.[t.classId] ?? `class ${t.classId}`;
      return {
        timestamp: stamp, frame_id: frame, id: `box ${t.id}`, lifetime: { sec: 0, nanosec: 0 }, frame_locked: false,
        metadata: [
          { key: 'id', value: String(t.id) }, { key: 'class', value: name }, { key: 'classId', value: String(t.classId) },
          { key: 'points', value: String(t.points) },
        ],
        arrows: [], spheres: [], cylinders: [], lines: [], triangles: [], models: [],
        cubes: [{ pose: pose(t.center, t.rotation), size: { x: t.extents[0], y: t.extents[1], z: t.extents[2] }, color: { r, g, b, a: 0.35 } }],
        texts: [{
          pose: pose([t.center[0], t.center[1], t.center[2] + t.size[2] / 2], [0, 0, 0, 1]), billboard: true, font_size: 14,
          scale_invariant: true, color: { r: 1, g: 1, b: 1, a: 1 }, text: `${name} #${t.id} (${t.points})`,
        }],
      };
    }),
  };
}

/** An in-memory writable whose bytes end as one exactly-sized Uint8Array. */
class Growable implements McapWritable {
  #bytes = new Uint8Array(1 << 16);
  #length = 0;

  write(buffer: Uint8Array): Promise<void> {
    if (this.#length + buffer.length > this.#bytes.length) {
      const next = new Uint8Array(Math.max(this.#bytes.length * 2, this.#length + buffer.length));
      next.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = next;
    }
    this.#bytes.set(buffer, this.#length);
    this.#length += buffer.length;
    return Promise.resolve();
  }

  position(): bigint {
    return BigInt(this.#length);
  }

  bytes(): Uint8Array {
    return this.#bytes.slice(0, this.#length);
  }
}

/**
 * One MCAP file of `sweeps` in memory ({@link McapRecorder} on an in-memory writable): the bytes,
 * spanning their whole `ArrayBuffer`. For recordings larger than memory, use the recorder on a
 * file. `onSweep` hears (sweeps done, sweeps) after each.
 *
 * @example
 * import { writeFileSync } from 'node:fs';
 * const sweeps: McapSweep[] = [{ cloud, pose, stamp: 0 }];
 * writeFileSync('drive.mcap', await writeMcap(sweeps, { fixedFrame: 'map' }));
 */
export async function writeMcap(
  sweeps: Iterable<McapSweep> | AsyncIterable<McapSweep>, options: McapRecorderOptions & { readonly onSweep?: (done: number, total: number | undefined) => void } = {},
): Promise<Uint8Array> {
  const out = new Growable();
  const recorder = await McapRecorder.create(out, options);
  const total = Array.isArray(sweeps) ? sweeps.length : undefined;
  for await (const sweep of sweeps) {
    await recorder.add(sweep);
    options.onSweep?.(recorder.sweeps, total);
  }
  await recorder.close();
  return out.bytes();
}
