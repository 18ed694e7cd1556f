/**
 * The point-cloud writers (src/files/pointCloud.ts) on a small synthetic sweep: 4 channels × 8
 * columns with some no-returns, the sensor about 10⁶ m from the world origin (where float32's
 * spacing is 6.25 cm, so the world frame needs float64).
 *
 * Each file is read back twice: by three.js's loaders (what a browser viewer would use) and by the
 * test's own header-and-body parser below. What three 0.187 reads, in Node without a DOM (both
 * loaders' `parse` only need ArrayBuffer, DataView and TextDecoder):
 * - PCDLoader reads `x y z`, `intensity` and `label` only (`ring`, `column`, `time` are ignored),
 *   and although it reads `SIZE 8 TYPE F` with getFloat64, it stores positions in a
 *   Float32BufferAttribute, so a world-frame file's float64 coordinates come out rounded to
 *   float32. Hence the test's own PCD parser checks every field and the exact float64 values.
 * - PLYLoader reads `double x y z` into a Float64 attribute (exact), and every other property
 *   through setCustomPropertyNameMapping, each in its declared type (Uint16 ring, Uint32 column,
 *   Int32 label, Float32 intensity and time).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PCDLoader } from 'three/examples/jsm/loaders/PCDLoader.js';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { lidarPreset } from '../../src/core/lidarPresets.ts';
import {
  POINT_CLOUD_FORMATS,
  elevationRings,
  packPointRecords,
  pointCloudExtension,
  writeKittiBin,
  writePcd,
  writePly,
  writePointCloud,
  type LidarPointCloud,
} from '../../src/files/pointCloud.ts';

const CHANNELS = 4;
const COLUMNS = 8;
const SWEEP = 0.1;
/** The sensor's world position: far from the origin, and not float32-representable. */
const ORIGIN = [1_000_000.123456789, -2_000_000.987654321, 12.345678901];

/** Rays without a return: a scattered pattern, including ray 0 and the last ray. */
const noReturn = (c: number, a: number): boolean => (c * 5 + a * 3) % 4 === 0 || (c === CHANNELS - 1 && a === COLUMNS - 1);

function syntheticCloud(allMiss = false): LidarPointCloud {
  const n = CHANNELS * COLUMNS;
  const range = new Float32Array(n);
  const box = new Int32Array(n);
  const sensorXyz = new Float64Array(3 * n);
  const worldXyz = new Float64Array(3 * n);
  const time = new Float64Array(n);
  const incidence = new Float32Array(n);
  for (let c = 0; c < CHANNELS; c++) {
    const elevation = -0.2 + 0.1 * c;
    for (let a = 0; a < COLUMNS; a++) {
      const r = c * COLUMNS + a;
      const azimuth = (2 * Math.PI * a) / COLUMNS;
      time[r] = (SWEEP * a) / COLUMNS;
      if (allMiss || noReturn(c, a)) {
        range[r] = -1;
        box[r] = -1;
        incidence[r] = 0;
        // Meaningless where there is no return: NaN shows they are never written.
        sensorXyz.fill(Number.NaN, 3 * r, 3 * r + 3);
        worldXyz.fill(Number.NaN, 3 * r, 3 * r + 3);
        continue;
      }
      const d = 10.123456789 + 1.7 * r;
      range[r] = d;
      box[r] = (r * 7) % 11;
      incidence[r] = 0.05 + (0.9 * r) / n;
      const p = [d * Math.cos(elevation) * Math.cos(azimuth), d * Math.cos(elevation) * Math.sin(azimuth), d * Math.sin(elevation)];
      for (let k = 0; k < 3; k++) {
        sensorXyz[3 * r + k] = p[k]!;
        // The sensor moves along +x during the sweep (the world point is where the ray hit).
        worldXyz[3 * r + k] = ORIGIN[k]! + p[k]! + (k === 0 ? 5 * time[r]! : 0);
      }
    }
  }
  return { channels: CHANNELS, columns: COLUMNS, range, box, sensorXyz, worldXyz, time, incidence };
}

/** Rays with a return, in ray order. */
function returnsOf(cloud: LidarPointCloud): number[] {
  const out: number[] = [];
  cloud.range.forEach((d, r) => {
    if (d >= 0) {
      out.push(r);
    }
  });
  return out;
}

/** The file as the standalone ArrayBuffer three's loaders want (and the writers return). */
function bufferOf(bytes: Uint8Array): ArrayBuffer {
  expect(bytes.byteOffset).toBe(0);
  expect(bytes.byteLength).toBe(bytes.buffer.byteLength);
  return bytes.buffer as ArrayBuffer;
}

function ascii(bytes: Uint8Array, end: number): string {
  return String.fromCharCode(...bytes.subarray(0, end));
}

interface Parsed {
  /** Header text, up to and including the line that ends it. */
  header: string;
  /** Header keyword → value (PCD), or the header's lines (PLY). */
  lines: string[];
  fields: Record<string, number[]>;
  /** Body bytes. */
  bodyBytes: number;
}

type Reader = { size: number; read: (v: DataView, o: number) => number };

