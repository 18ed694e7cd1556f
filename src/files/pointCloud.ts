/**
 * Point-cloud files of one LiDAR sweep: PCD, PLY and KITTI's velodyne `.bin`, written from the
 * sweep's per-ray fields ({@link LidarPointCloud}). Pure functions from typed arrays to bytes:
 * browser- and Node-safe (no `node:` imports, no I/O). Each writer returns a `Uint8Array` that
 * spans its whole `ArrayBuffer` (byteOffset 0), so `bytes.buffer` is the file.
 *
 * Which points: only rays with a return (`range[r] >= 0`; NaN counts as no return), in ray order
 * r = channel c · columns + column a (channel-major: all of channel 0's columns, then channel 1's, …).
 * The clouds are unorganised (PCD HEIGHT 1) unless `organized: true` (below); `ring` and `column`
 * give each point's place in the channel × column grid.
 *
 * Fields of each point, PCD and PLY alike, in this order (little-endian; headers are ASCII):
 * - `x y z`: the return's position. Sensor frame (the default): float32 (PCD `SIZE 4 TYPE F`,
 *   PLY `float`), in the frame of the sensor at the ray's own time, where float32 is ample (ranges
 *   up to a few km). World frame: float64 (PCD `SIZE 8 TYPE F`, PLY `double`), because world
 *   coordinates far from the origin lose precision in float32 (at 10⁶ m float32's spacing is
 *   6.25 cm).
 * - `intensity`, float32 (PCD `4 F`, PLY `float`): the modelled intensity when the cloud has one
 *   (`cloud.intensity`: the sweep computed it from the boxes' reflectivities, the incidence and
 *   the sensor's range and atmosphere terms; docs/lidar.md, "Materials and intensity"), else the
 *   cosine of the angle between the ray and the hit face's normal, in [0, 1] (1 = head-on,
 *   towards 0 at grazing incidence); the header's comment says which.
 * - `ring`, uint16 (PCD `2 U`, PLY `ushort`): the channel c, 0 … channels − 1 (uint16 as in the
 *   Velodyne and Ouster ROS drivers; a cloud with more than 65,536 channels is rejected). With
 *   `ring: 'elevation'`, the rank of the channel's elevation instead ({@link elevationRings}).
 * - `column`, uint32 (PCD `4 U`, PLY `uint`): the column (azimuth step) a, 0 … columns − 1. uint32
 *   rather than uint16 because the library puts no upper limit on a sensor's column count
 *   (`azimuthSteps`), so uint16 could overflow.
 * - `time`, float32 (PCD `4 F`, PLY `float`): seconds from the start of the sweep to the ray (the
 *   same for every ray of a column). Named `time` and stored as float32 seconds relative to the
 *   sweep start because that is exactly the Velodyne ROS driver's per-point field (PointXYZIRT:
 *   x y z intensity ring time), the layout deskewing tools such as LIO-SAM read. Ouster's driver
 *   calls its field `t` but stores uint32 nanoseconds, so a float-seconds `t` would be misread by
 *   tools that follow Ouster's convention. float32 resolves a 0.1 s sweep to about 7 ns. With
 *   `time: 'nanoseconds'` the field is Ouster's instead: `t`, uint32 (PCD `4 U`, PLY `uint`),
 *   round(time · 10⁹) nanoseconds from the sweep start.
 * - `label`, int32 (PCD `4 I`, PLY `int`): the box hit, i.e. the ground-truth instance id (the
 *   box's index in the set).
 * - `class`, uint16 (PCD `2 U`, PLY `ushort`), only with `classIds`: the semantic class of the box
 *   hit, `classIds[label]`; 65535 where there is no return (organised clouds).
 * - `return_index` and `return_count`, uint8 (PCD `1 U`, PLY `uchar`), only for a cloud with
 *   second returns (`cloud.second`, a dual-return beam): each second return is a point of its own,
 *   right after its beam's first, `return_index` 0 for the first and 1 for the second, and
 *   `return_count` the beam's returns (1 or 2).
 *
 * The other conventions, as options ({@link PointCloudOptions}; docs/lidar.md, "Conventions"):
 * - `ring: 'elevation'`: the ROS Velodyne driver's ring numbers (channels ranked by ascending
 *   elevation); `elevations` (the sensor's, radians) is then required.
 * - `layout: 'autoware'`: Autoware's `PointXYZIRCAEDT`, 32 bytes, sensor frame only: `x y z`
 *   float32, `intensity` uint8 (round(255 · intensity)), `return_type` uint8 (autoware's
 *   ReturnType: 1 SINGLE_STRONGEST, 2 SINGLE_LAST, and for a dual beam 3–6 strongest/weak
 *   first/last or 7 DUAL_ONLY; returnType below), `channel` uint16 (the ring), `azimuth`
 *   float32 (atan2(y, x) in [0, 2π) rad), `elevation` float32 (atan2(z, hypot(x, y)) rad),
 *   `distance` float32 (hypot(x, y, z), m), `time_stamp` uint32 (nanoseconds from the sweep start).
 * - `organized: true`: every ray is a point, rows = channels (PCD `HEIGHT` = channels, `WIDTH` =
 *   columns), row k holding the channel whose ring is k and column a in place a; a ray without a
 *   return has x y z NaN (and azimuth, elevation, distance NaN), intensity 0, label −1.
 *
 * PCD v0.7 (`DATA binary`): by default `FIELDS x y z intensity ring column time label`, a 30-byte
 * packed record in the sensor frame, 42 bytes in the world frame; `WIDTH` = `POINTS` = the number
 * of returns, `HEIGHT 1`, `VIEWPOINT 0 0 0 1 0 0 0`, and a second `#` comment line naming the frame
 * (readers skip `#` lines). The viewpoint is the identity in both frames: the
 * cloud carries no sensor pose (and the pose may change during the sweep). Readers that map
 * `x y z` into float-only point types (PCL's `pcl::PointXYZ…`) match only float32 fields, so read
 * a world-frame file into a generic cloud (e.g. `pcl::PCLPointCloud2`) or write the sensor frame.
 *
 * PLY (`format binary_little_endian 1.0`): one `vertex` element, its properties as above, in the
 * same order (`float|double x y z`, `float intensity`, `ushort ring`, `uint column`,
 * `float time`, `int label`), and no faces; `comment` lines name the frame and the fields.
 *
 * KITTI velodyne `.bin`: no header, 16 bytes per point: float32 x, y, z, reflectance, in the
 * sensor frame. Reflectance is the intensity above (KITTI's reflectance is in [0, 1] too); second
 * returns are points too.
 * KITTI's velodyne frame is x forward, y left, z up: it equals the sensor frame when the sensor is
 * mounted with its +x axis forward and +z up (the sensor frame is right-handed, azimuth 0 along
 * +x, elevation toward +z, so +y is then left).
 *
 * @example
 * import { writeFile } from 'node:fs/promises'; // in Node
 * const bytes = writePcd(cloud, { frame: 'world' }); // PCD with float64 x y z
 * await writeFile(`sweep${pointCloudExtension('pcd')}`, bytes);
 */
