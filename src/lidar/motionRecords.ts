/**
 * The raster method's bounds for a sweep with motion (shaders/lidar/raster.wgsl, motionPrint):
 * the image's columns cut into chunks, and for each chunk (and for the whole sweep) a reference
 * frame and how far the chunk's rays stray from it. Float64 here, rounded outwards once for the
 * kernel; test/cpu/lidarMotionRecords.test.ts checks every bound against the frames it covers.
 */
import { isFullTurn, type ColumnFrame, type LidarDescription } from '../core/lidar.ts';
import type { Vec3 } from '../core/types.ts';

/** Chunks per sweep of the raster method with motion (their width: ceil(A / MOTION_CHUNKS) columns). */
export const MOTION_CHUNKS = 64;

/** What the kernel needs of one chunk of image columns [first, end) (or of the whole sweep). */
export interface MotionRecord {
  /**
   * The encoder column whose frame is the reference (its axes; `position` its sensor position):
   * channel 0's firing in it with per-laser data.
   */
  readonly column: number;
  readonly position: Vec3;
  /** δ: at least the distance of every beam origin of the chunk's rays (every channel's) from `position`. */
  readonly grow: number;
  /** Δτ: at least |τ − τ_ref| over the chunk's rays' times (s). */
  readonly timeSpread: number;
  /**
   * γ: at least the angle between any of the chunk's rays' frames and the reference frame (rad),
   * plus the bound of the beams' elevation jitter.
   */
  readonly turn: number;
  /**
   * asin(sin γ / cos E), E the steepest channel's |elevation| plus the elevation jitter's bound;
   * 4 (any azimuth) when γ + E nears 90°; plus the azimuth jitter's bound.
   */
  readonly azimuthPad: number;
}

/** The rotation angle between two frames given by their axes (robust near 0: atan2 of sin and cos). */
export function frameAngle(a: readonly [Vec3, Vec3, Vec3], b: readonly [Vec3, Vec3, Vec3]): number {
  // Q = Aᵀ B: Q_ij = a_i · b_j; its rotation angle from its antisymmetric part and its trace.
  const q = (i: number, j: number): number => a[i]![0] * b[j]![0] + a[i]![1] * b[j]![1] + a[i]![2] * b[j]![2];
  const sx = q(2, 1) - q(1, 2);
  const sy = q(0, 2) - q(2, 0);
  const sz = q(1, 0) - q(0, 1);
  return Math.atan2(0.5 * Math.hypot(sx, sy, sz), 0.5 * (q(0, 0) + q(1, 1) + q(2, 2) - 1));
}

/** Whether two frames' axes are equal number for number (no turn between them). */
function sameAxes(a: readonly [Vec3, Vec3, Vec3], b: readonly [Vec3, Vec3, Vec3]): boolean {
  for (let i = 0; i < 3; i++) {
    if (a[i]![0] !== b[i]![0] || a[i]![1] !== b[i]![1] || a[i]![2] !== b[i]![2]) {
      return false;
    }
  }
  return true;
}

/**
 * The encoder columns whose rays sit in image columns [first, end): channel c's ray of encoder
 * column a sits in image column a + k_c (k_c its whole-column shift; none on a partial field).
 */
function encoderColumns(A: number, first: number, end: number, shifts: Int32Array, full: boolean): number[] {
  let kMin = 0;
  let kMax = 0;
  for (const k of shifts) {
    kMin = Math.min(kMin, k);
    kMax = Math.max(kMax, k);
  }
  const lo = first - kMax;
  const hi = end - 1 - kMin;
  if (hi - lo + 1 >= A) {
    return Array.from({ length: A }, (_, a) => a);
  }
  const out: number[] = [];
  for (let a = lo; a <= hi; a++) {
    if (full) {
      out.push(((a % A) + A) % A);
    } else if (a >= 0 && a < A) {
      out.push(a);
    }
  }
  return out;
}

/** The bounds of the beams' angular jitter (radians; none: 0), which the records carry too. */
export interface BeamJitter {
  readonly azimuth: number;
  readonly elevation: number;
}

/**
 * One record over image columns [first, end). `rows`: one row of frames per channel (per-laser
 * data: each channel's firings), or one row for every channel; the reference is row 0's.
 */