const PCD_READERS: Record<string, Reader> = {
  U1: { size: 1, read: (v, o) => v.getUint8(o) },
  F4: { size: 4, read: (v, o) => v.getFloat32(o, true) },
  F8: { size: 8, read: (v, o) => v.getFloat64(o, true) },
  U2: { size: 2, read: (v, o) => v.getUint16(o, true) },
  U4: { size: 4, read: (v, o) => v.getUint32(o, true) },
  I4: { size: 4, read: (v, o) => v.getInt32(o, true) },
};

const PLY_READERS: Record<string, Reader> = {
  uchar: PCD_READERS.U1!,
  float: PCD_READERS.F4!,
  double: PCD_READERS.F8!,
  ushort: PCD_READERS.U2!,
  uint: PCD_READERS.U4!,
  int: PCD_READERS.I4!,
};

/** Reads `points` packed little-endian records of the given named fields after the header. */
function readBody(bytes: Uint8Array, start: number, points: number, layout: [string, Reader][]): Record<string, number[]> {
  const view = new DataView(bytes.buffer, bytes.byteOffset + start, bytes.byteLength - start);
  const record = layout.reduce((s, [, r]) => s + r.size, 0);
  expect(view.byteLength).toBe(points * record);
  const fields: Record<string, number[]> = Object.fromEntries(layout.map(([name]) => [name, []]));
  for (let i = 0, o = 0; i < points; i++) {
    for (const [name, reader] of layout) {
      fields[name]!.push(reader.read(view, o));
      o += reader.size;
    }
  }
  return fields;
}

/** A PCD v0.7 `DATA binary` file: header lines up to DATA, then packed records. */
function parsePcd(bytes: Uint8Array): Parsed & { key: Record<string, string> } {
  let end = 0;
  const lines: string[] = [];
  for (let start = 0; ; start = end) {
    end = bytes.indexOf(0x0a, start) + 1;
    expect(end).toBeGreaterThan(0);
    const line = ascii(bytes.subarray(start), end - start - 1);
    lines.push(line);
    if (line.startsWith('DATA')) {
      break;
    }
  }
  const key = Object.fromEntries(lines.filter((l) => !l.startsWith('#')).map((l) => [l.split(' ')[0]!, l.slice(l.indexOf(' ') + 1)]));
  const names = key.FIELDS!.split(' ');
  const sizes = key.SIZE!.split(' ');
  const types = key.TYPE!.split(' ');
  const layout = names.map((name, i): [string, Reader] => [name, PCD_READERS[`${types[i]}${sizes[i]}`]!]);
  expect(key.DATA).toBe('binary');
  const points = Number(key.POINTS);
  return { header: ascii(bytes, end), lines, key, fields: readBody(bytes, end, points, layout), bodyBytes: bytes.length - end };
}

/** A binary_little_endian PLY file with one vertex element of scalar properties. */
function parsePly(bytes: Uint8Array): Parsed & { count: number } {
  const marker = 'end_header\n';
  let end = -1;
  for (let i = 0; i + marker.length <= bytes.length; i++) {
    if (ascii(bytes.subarray(i), marker.length) === marker) {
      end = i + marker.length;
      break;
    }
  }
  expect(end).toBeGreaterThan(0);
  const header = ascii(bytes, end);
  const lines = header.trimEnd().split('\n');
  expect(lines[0]).toBe('ply');
  expect(lines[1]).toBe('format binary_little_endian 1.0');
  const vertex = lines.find((l) => l.startsWith('element '))!;
  expect(lines.filter((l) => l.startsWith('element '))).toEqual([vertex]);
  const count = Number(vertex.split(' ')[2]);
  const layout = lines
    .filter((l) => l.startsWith('property '))
    .map((l): [string, Reader] => {
      const [, type, name] = l.split(' ');
      return [name!, PLY_READERS[type!]!];
    });
  return { header, lines, count, fields: readBody(bytes, end, count, layout), bodyBytes: bytes.length - end };
}

const f32 = Math.fround;

/** The per-point values every format carries, from the cloud itself. */
function expected(cloud: LidarPointCloud, frame: 'sensor' | 'world') {
  const rays = returnsOf(cloud);
  const xyz = frame === 'world' ? cloud.worldXyz : cloud.sensorXyz;
  const round = frame === 'world' ? (x: number) => x : f32;
  return {
    rays,
    x: rays.map((r) => round(xyz[3 * r]!)),
    y: rays.map((r) => round(xyz[3 * r + 1]!)),
    z: rays.map((r) => round(xyz[3 * r + 2]!)),
    intensity: rays.map((r) => f32(cloud.incidence[r]!)),
    ring: rays.map((r) => Math.floor(r / cloud.columns)),
    column: rays.map((r) => r % cloud.columns),
    time: rays.map((r) => f32(cloud.time[r]!)),
    label: rays.map((r) => cloud.box[r]!),
  };
}

const FIELDS = ['x', 'y', 'z', 'intensity', 'ring', 'column', 'time', 'label'] as const;

function pcdHeader(frame: 'sensor' | 'world', points: number): string {
  const s = frame === 'world' ? 8 : 4;
  return [
    '# .PCD v0.7 - Point Cloud Data file format',
    `# webgpu-obb lidar sweep (${frame} frame); intensity = cosine of the incidence angle`,
    'VERSION 0.7',
    'FIELDS x y z intensity ring column time label',
    `SIZE ${s} ${s} ${s} 4 2 4 4 4`,
    'TYPE F F F F U U F I',
    'COUNT 1 1 1 1 1 1 1 1',
    `WIDTH ${points}`,
    'HEIGHT 1',
    'VIEWPOINT 0 0 0 1 0 0 0',
    `POINTS ${points}`,
    'DATA binary',
    '',
  ].join('\n');
}