import { detAtan2, detHypot } from '../core/detmath.ts';

/**
 * Per-ray fields of one sweep (ray r = channel c · columns + column a), as the library produces
 * them.
 *
 * @example
 * const cloud: LidarPointCloud = { channels: 1, columns: 2, range: new Float32Array([5, -1]),
 *   box: new Int32Array([3, -1]), sensorXyz: new Float64Array([5, 0, 0, 0, 0, 0]),
 *   worldXyz: new Float64Array([105, 0, 0, 0, 0, 0]), time: new Float64Array([0, 0.05]),
 *   incidence: new Float32Array([1, 0]) };
 */
export interface LidarPointCloud {
  readonly channels: number;
  readonly columns: number;
  /** Range per ray, world units; −1 = no return. */
  readonly range: Float32Array;
  /** Box hit per ray (ground-truth instance id), −1 = none. */
  readonly box: Int32Array;
  /** xyz per ray in the sensor frame at the ray's own time, float64 (3 per ray; meaningless where no return). */
  readonly sensorXyz: Float64Array;
  /** xyz per ray in world coordinates, float64. */
  readonly worldXyz: Float64Array;
  /** Time of each ray from the start of the sweep, seconds (per ray; same for a column). */
  readonly time: Float64Array;
  /** Cosine of the angle between the ray and the hit face's normal, in [0, 1]; 0 where no return. */
  readonly incidence: Float32Array;
  /**
   * The modelled intensity of each return (`sweep.intensity`: reflectivity, incidence, range and
   * atmosphere; 0 where no return), when the sweep computed it: the files' `intensity` is this,
   * else the incidence cosine.
   */
  readonly intensity?: Float32Array | undefined;
  /**
   * A beam's second returns (dual mode; `sweep.second`), per ray with the first return's fields:
   * the writers add them as points of their own, with `return_index` 1.
   */
  readonly second?: LidarSecondPoints | undefined;
  /** The beam's return mode (its description's `beam.returns`; default 'strongest'): Autoware's `return_type`. */
  readonly returnMode?: 'strongest' | 'last' | 'dual' | undefined;
}

/**
 * The second returns of a dual-return sweep, per ray (range −1 and box −1 where a beam has one
 * return or none); a second return's time is its ray's.
 *
 * @example
 * const second: LidarSecondPoints = { range: Float32Array.of(30, -1), box: Int32Array.of(2, -1),
 *   sensorXyz: new Float64Array(6), worldXyz: new Float64Array(6), incidence: new Float32Array(2), intensity: new Float32Array(2) };
 */
export interface LidarSecondPoints {
  readonly range: Float32Array;
  readonly box: Int32Array;
  readonly sensorXyz: Float64Array;
  readonly worldXyz: Float64Array;
  readonly incidence: Float32Array;
  readonly intensity?: Float32Array | undefined;
}

/**
 * The frame of a file's `x y z`: the sensor's (float32) or the world's (float64).
 *
 * @example
 * const frame: PointFrame = 'world';
 * writePly(cloud, { frame });
 */
export type PointFrame = 'sensor' | 'world';

/**
 * What a point's `ring` (Autoware: `channel`) holds: the laser's index in the sensor's table
 * (`'laser'`, the channel c) or the rank of its elevation from the lowest (`'elevation'`, the ROS
 * Velodyne driver's ring numbers).
 *
 * @example
 * writePcd(cloud, { ring: 'elevation', elevations: desc.elevations });
 */
export type RingOrder = 'laser' | 'elevation';

/**
 * How a point's time is stored: float32 seconds in a field `time` (the Velodyne ROS driver's) or
 * uint32 nanoseconds in a field `t` (Ouster's), both from the sweep's start.
 *
 * @example
 * writePcd(cloud, { time: 'nanoseconds' }); // field t, uint32
 */
export type PointTime = 'seconds' | 'nanoseconds';

/**
 * The record layout: this library's (`x y z intensity ring column time label`) or Autoware's
 * `PointXYZIRCAEDT` (`x y z intensity return_type channel azimuth elevation distance time_stamp`).
 *
 * @example
 * writePcd(cloud, { layout: 'autoware' }); // 32-byte records
 */
export type PointLayout = 'default' | 'autoware';

/**
 * Options of {@link writePcd}, {@link writePly}, {@link writePointCloud} and
 * {@link packPointRecords}. Every option has a default that writes the file as before it existed.
 *
 * @example
 * const options: PointCloudOptions = { frame: 'sensor' }; // the default
 * const ros: PointCloudOptions = { ring: 'elevation', elevations: desc.elevations, time: 'nanoseconds', organized: true };
 */
