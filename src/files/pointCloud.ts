/**
 * Point-cloud files of one LiDAR sweep: PCD, PLY and KITTI's velodyne `.bin`, written from the
 * sweep's per-ray fields ({@link LidarPointCloud}). Pure functions from typed arrays to bytes:
 * browser- and Node-safe (no `node:` imports, no I/O). Each writer returns a `Uint8Array` that
 * spans its whole `ArrayBuffer` (byteOffset 0), so `bytes.buffer` is the file.
 *
 * Which points: only rays with a return (`range[r] >= 0`; NaN counts as no return), in ray order
 * r = channel c · columns + column a (channel-major: all of channel 0's columns, then channel 1's, …).
 * The clouds are unorganised (PCD HEIGHT 1); `ring` and `column` give each point's place in the
 * channel × column grid.
 *
 * Fields of each point, PCD and PLY alike, in this order (little-endian; headers are ASCII):
 * - `x y z`: the return's position. Sensor frame (the default): float32 (PCD `SIZE 4 TYPE F`,
 *   PLY `float`), in the frame of the sensor at the ray's own time, where float32 is ample (ranges
 *   up to a few km). World frame: float64 (PCD `SIZE 8 TYPE F`, PLY `double`), because world
 *   coordinates far from the origin lose precision in float32 (at 10⁶ m float32's spacing is
 *   6.25 cm).
 * - `intensity`, float32 (PCD `4 F`, PLY `float`): NOT a simulated reflectivity (the library has
 *   none). The cosine of the angle between the ray and the hit face's normal, in [0, 1], stands in
 *   for it (1 = head-on, towards 0 at grazing incidence).
 * - `ring`, uint16 (PCD `2 U`, PLY `ushort`): the channel c, 0 … channels − 1 (uint16 as in the
 *   Velodyne and Ouster ROS drivers; a cloud with more than 65,536 channels is rejected).
 * - `column`, uint32 (PCD `4 U`, PLY `uint`): the column (azimuth step) a, 0 … columns − 1. uint32
 *   rather than uint16 because the library puts no upper limit on a sensor's column count
 *   (`azimuthSteps`), so uint16 could overflow.
 * - `time`, float32 (PCD `4 F`, PLY `float`): seconds from the start of the sweep to the ray (the
 *   same for every ray of a column). Named `time` and stored as float32 seconds relative to the
 *   sweep start because that is exactly the Velodyne ROS driver's per-point field (PointXYZIRT:
 *   x y z intensity ring time), the layout deskewing tools such as LIO-SAM read. Ouster's driver
 *   calls its field `t` but stores uint32 nanoseconds, so a float-seconds `t` would be misread by
 *   tools that follow Ouster's convention. float32 resolves a 0.1 s sweep to about 7 ns.
 * - `label`, int32 (PCD `4 I`, PLY `int`): the box hit, i.e. the ground-truth instance id (the
 *   box's index in the set).
 *
 * PCD v0.7 (`DATA binary`): `FIELDS x y z intensity ring column time label`, a 30-byte packed
 * record in the sensor frame, 42 bytes in the world frame; `WIDTH` = `POINTS` = the number of
 * returns, `HEIGHT 1`, `VIEWPOINT 0 0 0 1 0 0 0`, and a second `#` comment line naming the frame
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
 * sensor frame. Reflectance is again the incidence cosine (KITTI's reflectance is in [0, 1] too).
 * KITTI's velodyne frame is x forward, y left, z up: it equals the sensor frame when the sensor is
 * mounted with its +x axis forward and +z up (the sensor frame is right-handed, azimuth 0 along
 * +x, elevation toward +z, so +y is then left).
 *
 * @example
 * import { writeFile } from 'node:fs/promises'; // in Node
 * const bytes = writePcd(cloud, { frame: 'world' }); // PCD with float64 x y z
 * await writeFile(`sweep${pointCloudExtension('pcd')}`, bytes);
 */

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
 * Options of {@link writePcd}, {@link writePly} and {@link writePointCloud}.
 *
 * @example
 * const options: PointCloudOptions = { frame: 'sensor' }; // the default
 */
export interface PointCloudOptions {
  /** Frame of `x y z` (default `'sensor'`). KITTI files are always in the sensor frame. */
  readonly frame?: PointFrame;
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

/** Ring is written as uint16: at most this many channels. */
const MAX_CHANNELS = 0x10000;
/** Column is written as uint32: at most this many columns. */
const MAX_COLUMNS = 0x1_0000_0000;

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
  for (const [name, want] of fields) {
    const value = cloud[name] as ArrayLike<number> | undefined;
    const got = value?.length;
    if (got !== want) {
      const per = name.endsWith('Xyz') ? '3 × channels × columns' : 'channels × columns';
      throw new RangeError(`${name} must have ${per} = ${want} elements (${channels} × ${columns} rays; got ${got === undefined ? 'none' : got})`);
    }
  }
  return n;
}