function plyLoader(): PLYLoader {
  const loader = new PLYLoader();
  loader.setCustomPropertyNameMapping({ intensity: ['intensity'], ring: ['ring'], column: ['column'], time: ['time'], label: ['label'] });
  return loader;
}

describe('the synthetic sweep', () => {
  it('has no-returns and world coordinates float32 cannot hold', () => {
    const cloud = syntheticCloud();
    const rays = returnsOf(cloud);
    expect(rays.length).toBeGreaterThan(10);
    expect(rays.length).toBeLessThan(CHANNELS * COLUMNS);
    expect(rays).not.toContain(0);
    expect(rays).not.toContain(CHANNELS * COLUMNS - 1);
    // float32 rounding moves some world coordinate by more than a centimetre.
    const worst = Math.max(...rays.map((r) => Math.abs(f32(cloud.worldXyz[3 * r]!) - cloud.worldXyz[3 * r]!)));
    expect(worst).toBeGreaterThan(0.01);
  });
});

describe('writePcd', () => {
  const cloud = syntheticCloud();
  const want = expected(cloud, 'sensor');
  const n = want.rays.length;

  it('sensor frame: the header, and 30-byte float32-xyz records of the returns only', () => {
    const bytes = writePcd(cloud);
    const pcd = parsePcd(bytes);
    expect(pcd.header).toBe(pcdHeader('sensor', n));
    expect(pcd.bodyBytes).toBe(n * 30);
    for (const f of FIELDS) {
      expect(pcd.fields[f], f).toEqual(want[f]);
    }
    expect(writePcd(cloud, { frame: 'sensor' })).toEqual(bytes);
  });

  it('sensor frame: three.js PCDLoader reads the points, intensity and label', () => {
    const points = new PCDLoader().parse(bufferOf(writePcd(cloud)));
    const geometry = points.geometry;
    const position = geometry.getAttribute('position');
    expect(position.count).toBe(n);
    for (let i = 0; i < n; i++) {
      expect([position.getX(i), position.getY(i), position.getZ(i)]).toEqual([want.x[i], want.y[i], want.z[i]]);
    }
    expect(Array.from(geometry.getAttribute('intensity').array)).toEqual(want.intensity);
    const label = geometry.getAttribute('label');
    expect(label.array).toBeInstanceOf(Int32Array);
    expect(Array.from(label.array)).toEqual(want.label);
    // Its other fields are not read: only these attributes exist.
    expect(Object.keys(geometry.attributes).sort()).toEqual(['intensity', 'label', 'position']);
  });

  it('world frame: float64 xyz (SIZE 8 TYPE F), exact to float64', () => {
    const world = expected(cloud, 'world');
    const bytes = writePcd(cloud, { frame: 'world' });
    const pcd = parsePcd(bytes);
    expect(pcd.header).toBe(pcdHeader('world', n));
    expect(pcd.bodyBytes).toBe(n * 42);
    for (const f of FIELDS) {
      expect(pcd.fields[f], f).toEqual(world[f]);
    }
    // The exact float64 world coordinates, bit for bit.
    expect(pcd.fields.x).toEqual(want.rays.map((r) => cloud.worldXyz[3 * r]));
  });

  it('world frame: PCDLoader reads F 8 but keeps only float32 positions', () => {
    const world = expected(cloud, 'world');
    const position = new PCDLoader().parse(bufferOf(writePcd(cloud, { frame: 'world' }))).geometry.getAttribute('position');
    expect(position.array).toBeInstanceOf(Float32Array);
    expect(position.count).toBe(n);
    const xs = Array.from({ length: n }, (_, i) => position.getX(i));
    // It read the float64 values (the right numbers, not garbage) then rounded them to float32 …
    expect(xs).toEqual(world.x.map(f32));
    // … which loses centimetres at 10⁶ m: the float64 file is what keeps them.
    expect(Math.max(...xs.map((x, i) => Math.abs(x - world.x[i]!)))).toBeGreaterThan(0.01);
  });
});