export interface PointCloudOptions {
  /** Frame of `x y z` (default `'sensor'`). KITTI files are always in the sensor frame. */
  readonly frame?: PointFrame;
  /** What `ring` holds (default `'laser'`); `'elevation'` needs `elevations`. */
  readonly ring?: RingOrder;
  /** The sensor's elevation per channel, radians (its description's `elevations`), for `ring: 'elevation'`. */
  readonly elevations?: ArrayLike<number>;
  /** Float32 seconds in `time` (default) or uint32 nanoseconds in `t`. */
  readonly time?: PointTime;
  /** The record layout (default `'default'`); `'autoware'` is sensor-frame only, its time always nanoseconds. */
  readonly layout?: PointLayout;
  /** Write every ray, channels × columns, NaN where no return (default false: the returns only). */
  readonly organized?: boolean;
  /**
   * A semantic class id per box of the set (0 … 65534; a `Uint16Array` or numbers): adds the
   * field `class` after `label`. Not with the Autoware layout.
   */
  readonly classIds?: ArrayLike<number>;
}

/**
 * The formats {@link writePointCloud} writes.
 *
 * @example
 * const files: Partial<Record<PointCloudFormat, Uint8Array>> = {};
 * for (const format of POINT_CLOUD_FORMATS) files[format] = writePointCloud(format, cloud);
 */
export const POINT_CLOUD_FORMATS = ['pcd', 'ply', 'kitti'] as const;

/**
 * One of {@link POINT_CLOUD_FORMATS}.
 *
 * @example
 * const format: PointCloudFormat = 'kitti';
 */
export type PointCloudFormat = (typeof POINT_CLOUD_FORMATS)[number];

/**
 * The scalar type of a point field. Their names in the formats: PCD `TYPE`/`SIZE` F 4, F 8, U 1,
 * U 2, U 4, I 4; PLY `float double uchar ushort uint int`; ROS `sensor_msgs/PointField` datatypes
 * FLOAT32 = 7, FLOAT64 = 8, UINT8 = 2, UINT16 = 4, UINT32 = 6, INT32 = 5.
 *
 * @example
 * const type: PointFieldType = 'uint16'; // ring
 */
export type PointFieldType = 'float32' | 'float64' | 'uint8' | 'uint16' | 'uint32' | 'int32';

/**
 * One field of the packed point records: its name, scalar type and byte offset in a record.
 *
 * @example
 * const ring: PointFieldSpec = { name: 'ring', type: 'uint16', offset: 16 };
 */
export interface PointFieldSpec {
  readonly name: string;
  readonly type: PointFieldType;
  readonly offset: number;
}

/**
 * A sweep's points as packed little-endian records, the body of a binary PCD or PLY file and the
 * `data` of a ROS `sensor_msgs/PointCloud2` (row-major, `height` rows of `width` points,
 * `pointStep` bytes each, no padding).
 *
 * @example
 * const { fields, pointStep, width, height, data } = packPointRecords(cloud, { organized: true });
 * // height = cloud.channels, width = cloud.columns, data.length = height · width · pointStep
 */
export interface PointRecords {
  readonly fields: readonly PointFieldSpec[];
  readonly pointStep: number;
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
  /** The ray of each record (`height · width` of them); for an organised cloud every ray, rows in ring order. */
  readonly rays: Uint32Array;
  /** True when no record holds a NaN position (PointCloud2's `is_dense`): always for unorganised clouds. */
  readonly dense: boolean;
}

/** Ring is written as uint16: at most this many channels. */
const MAX_CHANNELS = 0x10000;
/** Column is written as uint32: at most this many columns. */
const MAX_COLUMNS = 0x1_0000_0000;
/** `class` of a point without a return (organised clouds); class ids go up to one below it. */
const NO_CLASS = 0xffff;
/**
 * Autoware's `ReturnType` (autowarefoundation/autoware.universe,
 * `common/autoware_point_types/include/autoware/point_types/types.hpp` at af5f855: INVALID = 0,
 * SINGLE_STRONGEST, SINGLE_LAST, DUAL_STRONGEST_FIRST, DUAL_STRONGEST_LAST, DUAL_WEAK_FIRST,
 * DUAL_WEAK_LAST, DUAL_ONLY; ouster-ros's `os_point.h` mirrors it).
 */
const RETURN_TYPE = {
  INVALID: 0, SINGLE_STRONGEST: 1, SINGLE_LAST: 2, DUAL_STRONGEST_FIRST: 3, DUAL_STRONGEST_LAST: 4, DUAL_WEAK_FIRST: 5, DUAL_WEAK_LAST: 6, DUAL_ONLY: 7,
} as const;

const TYPE_SIZE: Readonly<Record<PointFieldType, number>> = { float32: 4, float64: 8, uint8: 1, uint16: 2, uint32: 4, int32: 4 };
const PCD_TYPE: Readonly<Record<PointFieldType, string>> = { float32: 'F', float64: 'F', uint8: 'U', uint16: 'U', uint32: 'U', int32: 'I' };
const PLY_TYPE: Readonly<Record<PointFieldType, string>> = { float32: 'float', float64: 'double', uint8: 'uchar', uint16: 'ushort', uint32: 'uint', int32: 'int' };