function frameOf(options: PointCloudOptions | undefined): PointFrame {
  const frame = options?.frame ?? 'sensor';
  if (frame !== 'sensor' && frame !== 'world') {
    throw new RangeError(`frame must be 'sensor' or 'world' (got ${String(frame)})`);
  }
  return frame;
}

/** Indices of the rays with a return, in ray order. */
function returnsOf(cloud: LidarPointCloud, n: number): Uint32Array {
  const range = cloud.range;
  let count = 0;
  for (let r = 0; r < n; r++) {
    if (range[r]! >= 0) {
      count++;
    }
  }
  const out = new Uint32Array(count);
  for (let r = 0, k = 0; r < n; r++) {
    if (range[r]! >= 0) {
      out[k++] = r;
    }
  }
  return out;
}

/** Header text (ASCII only) followed by `bodyBytes` zero bytes, in one exactly-sized buffer. */
function allocate(header: string, bodyBytes: number): { bytes: Uint8Array; view: DataView; start: number } {
  const bytes = new Uint8Array(header.length + bodyBytes);
  for (let i = 0; i < header.length; i++) {
    const code = header.charCodeAt(i);
    if (code > 0x7f) {
      throw new RangeError(`header must be ASCII (character ${i})`);
    }
    bytes[i] = code;
  }
  return { bytes, view: new DataView(bytes.buffer), start: header.length };
}

/** One point's fields after x y z (intensity ring column time label); returns the next offset. */
function writeAttributes(view: DataView, o: number, cloud: LidarPointCloud, r: number): number {
  view.setFloat32(o, cloud.incidence[r]!, true);
  view.setUint16(o + 4, Math.floor(r / cloud.columns), true);
  view.setUint32(o + 6, r % cloud.columns, true);
  view.setFloat32(o + 10, cloud.time[r]!, true);
  view.setInt32(o + 14, cloud.box[r]!, true);
  return o + 18;
}

/** Bytes of intensity ring column time label. */
const ATTRIBUTE_BYTES = 4 + 2 + 4 + 4 + 4;

/** Writes the points' records (x y z then the attributes) from `start`. */
function writeRecords(view: DataView, start: number, cloud: LidarPointCloud, rays: Uint32Array, frame: PointFrame): void {
  const xyz = frame === 'world' ? cloud.worldXyz : cloud.sensorXyz;
  let o = start;
  for (let k = 0; k < rays.length; k++) {
    const r = rays[k]!;
    if (frame === 'world') {
      view.setFloat64(o, xyz[3 * r]!, true);
      view.setFloat64(o + 8, xyz[3 * r + 1]!, true);
      view.setFloat64(o + 16, xyz[3 * r + 2]!, true);
      o += 24;
    } else {
      view.setFloat32(o, xyz[3 * r]!, true);
      view.setFloat32(o + 4, xyz[3 * r + 1]!, true);
      view.setFloat32(o + 8, xyz[3 * r + 2]!, true);
      o += 12;
    }
    o = writeAttributes(view, o, cloud, r);
  }
}

/**
 * The sweep's returns as a PCD v0.7 file, `DATA binary`: fields `x y z intensity ring column time
 * label` (see the module's header for their types and meaning); x y z float32 in the sensor frame
 * (the default), float64 (`SIZE 8 TYPE F`) in the world frame. Throws RangeError naming the field
 * when the cloud's arrays do not fit `channels × columns`.
 *
 * @example
 * import { PCDLoader } from 'three/addons/loaders/PCDLoader.js';
 * const pcd = writePcd(cloud); // sensor frame
 * const world = writePcd(cloud, { frame: 'world' });
 * new PCDLoader().parse(pcd.slice().buffer); // three.js reads x y z, intensity and label
 */