function recordOver(
  desc: LidarDescription, rows: readonly (readonly ColumnFrame[])[], first: number, end: number, shifts: Int32Array, steepest: number, jitter: BeamJitter,
): MotionRecord {
  const frames = rows[0]!;
  const A = desc.azimuthSteps;
  const full = isFullTurn(desc);
  const columns = encoderColumns(A, first, end, shifts, full);
  const middle = (first + end - 1) >> 1;
  const k = Math.round((Math.min(0, ...shifts) + Math.max(0, ...shifts)) / 2);
  const column = full ? (((middle - k) % A) + A) % A : Math.min(A - 1, Math.max(0, middle));
  const ref = frames[column]!;
  let grow = 0;
  let turn = 0;
  let timeSpread = 0;
  // The largest squared distance (its square root taken once; the caller rounds δ outwards by far
  // more than sqrt's half ulp), and the frame angle only for axes that differ from the reference's.
  let grow2 = 0;
  const [px, py, pz] = ref.position;
  // The last axes found equal to the reference's (a still sensor's rows each share one object).
  let equal = ref.axes;
  for (const a of columns) {
    for (const row of rows) {
      const f = row[a]!;
      const dx = f.beamOrigin[0] - px;
      const dy = f.beamOrigin[1] - py;
      const dz = f.beamOrigin[2] - pz;
      grow2 = Math.max(grow2, dx * dx + dy * dy + dz * dz);
      if (f.axes !== ref.axes && f.axes !== equal) {
        if (sameAxes(f.axes, ref.axes)) {
          equal = f.axes;
        } else {
          turn = Math.max(turn, frameAngle(ref.axes, f.axes));
        }
      }
      timeSpread = Math.max(timeSpread, Math.abs(f.time - ref.time));
    }
  }
  grow = Math.sqrt(grow2) * (1 + 2 ** -50);
  let azimuthPad = 0;
  // A jittered beam leaves within γ_el of its channel's elevation and γ_az of its azimuth, and
  // the frame's turn applies to that direction: elevations widen by γ + γ_el, azimuths by
  // asin(sin γ / cos(E + γ_el)) + γ_az.
  const steep = steepest + jitter.elevation;
  if (turn > 0) {
    // The margin covers the kernel's f32 axes (about 1e-7 rad).
    turn += 1e-6;
    azimuthPad = turn + steep >= Math.PI / 2 - 1e-3 ? 4 : Math.asin(Math.min(1, Math.sin(turn) / Math.cos(steep))) * (1 + 1e-6);
  }
  return { column, position: ref.position, grow, timeSpread, turn: turn + jitter.elevation, azimuthPad: azimuthPad + jitter.azimuth };
}

/**
 * The whole sweep's record, then one per chunk of `chunkWidth` image columns (the last may be
 * narrower). `frames`: the columns' frames, or with per-laser data one row of frames per channel
 * (columnFrames with the channel: every ray's own beam origin, frame and time is bounded; the
 * reference is channel 0's firing, frame `column` and time slot `column` of the setup table).
 * `shifts`: each channel's whole-column shift (lidarColumnShifts); `jitter`: the bounds of the
 * beams' angular noise, added to every record's turn and azimuth pad (default none).
 */
export function lidarMotionRecords(
  desc: LidarDescription, frames: readonly ColumnFrame[] | readonly (readonly ColumnFrame[])[], chunkWidth: number, shifts: Int32Array,
  jitter: BeamJitter = { azimuth: 0, elevation: 0 },
): MotionRecord[] {
  const A = desc.azimuthSteps;
  const rows = (Array.isArray(frames[0]) ? frames : [frames]) as readonly (readonly ColumnFrame[])[];
  const steepest = Math.max(...desc.elevations.map((e) => Math.abs(e)));
  const records = [recordOver(desc, rows, 0, A, shifts, steepest, jitter)];
  if (chunkWidth >= A) {
    // One chunk: the whole sweep's record over the same columns.
    return [records[0]!, records[0]!];
  }
  for (let first = 0; first < A; first += chunkWidth) {
    records.push(recordOver(desc, rows, first, Math.min(A, first + chunkWidth), shifts, steepest, jitter));
  }
  return records;
}

/**
 * Columns per chunk for a sensor of A columns: A / MOTION_CHUNKS, or with `still` (neither the
 * sensor nor a box moves: the motion path for per-laser data alone) one chunk of A columns, every
 * chunk's bounds being the whole sweep's then (one position, one frame, one time spread that
 * moves nothing), so the kernel takes the whole sweep's footprint without visiting chunks.
 */
export function motionChunkWidth(A: number, still = false): number {
  return still ? A : Math.max(1, Math.ceil(A / MOTION_CHUNKS));
}