/** Throws a RangeError naming the field, unless the cloud's arrays fit channels × columns. */
function checkCloud(cloud: LidarPointCloud): number {
  if (typeof cloud !== 'object' || cloud === null) {
    throw new RangeError('cloud must be a LidarPointCloud object');
  }
  const { channels, columns } = cloud;
  if (!Number.isInteger(channels) || channels < 1 || channels > MAX_CHANNELS) {
    throw new RangeError(`channels must be an integer in [1, ${MAX_CHANNELS}] (got ${String(channels)})`);
  }
  if (!Number.isInteger(columns) || columns < 1 || columns > MAX_COLUMNS) {
    throw new RangeError(`columns must be an integer in [1, ${MAX_COLUMNS}] (got ${String(columns)})`);
  }
  const n = channels * columns;
  const fields: [keyof LidarPointCloud, number][] = [
    ['range', n],
    ['box', n],
    ['sensorXyz', 3 * n],
    ['worldXyz', 3 * n],
    ['time', n],
    ['incidence', n],
  ];
  if (cloud.intensity !== undefined) {
    fields.push(['intensity', n]);
  }
  for (const [name, want] of fields) {
    const value = cloud[name] as ArrayLike<number> | undefined;
    const got = value?.length;
    if (got !== want) {
      const per = name.endsWith('Xyz') ? '3 × channels × columns' : 'channels × columns';
      throw new RangeError(`${name} must have ${per} = ${want} elements (${channels} × ${columns} rays; got ${got === undefined ? 'none' : got})`);
    }
  }
  const second = cloud.second;
  if (second !== undefined) {
    for (const [name, want] of [['range', n], ['box', n], ['sensorXyz', 3 * n], ['worldXyz', 3 * n], ['incidence', n], ['intensity', n]] as const) {
      const got = (second[name] as ArrayLike<number> | undefined)?.length;
      if (got !== want && !(name === 'intensity' && got === undefined)) {
        throw new RangeError(`second.${name} must have ${want} elements, as the first return's (got ${got === undefined ? 'none' : got})`);
      }
    }
    if ((cloud.intensity === undefined) !== (second.intensity === undefined)) {
      throw new RangeError('intensity and second.intensity go together: both returns modelled, or neither');
    }
  }
  if (cloud.returnMode !== undefined && !['strongest', 'last', 'dual'].includes(cloud.returnMode)) {
    throw new RangeError(`returnMode must be 'strongest', 'last' or 'dual' (got ${String(cloud.returnMode)})`);
  }
  return n;
}

/**
 * A cloud of 2n rays, the first returns then the second ones (ray n + r is ray r's second
 * return, its time ray r's), so that the writers pack both by ray index.
 */
function withSecondRays(cloud: LidarPointCloud, second: LidarSecondPoints, n: number): LidarPointCloud {
  const join = <T extends Float32Array | Float64Array | Int32Array>(a: T, b: T, make: (k: number) => T): T => {
    const out = make(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  };
  const f32 = (k: number): Float32Array => new Float32Array(k);
  const f64 = (k: number): Float64Array => new Float64Array(k);
  return {
    channels: cloud.channels, columns: cloud.columns, returnMode: cloud.returnMode,
    range: join(cloud.range, second.range, f32), box: join(cloud.box, second.box, (k) => new Int32Array(k)),
    sensorXyz: join(cloud.sensorXyz, second.sensorXyz, f64), worldXyz: join(cloud.worldXyz, second.worldXyz, f64),
    time: join(cloud.time, cloud.time.subarray(0, n), f64), incidence: join(cloud.incidence, second.incidence, f32),
    intensity: cloud.intensity && second.intensity ? join(cloud.intensity, second.intensity, f32) : undefined,
  };
}

function frameOf(options: PointCloudOptions | undefined): PointFrame {
  const frame = options?.frame ?? 'sensor';
  if (frame !== 'sensor' && frame !== 'world') {
    throw new RangeError(`frame must be 'sensor' or 'world' (got ${String(frame)})`);
  }
  return frame;
}

/**
 * The ring of each laser when rings are ranked by ascending elevation, as the ROS Velodyne driver
 * numbers them: ring 0 is the lowest beam. The driver (ros-drivers/velodyne,
 * velodyne_pointcloud/src/lib/calibration.cc lines 166–189 at 29abd0e; calibration.cpp lines
 * 204–226 on the ros2 branch at 04a7ca7) gives ring k to the laser with the k-th smallest
 * `vert_correction`. Equal elevations get consecutive rings in laser order here; the driver's
 * strict comparison leaves such a laser at ring 0 instead.
 *
 * @example
 * elevationRings([-0.26, 0.02, -0.23, 0.05]) // Uint16Array [0, 2, 1, 3]
 */
export function elevationRings(elevations: ArrayLike<number>): Uint16Array {
  const n = elevations?.length;
  if (typeof n !== 'number' || n < 1 || n > MAX_CHANNELS) {
    throw new RangeError(`elevations must hold 1 … ${MAX_CHANNELS} numbers (got ${n === undefined ? 'none' : n})`);
  }
  for (let c = 0; c < n; c++) {
    if (typeof elevations[c] !== 'number' || !Number.isFinite(elevations[c])) {
      throw new RangeError(`elevations[${c}] must be a finite number (got ${String(elevations[c])})`);
    }
  }
  const order = Array.from({ length: n }, (_, c) => c).sort((a, b) => elevations[a]! - elevations[b]! || a - b);
  const rings = new Uint16Array(n);
  order.forEach((c, k) => {
    rings[c] = k;
  });
  return rings;
}

/** The options, checked against the cloud and each other. */
interface Resolved {
  readonly frame: PointFrame;
  readonly ringOrder: RingOrder;
  /** Ring per channel. */
  readonly rings: Uint16Array;
  readonly time: PointTime;
  readonly layout: PointLayout;
  readonly organized: boolean;
  readonly classIds: ArrayLike<number> | undefined;
}

function resolve(cloud: LidarPointCloud, options: PointCloudOptions | undefined): Resolved {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new RangeError('options must be an object');
  }
  const frame = frameOf(options);
  const ringOrder = options?.ring ?? 'laser';
  if (ringOrder !== 'laser' && ringOrder !== 'elevation') {
    throw new RangeError(`ring must be 'laser' or 'elevation' (got ${String(ringOrder)})`);
  }
  const layout = options?.layout ?? 'default';
  if (layout !== 'default' && layout !== 'autoware') {
    throw new RangeError(`layout must be 'default' or 'autoware' (got ${String(layout)})`);
  }
  const time = options?.time ?? (layout === 'autoware' ? 'nanoseconds' : 'seconds');
  if (time !== 'seconds' && time !== 'nanoseconds') {
    throw new RangeError(`time must be 'seconds' or 'nanoseconds' (got ${String(time)})`);
  }
  const organized = options?.organized ?? false;
  if (typeof organized !== 'boolean') {
    throw new RangeError(`organized must be true or false (got ${String(organized)})`);
  }
  const classIds = options?.classIds;
  if (layout === 'autoware') {
    if (frame !== 'sensor') {
      throw new RangeError("layout 'autoware' is PointXYZIRCAEDT, float32 x y z in the sensor frame: frame must be 'sensor'");
    }
    if (time !== 'nanoseconds') {
      throw new RangeError("layout 'autoware' stores time_stamp as uint32 nanoseconds: time must be 'nanoseconds'");
    }
    if (classIds !== undefined) {
      throw new RangeError("layout 'autoware' has no label or class field: classIds is for the default layout");
    }
  }
  if (classIds !== undefined && (typeof classIds !== 'object' || classIds === null || typeof classIds.length !== 'number')) {
    throw new RangeError('classIds must be an array of class ids, one per box (a Uint16Array or numbers)');
  }
  let rings: Uint16Array;
  if (ringOrder === 'elevation') {
    const elevations = options?.elevations;
    if (elevations === undefined) {
      throw new RangeError("ring 'elevation' needs elevations: the sensor's elevation per channel (its description's elevations)");
    }
    if (elevations.length !== cloud.channels) {
      throw new RangeError(`elevations must have one entry per channel (${cloud.channels}; got ${elevations.length})`);
    }
    rings = elevationRings(elevations);
  } else {
    rings = Uint16Array.from({ length: cloud.channels }, (_, c) => c);
  }
  return { frame, ringOrder, rings, time, layout, organized, classIds };
}