describe('writePly', () => {
  const cloud = syntheticCloud();
  const want = expected(cloud, 'sensor');
  const n = want.rays.length;

  function plyHeader(type: 'float' | 'double', frame: string, count: number): string {
    return [
      'ply',
      'format binary_little_endian 1.0',
      `comment webgpu-obb lidar sweep (${frame} frame)`,
      'comment intensity = cosine of the incidence angle (no simulated reflectivity)',
      'comment ring = channel, column = azimuth step, time = seconds from the sweep start, label = box index',
      `element vertex ${count}`,
      `property ${type} x`,
      `property ${type} y`,
      `property ${type} z`,
      'property float intensity',
      'property ushort ring',
      'property uint column',
      'property float time',
      'property int label',
      'end_header',
      '',
    ].join('\n');
  }

  it('sensor frame: the header and float32-xyz records (own parse)', () => {
    const ply = parsePly(writePly(cloud));
    expect(ply.header).toBe(plyHeader('float', 'sensor', n));
    expect(ply.bodyBytes).toBe(n * 30);
    for (const f of FIELDS) {
      expect(ply.fields[f], f).toEqual(want[f]);
    }
  });

  it('sensor frame: three.js PLYLoader reads every property in its type', () => {
    const g = plyLoader().parse(bufferOf(writePly(cloud)));
    const position = g.getAttribute('position');
    expect(position.array).toBeInstanceOf(Float32Array);
    expect(position.count).toBe(n);
    for (let i = 0; i < n; i++) {
      expect([position.getX(i), position.getY(i), position.getZ(i)]).toEqual([want.x[i], want.y[i], want.z[i]]);
    }
    const types = { intensity: Float32Array, ring: Uint16Array, column: Uint32Array, time: Float32Array, label: Int32Array };
    for (const [name, type] of Object.entries(types)) {
      const attribute = g.getAttribute(name);
      expect(attribute.array, name).toBeInstanceOf(type);
      expect(Array.from(attribute.array), name).toEqual(want[name as keyof typeof types]);
    }
    expect(g.index).toBeNull();
  });

  it('world frame: double xyz, exact to float64 in PLYLoader and in the own parse', () => {
    const world = expected(cloud, 'world');
    const bytes = writePly(cloud, { frame: 'world' });
    const ply = parsePly(bytes);
    expect(ply.header).toBe(plyHeader('double', 'world', n));
    expect(ply.bodyBytes).toBe(n * 42);
    for (const f of FIELDS) {
      expect(ply.fields[f], f).toEqual(world[f]);
    }
    const position = plyLoader().parse(bufferOf(bytes)).getAttribute('position');
    expect(position.array).toBeInstanceOf(Float64Array);
    expect(Array.from(position.array)).toEqual(want.rays.flatMap((r) => [0, 1, 2].map((k) => cloud.worldXyz[3 * r + k])));
    expect(Array.from(plyLoader().parse(bufferOf(bytes)).getAttribute('label').array)).toEqual(want.label);
  });
});

describe('writeKittiBin', () => {
  const cloud = syntheticCloud();
  const want = expected(cloud, 'sensor');

  it('16 bytes per return: float32 x y z reflectance (= incidence cosine), sensor frame', () => {
    const bytes = writeKittiBin(cloud);
    expect(bytes.length).toBe(16 * want.rays.length);
    const view = new DataView(bufferOf(bytes));
    const decoded = Array.from({ length: bytes.length / 4 }, (_, i) => view.getFloat32(4 * i, true));
    expect(decoded).toEqual(want.rays.flatMap((_, i) => [want.x[i], want.y[i], want.z[i], want.intensity[i]]));
    // Read the way KITTI tools do (np.fromfile(..., np.float32).reshape(-1, 4)); little-endian host.
    expect(Array.from(new Float32Array(bufferOf(bytes)))).toEqual(decoded);
    for (let i = 3; i < decoded.length; i += 4) {
      expect(decoded[i]).toBeGreaterThanOrEqual(0);
      expect(decoded[i]).toBeLessThanOrEqual(1);
    }
  });
});

describe('an empty sweep (no returns)', () => {
  const cloud = syntheticCloud(true);

  it('PCD: a valid header with 0 points and no body', () => {
    const bytes = writePcd(cloud);
    const pcd = parsePcd(bytes);
    expect(pcd.header).toBe(pcdHeader('sensor', 0));
    expect(pcd.bodyBytes).toBe(0);
    expect(parsePcd(writePcd(cloud, { frame: 'world' })).header).toBe(pcdHeader('world', 0));
    const geometry = new PCDLoader().parse(bufferOf(bytes)).geometry;
    expect(geometry.getAttribute('position')).toBeUndefined();
  });

  it('PLY: element vertex 0, and PLYLoader gives an empty geometry', () => {
    const bytes = writePly(cloud, { frame: 'world' });
    const ply = parsePly(bytes);
    expect(ply.count).toBe(0);
    expect(ply.bodyBytes).toBe(0);
    expect(ply.lines).toContain('element vertex 0');
    expect(plyLoader().parse(bufferOf(bytes)).getAttribute('position').count).toBe(0);
  });

  it('KITTI: an empty file', () => {
    expect(writeKittiBin(cloud).length).toBe(0);
  });
});