export function writePcd(cloud: LidarPointCloud, options?: PointCloudOptions): Uint8Array {
  const n = checkCloud(cloud);
  const frame = frameOf(options);
  const rays = returnsOf(cloud, n);
  const xyzSize = frame === 'world' ? 8 : 4;
  const header =
    '# .PCD v0.7 - Point Cloud Data file format\n' +
    `# webgpu-obb lidar sweep (${frame} frame); intensity = cosine of the incidence angle\n` +
    'VERSION 0.7\n' +
    'FIELDS x y z intensity ring column time label\n' +
    `SIZE ${xyzSize} ${xyzSize} ${xyzSize} 4 2 4 4 4\n` +
    'TYPE F F F F U U F I\n' +
    'COUNT 1 1 1 1 1 1 1 1\n' +
    `WIDTH ${rays.length}\n` +
    'HEIGHT 1\n' +
    'VIEWPOINT 0 0 0 1 0 0 0\n' +
    `POINTS ${rays.length}\n` +
    'DATA binary\n';
  const { bytes, view, start } = allocate(header, rays.length * (3 * xyzSize + ATTRIBUTE_BYTES));
  writeRecords(view, start, cloud, rays, frame);
  return bytes;
}

/**
 * The sweep's returns as a PLY file, `format binary_little_endian 1.0`: one `vertex` element with
 * properties `float x y z` (sensor frame, the default) or `double x y z` (world frame), then
 * `float intensity`, `ushort ring`, `uint column`, `float time`, `int label` (see the module's
 * header). Throws RangeError naming the field when the cloud's arrays do not fit
 * `channels × columns`.
 *
 * @example
 * import { PLYLoader } from 'three/addons/loaders/PLYLoader.js';
 * const ply = writePly(cloud, { frame: 'world' });
 * const loader = new PLYLoader();
 * loader.setCustomPropertyNameMapping({ label: ['label'] });
 * loader.parse(ply.slice().buffer).getAttribute('label'); // Int32 box ids
 */
export function writePly(cloud: LidarPointCloud, options?: PointCloudOptions): Uint8Array {
  const n = checkCloud(cloud);
  const frame = frameOf(options);
  const rays = returnsOf(cloud, n);
  const xyzType = frame === 'world' ? 'double' : 'float';
  const header =
    'ply\n' +
    'format binary_little_endian 1.0\n' +
    `comment webgpu-obb lidar sweep (${frame} frame)\n` +
    'comment intensity = cosine of the incidence angle (no simulated reflectivity)\n' +
    'comment ring = channel, column = azimuth step, time = seconds from the sweep start, label = box index\n' +
    `element vertex ${rays.length}\n` +
    `property ${xyzType} x\n` +
    `property ${xyzType} y\n` +
    `property ${xyzType} z\n` +
    'property float intensity\n' +
    'property ushort ring\n' +
    'property uint column\n' +
    'property float time\n' +
    'property int label\n' +
    'end_header\n';
  const xyzBytes = frame === 'world' ? 24 : 12;
  const { bytes, view, start } = allocate(header, rays.length * (xyzBytes + ATTRIBUTE_BYTES));
  writeRecords(view, start, cloud, rays, frame);
  return bytes;
}

/**
 * The sweep's returns as a KITTI velodyne `.bin`: float32 x, y, z, reflectance per point
 * (16 bytes, little-endian, no header), in the sensor frame; reflectance is the cosine of the
 * incidence angle. KITTI's frame (x forward, y left, z up) equals the sensor frame when the
 * sensor's +x points forward. Throws RangeError naming the field when the cloud's arrays do not
 * fit `channels × columns`.
 *
 * @example
 * const bin = writeKittiBin(cloud);
 * const points = new Float32Array(bin.buffer); // [x0, y0, z0, r0, x1, …] on little-endian hosts
 */
export function writeKittiBin(cloud: LidarPointCloud): Uint8Array {
  const n = checkCloud(cloud);
  const rays = returnsOf(cloud, n);
  const { bytes, view } = allocate('', rays.length * 16);
  const xyz = cloud.sensorXyz;
  for (let k = 0, o = 0; k < rays.length; k++, o += 16) {
    const r = rays[k]!;
    view.setFloat32(o, xyz[3 * r]!, true);
    view.setFloat32(o + 4, xyz[3 * r + 1]!, true);
    view.setFloat32(o + 8, xyz[3 * r + 2]!, true);
    view.setFloat32(o + 12, cloud.incidence[r]!, true);
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

/**
 * Writes the sweep's returns in `format` ({@link writePcd}, {@link writePly} or
 * {@link writeKittiBin}). KITTI files are in the sensor frame only: asking for `frame: 'world'`
 * with `'kitti'` throws a RangeError, as does an unknown format.
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
    case 'kitti':
      if (frameOf(options) !== 'sensor') {
        throw new RangeError("frame must be 'sensor' for KITTI .bin files (KITTI's points are in the sensor frame)");
      }
      return writeKittiBin(cloud);
    default:
      throw new RangeError(`format must be one of ${POINT_CLOUD_FORMATS.join(', ')} (got ${String(format)})`);
  }
}