/**
 * Indices of the rays with a return, in ray order; with second returns (a cloud of 2n rays,
 * withSecondRays) each beam's second return n + r right after its first.
 */
function returnsOf(cloud: LidarPointCloud, n: number): Uint32Array {
  const range = cloud.range;
  const both = range.length > n;
  let count = 0;
  for (let r = 0; r < range.length; r++) {
    if (range[r]! >= 0) {
      count++;
    }
  }
  const out = new Uint32Array(count);
  for (let r = 0, k = 0; r < n; r++) {
    if (range[r]! >= 0) {
      out[k++] = r;
    }
    if (both && range[n + r]! >= 0) {
      out[k++] = n + r;
    }
  }
  return out;
}

/** Every ray, rows in ring order (row k = the channel whose ring is k), columns in place. */
function organizedRays(cloud: LidarPointCloud, rings: Uint16Array): Uint32Array {
  const A = cloud.columns;
  const out = new Uint32Array(cloud.channels * A);
  for (let c = 0; c < cloud.channels; c++) {
    const row = rings[c]! * A;
    for (let a = 0; a < A; a++) {
      out[row + a] = c * A + a;
    }
  }
  return out;
}

/** A field's value for ray r (returned: it has a return). */
type FieldValue = (r: number, returned: boolean) => number;

/** A field copied from an array: element `stride · r + lane` of ray r; `missing` where no return (without it, the element). */
interface Copy {
  readonly array: ArrayLike<number>;
  readonly stride: number;
  readonly lane: number;
  readonly missing?: number;
}

interface Field {
  readonly name: string;
  readonly type: PointFieldType;
  readonly value: FieldValue | Copy;
}

function field(name: string, type: PointFieldType, value: FieldValue | Copy): Field {
  return { name, type, value };
}

/** The common fields (x y z, intensity, time, label): a plain copy loop, no call per value. */
function copyColumn(view: DataView, rays: Uint32Array, returned: Uint8Array, step: number, offset: number, type: PointFieldType, c: Copy): void {
  const { array, stride, lane, missing } = c;
  const n = rays.length;
  for (let k = 0, o = offset; k < n; k++, o += step) {
    const x = missing === undefined || returned[k] === 1 ? array[stride * rays[k]! + lane]! : missing;
    if (type === 'float32') {
      view.setFloat32(o, x, true);
    } else if (type === 'float64') {
      view.setFloat64(o, x, true);
    } else {
      view.setInt32(o, x, true);
    }
  }
}

/**
 * Writes one field of every record (the record of `rays[k]` at byte `offset + k · step`): one
 * loop per field and type, so the DataView call is not behind a second closure.
 */
function fillColumn(view: DataView, rays: Uint32Array, returned: Uint8Array, step: number, offset: number, type: PointFieldType, value: FieldValue): void {
  const n = rays.length;
  switch (type) {
    case 'float32':
      for (let k = 0, o = offset; k < n; k++, o += step) {
        view.setFloat32(o, value(rays[k]!, returned[k] === 1), true);
      }
      return;
    case 'float64':
      for (let k = 0, o = offset; k < n; k++, o += step) {
        view.setFloat64(o, value(rays[k]!, returned[k] === 1), true);
      }
      return;
    case 'uint8':
      for (let k = 0, o = offset; k < n; k++, o += step) {
        view.setUint8(o, value(rays[k]!, returned[k] === 1));
      }
      return;
    case 'uint16':
      for (let k = 0, o = offset; k < n; k++, o += step) {
        view.setUint16(o, value(rays[k]!, returned[k] === 1), true);
      }
      return;
    case 'uint32':
      for (let k = 0, o = offset; k < n; k++, o += step) {
        view.setUint32(o, value(rays[k]!, returned[k] === 1), true);
      }
      return;
    case 'int32':
      for (let k = 0, o = offset; k < n; k++, o += step) {
        view.setInt32(o, value(rays[k]!, returned[k] === 1), true);
      }
      return;
  }
}

/** Nanoseconds from the sweep start of ray r, checked to fit uint32 (4.29 s). */
function nanoseconds(cloud: LidarPointCloud, r: number): number {
  const t = cloud.time[r]!;
  const ns = Math.round(t * 1e9);
  if (!(ns >= 0 && ns <= 0xffff_ffff)) {
    throw new RangeError(`time[${r}] = ${t} s does not fit uint32 nanoseconds (0 … 4.294967295 s from the sweep start)`);
  }
  return ns;
}