describe('validation', () => {
  const good = syntheticCloud();
  const writers = [
    (c: LidarPointCloud) => writePcd(c),
    (c: LidarPointCloud) => writePly(c),
    (c: LidarPointCloud) => writeKittiBin(c),
  ];

  it.each([
    ['range', { range: new Float32Array(31) }],
    ['box', { box: new Int32Array(33) }],
    ['sensorXyz', { sensorXyz: new Float64Array(32) }],
    ['worldXyz', { worldXyz: new Float64Array(3 * 32 + 3) }],
    ['time', { time: new Float64Array(8) }],
    ['incidence', { incidence: new Float32Array(0) }],
  ])('rejects an inconsistent %s length with a RangeError naming it', (field, patch) => {
    for (const write of writers) {
      expect(() => write({ ...good, ...patch })).toThrow(RangeError);
      expect(() => write({ ...good, ...patch })).toThrow(new RegExp(`^${field} must have`));
    }
  });

  it('rejects channels × columns that do not match the arrays, or are not positive integers', () => {
    for (const write of writers) {
      expect(() => write({ ...good, columns: 16 })).toThrow("range must have channels × columns = 64 elements (4 × 16 rays; got 32)");
      expect(() => write({ ...good, columns: 7 })).toThrow(/^range must have/);
      expect(() => write({ ...good, channels: 0 })).toThrow(/^channels must be/);
      expect(() => write({ ...good, channels: 2.5 })).toThrow(RangeError);
      expect(() => write({ ...good, columns: Number.NaN })).toThrow(/^columns must be/);
    }
    // ring is uint16: more than 65,536 channels cannot be written.
    expect(() => writePcd({ ...good, channels: 65_537, columns: 1 })).toThrow(/^channels must be/);
  });

  it('rejects an unknown frame, a world-frame KITTI file and an unknown format', () => {
    const frame = { frame: 'vehicle' } as unknown as { frame: 'sensor' };
    expect(() => writePcd(good, frame)).toThrow(/^frame must be/);
    expect(() => writePly(good, frame)).toThrow(RangeError);
    expect(() => writePointCloud('kitti', good, { frame: 'world' })).toThrow(/^frame must be 'sensor'/);
    expect(() => writePointCloud('las' as 'pcd', good)).toThrow(/^format must be one of pcd, ply, kitti/);
    expect(() => pointCloudExtension('las' as 'pcd')).toThrow(RangeError);
  });
});