/**
 * The fields of the chosen layout, in record order, for a cloud of n rays or, with second
 * returns, of 2n (withSecondRays: ray n + r is ray r's second return).
 */
function fieldsOf(cloud: LidarPointCloud, o: Resolved, n: number): Field[] {
  const A = cloud.columns;
  const dual = cloud.range.length > n;
  /** Ray r's returns (1 or 2) and whether r is a beam's second. */
  const count = (r: number): number => (dual && cloud.range[(r % n) + n]! >= 0 ? 2 : 1);
  const brightness = cloud.intensity ?? cloud.incidence;
  const xyz = o.frame === 'world' ? cloud.worldXyz : cloud.sensorXyz;
  const xyzType: PointFieldType = o.frame === 'world' ? 'float64' : 'float32';
  const coordinate = (k: number): Copy => ({ array: xyz, stride: 3, lane: k, missing: Number.NaN });
  const ring = (r: number): number => o.rings[Math.floor((r % n) / A)]!;
  const fields: Field[] = [field('x', xyzType, coordinate(0)), field('y', xyzType, coordinate(1)), field('z', xyzType, coordinate(2))];
  if (o.layout === 'autoware') {
    const s = cloud.sensorXyz;
    fields.push(
      field('intensity', 'uint8', (r) => {
        const x = brightness[r]!;
        return x > 0 ? Math.round(255 * Math.min(x, 1)) : 0;
      }),
      field('return_type', 'uint8', (r, ok) => (ok ? returnType(cloud, brightness, r, n, count(r)) : RETURN_TYPE.INVALID)),
      field('channel', 'uint16', ring),
      field('azimuth', 'float32', (r, ok) => {
        if (!ok) {
          return Number.NaN;
        }
        const a = detAtan2(s[3 * r + 1]!, s[3 * r]!);
        return a < 0 ? a + 2 * Math.PI : a;
      }),
      field('elevation', 'float32', (r, ok) => (ok ? detAtan2(s[3 * r + 2]!, detHypot(s[3 * r]!, s[3 * r + 1]!)) : Number.NaN)),
      field('distance', 'float32', (r, ok) => (ok ? detHypot(s[3 * r]!, s[3 * r + 1]!, s[3 * r + 2]!) : Number.NaN)),
      field('time_stamp', 'uint32', (r) => nanoseconds(cloud, r)),
    );
    return fields;
  }
  fields.push(
    field('intensity', 'float32', { array: brightness, stride: 1, lane: 0 }),
    field('ring', 'uint16', ring),
    field('column', 'uint32', (r) => (r % n) % A),
    o.time === 'nanoseconds'
      ? field('t', 'uint32', (r) => nanoseconds(cloud, r))
      : field('time', 'float32', { array: cloud.time, stride: 1, lane: 0 }),
    field('label', 'int32', { array: cloud.box, stride: 1, lane: 0, missing: -1 }),
  );
  const classIds = o.classIds;
  if (classIds) {
    fields.push(field('class', 'uint16', (r, ok) => {
      if (!ok) {
        return NO_CLASS;
      }
      const b = cloud.box[r]!;
      const id = classIds[b];
      if (b >= classIds.length || typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= NO_CLASS) {
        throw new RangeError(`classIds[${b}] must be a class id in 0 … ${NO_CLASS - 1} (ray ${r} hit box ${b}; classIds has ${classIds.length} entries; got ${String(id)})`);
      }
      return id;
    }));
  }
  if (dual) {
    fields.push(field('return_index', 'uint8', (r) => (r >= n ? 1 : 0)), field('return_count', 'uint8', (r, ok) => (ok ? count(r) : 0)));
  }
  return fields;
}

/**
 * Autoware's return_type of a point (RETURN_TYPE): the mode's single type, or in dual mode
 * DUAL_ONLY for a beam's one return and, for two, first or last by range and strongest or weak by
 * intensity, as Autoware's sensor driver nebula decides it for Velodyne's dual packets (equal
 * intensities: the last is the strongest).
 */
function returnType(cloud: LidarPointCloud, brightness: ArrayLike<number>, r: number, n: number, returns: number): number {
  const mode = cloud.returnMode ?? 'strongest';
  if (mode !== 'dual') {
    return mode === 'last' ? RETURN_TYPE.SINGLE_LAST : RETURN_TYPE.SINGLE_STRONGEST;
  }
  if (returns === 1) {
    return RETURN_TYPE.DUAL_ONLY;
  }
  const own = r;
  const other = r >= n ? r - n : r + n;
  const first = cloud.range[own]! < cloud.range[other]! || (cloud.range[own]! === cloud.range[other]! && own < other);
  const strongest = brightness[own]! > brightness[other]! || (brightness[own]! === brightness[other]! && !first);
  return first
    ? (strongest ? RETURN_TYPE.DUAL_STRONGEST_FIRST : RETURN_TYPE.DUAL_WEAK_FIRST)
    : (strongest ? RETURN_TYPE.DUAL_STRONGEST_LAST : RETURN_TYPE.DUAL_WEAK_LAST);
}

/**
 * The sweep's points as packed little-endian records ({@link PointRecords}): the returns in ray
 * order, or with `organized: true` every ray, rows in ring order. The fields and their meaning are
 * the module's (docs/lidar.md, "Conventions"); {@link writePcd} and {@link writePly} write these
 * records after their header, and the MCAP recorder sends them as a `sensor_msgs/PointCloud2`.
 * Throws RangeError naming the field or option that does not fit.
 *
 * @example
 * const records = packPointRecords(cloud, { layout: 'autoware' });
 * records.fields.map((f) => f.name) // ['x', 'y', 'z', 'intensity', 'return_type', 'channel', 'azimuth', 'elevation', 'distance', 'time_stamp']
 * records.pointStep // 32
 */
export function packPointRecords(input: LidarPointCloud, options?: PointCloudOptions): PointRecords {
  const n = checkCloud(input);
  const o = resolve(input, options);
  if (input.second && o.organized) {
    throw new RangeError('an organised cloud holds one return per ray: write a dual-return sweep unorganised (its second returns are points of their own)');
  }
  const cloud = input.second ? withSecondRays(input, input.second, n) : input;
  const fields = fieldsOf(cloud, o, n);
  const specs: PointFieldSpec[] = [];
  let pointStep = 0;
  for (const f of fields) {
    specs.push({ name: f.name, type: f.type, offset: pointStep });
    pointStep += TYPE_SIZE[f.type];
  }
  const rays = o.organized ? organizedRays(cloud, o.rings) : returnsOf(cloud, n);
  // (Ray n + r of a dual-return cloud is ray r's second return: `rays` says which record is which.)
  const data = new Uint8Array(rays.length * pointStep);
  const view = new DataView(data.buffer);
  const returned = new Uint8Array(rays.length);
  let dense = true;
  for (let k = 0; k < rays.length; k++) {
    const ok = cloud.range[rays[k]!]! >= 0;
    returned[k] = ok ? 1 : 0;
    dense &&= ok;
  }
  fields.forEach((f, i) => {
    if (typeof f.value === 'function') {
      fillColumn(view, rays, returned, pointStep, specs[i]!.offset, f.type, f.value);
    } else {
      copyColumn(view, rays, returned, pointStep, specs[i]!.offset, f.type, f.value);
    }
  });
  return {
    fields: specs, pointStep,
    width: o.organized ? cloud.columns : rays.length, height: o.organized ? cloud.channels : 1,
    data, rays, dense,
  };
}

/** What a file's comment says its intensity is when the sweep modelled it. */
const MODELLED = 'modelled intensity (reflectivity x incidence cosine x range and atmosphere terms)';

/** Header text (ASCII only) followed by the records, in one exactly-sized buffer. */
function withHeader(header: string, body: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(header.length + body.length);
  for (let i = 0; i < header.length; i++) {
    const code = header.charCodeAt(i);
    if (code > 0x7f) {
      throw new RangeError(`header must be ASCII (character ${i})`);
    }
    bytes[i] = code;
  }
  bytes.set(body, header.length);
  return bytes;
}

/** What the file's comments say beyond the default (nothing for the default options). */
function conventionNotes(cloud: LidarPointCloud, o: Resolved, records: PointRecords): string[] {
  const notes: string[] = [];
  if (o.layout === 'autoware') {
    const types = cloud.returnMode === 'dual'
      ? 'return_type 3/5 = dual strongest/weak first, 4/6 = dual strongest/weak last, 7 = dual only'
      : cloud.returnMode === 'last' ? 'return_type 2 = single last' : 'return_type 1 = single strongest';
    notes.push(`layout = Autoware PointXYZIRCAEDT (intensity = round(255 * ${cloud.intensity ? 'modelled intensity' : 'incidence cosine'}), ${types}, time_stamp = ns from the sweep start)`);
  }
  if (cloud.second) {
    notes.push('second returns are points of their own: return_index 0 = the beam\'s first (strongest) return, 1 = its second (last); return_count = the beam\'s returns');
  }
  if (o.ringOrder === 'elevation') {
    notes.push(`${o.layout === 'autoware' ? 'channel' : 'ring'} = rank of the channel's elevation, lowest first (ROS Velodyne driver order)`);
  }
  if (o.layout === 'default' && o.time === 'nanoseconds') {
    notes.push('t = uint32 nanoseconds from the sweep start (Ouster convention)');
  }
  if (o.classIds) {
    notes.push('class = semantic class id of the box hit (65535 = no return)');
  }
  if (o.organized) {
    notes.push(`organized: ${records.height} rows (rings) x ${records.width} columns; x y z NaN where no return`);
  }
  return notes;
}

/**
 * The sweep's returns as a PCD v0.7 file, `DATA binary`: fields `x y z intensity ring column time
 * label` (see the module's header for their types and meaning); x y z float32 in the sensor frame
 * (the default), float64 (`SIZE 8 TYPE F`) in the world frame. The options choose the ring order,
 * the time field, Autoware's layout, an organised cloud (`HEIGHT` = channels) and a `class` field
 * ({@link PointCloudOptions}). Throws RangeError naming the field when the cloud's arrays do not
 * fit `channels × columns`, or the option that does not fit.
 *
 * @example
 * import { PCDLoader } from 'three/addons/loaders/PCDLoader.js';
 * const pcd = writePcd(cloud); // sensor frame
 * const world = writePcd(cloud, { frame: 'world' });
 * const organized = writePcd(cloud, { organized: true, time: 'nanoseconds' }); // HEIGHT = channels, field t
 * new PCDLoader().parse(pcd.slice().buffer); // three.js reads x y z, intensity and label
 */
export function writePcd(cloud: LidarPointCloud, options?: PointCloudOptions): Uint8Array {
  const records = packPointRecords(cloud, options);
  const o = resolve(cloud, options);
  const { fields } = records;
  const what = cloud.intensity ? MODELLED : 'cosine of the incidence angle';
  const intensity = o.layout === 'autoware' ? `intensity = round(255 * ${what})` : `intensity = ${what}`;
  const header =
    '# .PCD v0.7 - Point Cloud Data file format\n' +
    `# webgpu-obb lidar sweep (${o.frame} frame); ${intensity}\n` +
    conventionNotes(cloud, o, records).map((note) => `# ${note}\n`).join('') +
    'VERSION 0.7\n' +
    `FIELDS ${fields.map((f) => f.name).join(' ')}\n` +
    `SIZE ${fields.map((f) => TYPE_SIZE[f.type]).join(' ')}\n` +
    `TYPE ${fields.map((f) => PCD_TYPE[f.type]).join(' ')}\n` +
    `COUNT ${fields.map(() => 1).join(' ')}\n` +
    `WIDTH ${records.width}\n` +
    `HEIGHT ${records.height}\n` +
    'VIEWPOINT 0 0 0 1 0 0 0\n' +
    `POINTS ${records.width * records.height}\n` +
    'DATA binary\n';
  return withHeader(header, records.data);
}