describe('writePointCloud', () => {
  const cloud = syntheticCloud();

  it('dispatches on the format, with the usual extensions', () => {
    expect(POINT_CLOUD_FORMATS).toEqual(['pcd', 'ply', 'kitti']);
    expect(POINT_CLOUD_FORMATS.map(pointCloudExtension)).toEqual(['.pcd', '.ply', '.bin']);
    expect(writePointCloud('pcd', cloud, { frame: 'world' })).toEqual(writePcd(cloud, { frame: 'world' }));
    expect(writePointCloud('ply', cloud)).toEqual(writePly(cloud));
    expect(writePointCloud('kitti', cloud)).toEqual(writeKittiBin(cloud));
    expect(writePointCloud('kitti', cloud, { frame: 'sensor' })).toEqual(writeKittiBin(cloud));
  });

  it('is browser-safe: the module imports nothing from node:', () => {
    // The code, not the comments: a TSDoc example may show how a caller writes the bytes to a file.
    const source = readFileSync(new URL('../../src/files/pointCloud.ts', import.meta.url), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    expect(source.length).toBeGreaterThan(1000);
    expect(source).not.toMatch(/\bfrom\s+['"]node:/);
    expect(source).not.toMatch(/\bimport\s*\(/);
    expect(source).not.toMatch(/\brequire\s*\(/);
  });
});

/** The ROS Velodyne driver's ring numbers, by its own loop (velodyne_pointcloud calibration: next-smallest vertical angle). */
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

describe('conventions (options of writePcd and writePly), read back field by field', () => {
  const cloud = syntheticCloud();
  const want = expected(cloud, 'sensor');
  const n = want.rays.length;
  /** Not in laser order: ranks [3, 0, 2, 1]. */
  const elevations = [0.1, -0.2, 0.05, -0.1];
  const ranks = [3, 0, 2, 1];

  it('elevationRings ranks lasers as the ROS Velodyne driver does (VLP-16: laser order and ring agree for few lasers)', () => {
    expect(Array.from(elevationRings(elevations))).toEqual(ranks);
    const vlp16 = lidarPreset('velodyne-vlp16').elevations;
    const rings = Array.from(elevationRings(vlp16));
    expect(rings).toEqual(driverRings(vlp16));
    expect(rings.filter((ring, laser) => ring === laser).length).toBeLessThanOrEqual(4);
    // Equal elevations: consecutive rings in laser order (the driver's strict < would leave one at 0).
    expect(Array.from(elevationRings([0, -1, 0]))).toEqual([1, 0, 2]);
    expect(() => elevationRings([])).toThrow(/^elevations must hold/);
    expect(() => elevationRings([0, Number.NaN])).toThrow(/^elevations\[1\] must be a finite number/);
  });

  it("ring: 'elevation' writes the ranks in ring (PCD and PLY), the rest unchanged", () => {
    for (const write of [writePcd, writePly]) {
      const bytes = write(cloud, { ring: 'elevation', elevations });
      const parsed = write === writePcd ? parsePcd(bytes) : parsePly(bytes);
      expect(parsed.fields.ring).toEqual(want.rays.map((r) => ranks[Math.floor(r / COLUMNS)]));
      for (const f of FIELDS.filter((f) => f !== 'ring')) {
        expect(parsed.fields[f], f).toEqual(want[f]);
      }
      expect(parsed.header).toContain("ring = rank of the channel's elevation, lowest first (ROS Velodyne driver order)");
    }
    expect(() => writePcd(cloud, { ring: 'elevation' })).toThrow(/^ring 'elevation' needs elevations/);
    expect(() => writePcd(cloud, { ring: 'elevation', elevations: [0, 1] })).toThrow(/^elevations must have one entry per channel \(4; got 2\)/);
    expect(() => writePcd(cloud, { ring: 'elevations' as 'elevation' })).toThrow(/^ring must be 'laser' or 'elevation'/);
  });

  it("time: 'nanoseconds' is Ouster's t, uint32 round(time · 1e9), in place of time", () => {
    const pcd = parsePcd(writePcd(cloud, { time: 'nanoseconds' }));
    expect(pcd.key.FIELDS).toBe('x y z intensity ring column t label');
    expect(pcd.key.TYPE).toBe('F F F F U U U I');
    expect(pcd.key.SIZE).toBe('4 4 4 4 2 4 4 4');
    expect(pcd.fields.t).toEqual(want.rays.map((r) => Math.round(cloud.time[r]! * 1e9)));
    expect(pcd.fields.t!.some((t) => t > 0)).toBe(true);
    const ply = parsePly(writePly(cloud, { time: 'nanoseconds' }));
    expect(ply.lines).toContain('property uint t');
    expect(ply.fields.t).toEqual(pcd.fields.t);
    // uint32 nanoseconds hold 4.29 s.
    const slow = { ...cloud, time: cloud.time.map((t) => t * 50) };
    expect(() => writePcd(slow, { time: 'nanoseconds' })).toThrow(/^time\[\d+\] = [\d.]+ s does not fit uint32 nanoseconds/);
  });

  it("layout: 'autoware' is PointXYZIRCAEDT: the field list, types and offsets of autoware::point_types, 32 bytes", () => {
    const records = packPointRecords(cloud, { layout: 'autoware', ring: 'elevation', elevations });
    expect(records.fields).toEqual([
      { name: 'x', type: 'float32', offset: 0 }, { name: 'y', type: 'float32', offset: 4 }, { name: 'z', type: 'float32', offset: 8 },
      { name: 'intensity', type: 'uint8', offset: 12 }, { name: 'return_type', type: 'uint8', offset: 13 }, { name: 'channel', type: 'uint16', offset: 14 },
      { name: 'azimuth', type: 'float32', offset: 16 }, { name: 'elevation', type: 'float32', offset: 20 }, { name: 'distance', type: 'float32', offset: 24 },
      { name: 'time_stamp', type: 'uint32', offset: 28 },
    ]);
    expect(records.pointStep).toBe(32);
    const pcd = parsePcd(writePcd(cloud, { layout: 'autoware', ring: 'elevation', elevations }));
    expect(pcd.key.TYPE).toBe('F F F U U U F F F U');
    expect(pcd.key.SIZE).toBe('4 4 4 1 1 2 4 4 4 4');
    expect(pcd.bodyBytes).toBe(32 * n);
    const s = (r: number, k: number) => cloud.sensorXyz[3 * r + k]!;
    expect(pcd.fields.x).toEqual(want.x);
    expect(pcd.fields.intensity).toEqual(want.rays.map((r) => Math.round(255 * cloud.incidence[r]!)));
    expect(pcd.fields.return_type).toEqual(want.rays.map(() => 1));
    expect(pcd.fields.channel).toEqual(want.rays.map((r) => ranks[Math.floor(r / COLUMNS)]));
    expect(pcd.fields.azimuth).toEqual(want.rays.map((r) => f32((Math.atan2(s(r, 1), s(r, 0)) + 2 * Math.PI) % (2 * Math.PI))));
    expect(pcd.fields.azimuth!.every((a) => a >= 0 && a < 2 * Math.PI)).toBe(true);
    expect(pcd.fields.elevation).toEqual(want.rays.map((r) => f32(Math.atan2(s(r, 2), Math.hypot(s(r, 0), s(r, 1))))));
    expect(pcd.fields.distance).toEqual(want.rays.map((r) => f32(Math.hypot(s(r, 0), s(r, 1), s(r, 2)))));
    expect(pcd.fields.time_stamp).toEqual(want.rays.map((r) => Math.round(cloud.time[r]! * 1e9)));
    // The synthetic points lie on their rays from the origin: distance is the range.
    expect(pcd.fields.distance).toEqual(want.rays.map((r) => f32(cloud.range[r]!)));
    const ply = parsePly(writePly(cloud, { layout: 'autoware' }));
    expect(ply.lines.filter((l) => l.startsWith('property '))).toEqual([
      'property float x', 'property float y', 'property float z', 'property uchar intensity', 'property uchar return_type',
      'property ushort channel', 'property float azimuth', 'property float elevation', 'property float distance', 'property uint time_stamp',
    ]);
    expect(ply.fields.time_stamp).toEqual(pcd.fields.time_stamp);
    expect(() => writePcd(cloud, { layout: 'autoware', frame: 'world' })).toThrow(/^layout 'autoware' is PointXYZIRCAEDT/);
    expect(() => writePcd(cloud, { layout: 'autoware', time: 'seconds' })).toThrow(/^layout 'autoware' stores time_stamp as uint32 nanoseconds/);
    expect(() => writePcd(cloud, { layout: 'autoware', classIds: [0] })).toThrow(/^layout 'autoware' has no label or class field/);
  });

  it('organized: HEIGHT = channels, WIDTH = columns, every ray, rows in ring order, NaN where no return', () => {
    for (const [ring, rowOf] of [['laser', [0, 1, 2, 3]], ['elevation', ranks]] as const) {
      const bytes = writePcd(cloud, { organized: true, ring, elevations });
      const pcd = parsePcd(bytes);
      expect([pcd.key.WIDTH, pcd.key.HEIGHT, pcd.key.POINTS]).toEqual([String(COLUMNS), String(CHANNELS), String(CHANNELS * COLUMNS)]);
      expect(pcd.bodyBytes).toBe(30 * CHANNELS * COLUMNS);
      for (let c = 0; c < CHANNELS; c++) {
        for (let a = 0; a < COLUMNS; a++) {
          const i = rowOf[c]! * COLUMNS + a;
          const r = c * COLUMNS + a;
          const hit = cloud.range[r]! >= 0;
          expect(pcd.fields.ring![i]).toBe(rowOf[c]);
          expect(pcd.fields.column![i]).toBe(a);
          expect(pcd.fields.time![i]).toBe(f32(cloud.time[r]!));
          expect(pcd.fields.label![i]).toBe(hit ? cloud.box[r] : -1);
          expect(pcd.fields.intensity![i]).toBe(hit ? f32(cloud.incidence[r]!) : 0);
          expect([pcd.fields.x![i], pcd.fields.y![i], pcd.fields.z![i]]).toEqual(hit ? [0, 1, 2].map((k) => f32(cloud.sensorXyz[3 * r + k]!)) : [NaN, NaN, NaN]);
        }
      }
      // three.js reads the organised file too (NaN positions included).
      expect(new PCDLoader().parse(bufferOf(bytes)).geometry.getAttribute('position').count).toBe(CHANNELS * COLUMNS);
    }
    const records = packPointRecords(cloud, { organized: true });
    expect([records.width, records.height, records.dense]).toEqual([COLUMNS, CHANNELS, false]);
    expect(packPointRecords(cloud).dense).toBe(true);
    const ply = parsePly(writePly(cloud, { organized: true, frame: 'world' }));
    expect(ply.count).toBe(CHANNELS * COLUMNS);
    expect(ply.lines).toContain(`comment organized: ${CHANNELS} rows (rings) x ${COLUMNS} columns; x y z NaN where no return`);
    expect(ply.fields.x!.filter(Number.isNaN).length).toBe(CHANNELS * COLUMNS - n);
    expect(() => writePcd(cloud, { organized: 1 as unknown as boolean })).toThrow(/^organized must be true or false/);
  });

  it('classIds adds class (uint16) after label: the class of the box hit, 65535 where no return', () => {
    const classIds = new Uint16Array(11).map((_, b) => (b * 3) % 5);
    const pcd = parsePcd(writePcd(cloud, { classIds }));
    expect(pcd.key.FIELDS).toBe('x y z intensity ring column time label class');
    expect(pcd.key.TYPE).toBe('F F F F U U F I U');
    expect(pcd.fields.class).toEqual(want.label.map((b) => classIds[b]));
    expect(pcd.fields.label).toEqual(want.label);
    const organized = parsePcd(writePcd(cloud, { classIds: Array.from(classIds), organized: true }));
    expect(organized.fields.class!.filter((x) => x === 0xffff).length).toBe(CHANNELS * COLUMNS - n);
    const ply = plyLoader();
    ply.setCustomPropertyNameMapping({ label: ['label'], class: ['class'] });
    const g = ply.parse(bufferOf(writePly(cloud, { classIds })));
    expect(g.getAttribute('class').array).toBeInstanceOf(Uint16Array);
    expect(Array.from(g.getAttribute('class').array)).toEqual(want.label.map((b) => classIds[b]));
    expect(() => writePcd(cloud, { classIds: [0, 1] })).toThrow(/^classIds\[\d+\] must be a class id in 0 … 65534 \(ray \d+ hit box \d+; classIds has 2 entries/);
    expect(() => writePcd(cloud, { classIds: new Array(11).fill(0xffff) })).toThrow(/^classIds\[\d+\] must be a class id/);
    expect(() => writePcd(cloud, { classIds: 3 as unknown as number[] })).toThrow(/^classIds must be an array/);
  });

  it('the default options write the same bytes as no options; KITTI refuses every pcd/ply option', () => {
    expect(writePcd(cloud, { ring: 'laser', time: 'seconds', layout: 'default', organized: false })).toEqual(writePcd(cloud));
    expect(writePly(cloud, { ring: 'laser', time: 'seconds', layout: 'default', organized: false })).toEqual(writePly(cloud));
    for (const option of [{ organized: true }, { time: 'nanoseconds' }, { layout: 'autoware' }, { ring: 'elevation', elevations }, { classIds: [0] }] as const) {
      expect(() => writePointCloud('kitti', cloud, option)).toThrow(/is for pcd and ply: a KITTI \.bin holds float32 x y z reflectance/);
    }
  });
});

describe('what the beam saw: modelled intensity and second returns in the files', () => {
  const base = syntheticCloud();
  const n = CHANNELS * COLUMNS;
  const first = returnsOf(base);
  // Every third returning ray has a second return 3 m farther along the same ray, at box 7.
  const dual = first.filter((_, k) => k % 3 === 0);
  const second = {
    range: Float32Array.from({ length: n }, (_, r) => (dual.includes(r) ? base.range[r]! + 3 : -1)),
    box: Int32Array.from({ length: n }, (_, r) => (dual.includes(r) ? 7 : -1)),
    sensorXyz: Float64Array.from({ length: 3 * n }, (_, i) => (dual.includes(Math.floor(i / 3)) ? base.sensorXyz[i]! * 1.5 : 0)),
    worldXyz: Float64Array.from({ length: 3 * n }, (_, i) => (dual.includes(Math.floor(i / 3)) ? base.worldXyz[i]! + 1 : 0)),
    incidence: Float32Array.from({ length: n }, (_, r) => (dual.includes(r) ? 0.25 : 0)),
    // Stronger than the first where r is even: both of nebula's cases (strongest first, strongest last).
    intensity: Float32Array.from({ length: n }, (_, r) => (dual.includes(r) ? (r % 2 ? 0.1 : 0.9) : 0)),
  };
  const intensity = Float32Array.from({ length: n }, (_, r) => (base.range[r]! >= 0 ? 0.5 : 0));
  const modelled: LidarPointCloud = { ...base, intensity };
  const both: LidarPointCloud = { ...modelled, second, returnMode: 'dual' };

  it('intensity is the modelled one when the cloud has it (PCD, PLY, KITTI), and the header says which', () => {
    const pcd = parsePcd(writePcd(modelled));
    expect(pcd.fields.intensity).toEqual(first.map(() => 0.5));
    expect(pcd.header).toContain('intensity = modelled intensity (reflectivity x incidence cosine x range and atmosphere terms)');
    expect(parsePcd(writePcd(base)).header).toContain('intensity = cosine of the incidence angle');
    const ply = parsePly(writePly(modelled));
    expect(ply.fields.intensity).toEqual(first.map(() => 0.5));
    expect(ply.header).toContain('comment intensity = modelled intensity');
    const kitti = new Float32Array(bufferOf(writeKittiBin(modelled)));
    expect(first.map((_, k) => kitti[4 * k + 3])).toEqual(first.map(() => 0.5));
    // Autoware: round(255 · I).
    expect(parsePcd(writePcd(modelled, { layout: 'autoware' })).fields.intensity).toEqual(first.map(() => 128));
  });

  it('second returns are points of their own, right after their beam\'s first, with return_index and return_count', () => {
    const pcd = parsePcd(writePcd(both));
    const order = first.flatMap((r) => (dual.includes(r) ? [r, n + r] : [r]));
    expect(pcd.key.FIELDS).toBe('x y z intensity ring column time label return_index return_count');
    expect(pcd.key.TYPE).toBe('F F F F U U F I U U');
    expect(Number(pcd.key.POINTS)).toBe(first.length + dual.length);
    expect(pcd.fields.return_index).toEqual(order.map((q) => (q >= n ? 1 : 0)));
    expect(pcd.fields.return_count).toEqual(order.map((q) => (dual.includes(q % n) ? 2 : 1)));
    expect(pcd.fields.label).toEqual(order.map((q) => (q >= n ? 7 : base.box[q]!)));
    expect(pcd.fields.ring).toEqual(order.map((q) => Math.floor((q % n) / COLUMNS)));
    expect(pcd.fields.column).toEqual(order.map((q) => (q % n) % COLUMNS));
    expect(pcd.fields.time).toEqual(order.map((q) => f32(base.time[q % n]!)));
    expect(pcd.fields.intensity).toEqual(order.map((q) => (q >= n ? f32(second.intensity[q - n]!) : 0.5)));
    expect(pcd.fields.x).toEqual(order.map((q) => f32(q >= n ? second.sensorXyz[3 * (q - n)]! : base.sensorXyz[3 * q]!)));
    expect(pcd.header).toContain('# second returns are points of their own: return_index 0');
    expect(parsePly(writePly(both, { frame: 'world' })).fields.x).toEqual(order.map((q) => (q >= n ? second.worldXyz[3 * (q - n)]! : base.worldXyz[3 * q]!)));
    // KITTI: the same points, x y z and the modelled intensity.
    expect(writeKittiBin(both).length).toBe(16 * order.length);
    expect(() => writePcd(both, { organized: true })).toThrow(/^an organised cloud holds one return per ray/);
    expect(() => writePcd({ ...both, intensity: undefined })).toThrow(/^intensity and second.intensity go together/);
    expect(() => writePcd({ ...both, second: { ...second, box: new Int32Array(3) } })).toThrow(/^second.box must have 32 elements/);
  });

  it("Autoware's return_type as autoware::point_types::ReturnType and nebula's dual rule: 3/5 first, 4/6 last, 7 dual only; 2 single last", () => {
    const pcd = parsePcd(writePcd(both, { layout: 'autoware' }));
    const order = first.flatMap((r) => (dual.includes(r) ? [r, n + r] : [r]));
    // The second return is 3 m farther: it is the last. The stronger of the two is the strongest.
    expect(pcd.fields.return_type).toEqual(order.map((q) => {
      const r = q % n;
      if (!dual.includes(r)) {
        return 7; // DUAL_ONLY
      }
      const secondStronger = second.intensity[r]! > 0.5;
      return q < n ? (secondStronger ? 5 : 3) : (secondStronger ? 4 : 6);
    }));
    expect(new Set(pcd.fields.return_type)).toEqual(new Set([3, 4, 5, 6, 7]));
    expect(pcd.header).toContain('return_type 3/5 = dual strongest/weak first, 4/6 = dual strongest/weak last, 7 = dual only');
    expect(parsePcd(writePcd({ ...modelled, returnMode: 'last' }, { layout: 'autoware' })).fields.return_type).toEqual(first.map(() => 2));
    expect(parsePcd(writePcd(modelled, { layout: 'autoware' })).fields.return_type).toEqual(first.map(() => 1));
  });
});