/**
 * The sweep's returns as a PLY file, `format binary_little_endian 1.0`: one `vertex` element with
 * properties `float x y z` (sensor frame, the default) or `double x y z` (world frame), then
 * `float intensity`, `ushort ring`, `uint column`, `float time`, `int label` (see the module's
 * header). The options are {@link writePcd}'s; an organised cloud is `channels × columns`
 * vertices, rows in ring order, named in a comment. Throws RangeError naming the field when the
 * cloud's arrays do not fit `channels × columns`, or the option that does not fit.
 *
 * @example
 * import { PLYLoader } from 'three/addons/loaders/PLYLoader.js';
 * const ply = writePly(cloud, { frame: 'world' });
 * const loader = new PLYLoader();
 * loader.setCustomPropertyNameMapping({ label: ['label'] });
 * loader.parse(ply.slice().buffer).getAttribute('label'); // Int32 box ids
 */
export function writePly(cloud: LidarPointCloud, options?: PointCloudOptions): Uint8Array {
  const records = packPointRecords(cloud, options);
  const o = resolve(cloud, options);
  const what = cloud.intensity ? MODELLED : 'cosine of the incidence angle (no simulated reflectivity)';
  const fieldsComment = o.layout === 'autoware'
    ? `comment intensity = round(255 * ${what})\n`
    : `comment intensity = ${what}\n` +
      `comment ring = channel, column = azimuth step, ${o.time === 'nanoseconds' ? 't = nanoseconds' : 'time = seconds'} from the sweep start, label = box index\n`;
  const header =
    'ply\n' +
    'format binary_little_endian 1.0\n' +
    `comment webgpu-obb lidar sweep (${o.frame} frame)\n` +
    fieldsComment +
    conventionNotes(cloud, o, records).map((note) => `comment ${note}\n`).join('') +
    `element vertex ${records.width * records.height}\n` +
    records.fields.map((f) => `property ${PLY_TYPE[f.type]} ${f.name}\n`).join('') +
    'end_header\n';
  return withHeader(header, records.data);
}

/**
 * The sweep's returns as a KITTI velodyne `.bin`: float32 x, y, z, reflectance per point
 * (16 bytes, little-endian, no header), in the sensor frame; reflectance is the modelled
 * intensity when the cloud has one, else the cosine of the incidence angle; a dual beam's second
 * returns are points too. KITTI's frame (x forward, y left, z up) equals the sensor frame when the
 * sensor's +x points forward. Throws RangeError naming the field when the cloud's arrays do not
 * fit `channels × columns`.
 *
 * @example
 * const bin = writeKittiBin(cloud);
 * const points = new Float32Array(bin.buffer); // [x0, y0, z0, r0, x1, …] on little-endian hosts
 */
export function writeKittiBin(input: LidarPointCloud): Uint8Array {
  const n = checkCloud(input);
  const cloud = input.second ? withSecondRays(input, input.second, n) : input;
  const brightness = cloud.intensity ?? cloud.incidence;
  const rays = returnsOf(cloud, n);
  const bytes = new Uint8Array(rays.length * 16);
  const view = new DataView(bytes.buffer);
  const xyz = cloud.sensorXyz;
  for (let k = 0, o = 0; k < rays.length; k++, o += 16) {
    const r = rays[k]!;
    view.setFloat32(o, xyz[3 * r]!, true);
    view.setFloat32(o + 4, xyz[3 * r + 1]!, true);
    view.setFloat32(o + 8, xyz[3 * r + 2]!, true);
    view.setFloat32(o + 12, brightness[r]!, true);
  }
  return bytes;
}

/**
 * The usual file extension of a format: `.pcd`, `.ply`, or `.bin` (KITTI).
 *
 * @example
 * const name = `000042${pointCloudExtension('kitti')}`; // '000042.bin'
 */
export function pointCloudExtension(format: PointCloudFormat): '.pcd' | '.ply' | '.bin' {
  switch (format) {
    case 'pcd':
      return '.pcd';
    case 'ply':
      return '.ply';
    case 'kitti':
      return '.bin';
    default:
      throw new RangeError(`format must be one of ${POINT_CLOUD_FORMATS.join(', ')} (got ${String(format)})`);
  }
}

/** The options a KITTI .bin cannot carry (it is x y z reflectance, float32, sensor frame, returns only). */
const PCD_PLY_ONLY = ['ring', 'elevations', 'time', 'layout', 'organized', 'classIds'] as const;

/**
 * Writes the sweep's returns in `format` ({@link writePcd}, {@link writePly} or
 * {@link writeKittiBin}). KITTI files are x y z reflectance in the sensor frame only: asking for
 * `frame: 'world'` (or any other option) with `'kitti'` throws a RangeError, as does an unknown
 * format.
 *
 * @example
 * import { writeFileSync } from 'node:fs';
 * for (const format of POINT_CLOUD_FORMATS) {
 *   writeFileSync(`sweep${pointCloudExtension(format)}`, writePointCloud(format, cloud));
 * }
 */
export function writePointCloud(format: PointCloudFormat, cloud: LidarPointCloud, options?: PointCloudOptions): Uint8Array {
  switch (format) {
    case 'pcd':
      return writePcd(cloud, options);
    case 'ply':
      return writePly(cloud, options);
    case 'kitti': {
      if (frameOf(options) !== 'sensor') {
        throw new RangeError("frame must be 'sensor' for KITTI .bin files (KITTI's points are in the sensor frame)");
      }
      const other = PCD_PLY_ONLY.find((key) => options?.[key] !== undefined);
      if (other !== undefined) {
        throw new RangeError(`${other} is for pcd and ply: a KITTI .bin holds float32 x y z reflectance of the returns only`);
      }
      return writeKittiBin(cloud);
    }
    default:
      throw new RangeError(`format must be one of ${POINT_CLOUD_FORMATS.join(', ')} (got ${String(format)})`);
  }
}

