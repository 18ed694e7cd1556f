/**
 * The LiDAR noise's draws on the CPU: pcg4d (Jarzynski & Olano 2020) against an independent
 * BigInt implementation of its u32 arithmetic, the Gaussian table against Wichura's AS241
 * recomputed here, and the deviates' distribution (mean, variance, tails, Kolmogorov–Smirnov
 * distance to Φ) over a million hashed counters; the dropout threshold is an exact integer.
 */
import { describe, expect, it } from 'vitest';
import { LIDAR_GAUSS_MAX, LIDAR_GAUSS_SCALE, LIDAR_GAUSS_TABLE } from '../../src/constants.ts';
import { checkLidar, dropoutThreshold, linearElevations, type LidarDescription } from '../../src/core/lidar.ts';
import { gaussianOf, lidarRays, pcg4d, uniformOf } from '../../src/reference/lidar.ts';

/** pcg4d with BigInt lanes reduced mod 2³² after every operation (no Math.imul). */
function pcg4dBig(x: number, y: number, z: number, w: number): number[] {
  const M = 2n ** 32n;
  const v = [x, y, z, w].map((k) => (BigInt(k) * 1664525n + 1013904223n) % M);
  const mix = (): void => {
    v[0] = (v[0]! + v[1]! * v[3]!) % M;
    v[1] = (v[1]! + v[2]! * v[0]!) % M;
    v[2] = (v[2]! + v[0]! * v[1]!) % M;
    v[3] = (v[3]! + v[1]! * v[2]!) % M;
  };
  mix();
  for (let k = 0; k < 4; k++) {
    v[k] = v[k]! ^ (v[k]! >> 16n);
  }
  mix();
  return v.map(Number);
}

/** Wichura's AS241 (PPND16), Applied Statistics 37(3), 1988: Φ⁻¹(p), relative error ~1e-16. */
function ppnd16(p: number): number {
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * (((((((2509.0809287301226727 * r + 33430.575583588128105) * r + 67265.770927008700853) * r + 45921.953931549871457) * r +
      13731.693765509461125) * r + 1971.5909503065514427) * r + 133.14166789178437745) * r + 3.387132872796366608)) /
      (((((((5226.495278852545925 * r + 28729.085735721942674) * r + 39307.89580009271061) * r + 21213.794301586595867) * r +
        5394.1960214247511077) * r + 687.1870074920579083) * r + 42.313330701600911252) * r + 1);
  }
  let r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  let v: number;
  if (r <= 5) {
    r -= 1.6;
    v = (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r + 0.24178072517745061177) * r + 1.27045825245236838258) * r +
      3.64784832476320460504) * r + 5.7694972214606914055) * r + 4.6303378461565452959) * r + 1.42343711074968357734) /
      (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r + 0.14810397642748007459) * r +
        0.68976733498510000455) * r + 1.6763848301838038494) * r + 2.05319162663775882187) * r + 1);
  } else {
    r -= 5;
    v = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r + 0.026532189526576123093) * r +
      0.29656057182850489123) * r + 1.7848265399172913358) * r + 5.4637849111641143699) * r + 6.6579046435011037772) /
      (((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r + 7.868691311456132591e-4) * r +
        0.0148753612908506148525) * r + 0.13692988092273580531) * r + 0.59983220655588793769) * r + 1);
  }
  return q < 0 ? -v : v;
}

/** Φ(x) from erfc by its continued fraction / series (good to ~1e-12, enough for a KS distance). */
function phi(x: number): number {
  // Abramowitz–Stegun 26.2.17 is too coarse; use the complementary error function by W. J. Cody's
  // rational approximations' simpler cousin: integrate the series for |x| < 3, asymptotics beyond.
  const t = Math.abs(x) / Math.SQRT2;
  let erf: number;
  if (t < 3) {
    let sum = t;
    let term = t;
    for (let n = 1; n < 200; n++) {
      term *= (-t * t) / n;
      sum += term / (2 * n + 1);
    }
    erf = (2 / Math.sqrt(Math.PI)) * sum;
  } else {
    let cf = 0;
    for (let n = 60; n >= 1; n--) {
      cf = (n / 2) / (t + cf);
    }
    erf = 1 - Math.exp(-t * t) / (Math.sqrt(Math.PI) * (t + cf));
  }
  return x < 0 ? (1 - erf) / 2 : (1 + erf) / 2;
}

describe('pcg4d', () => {
  it('equals a BigInt implementation of the published u32 arithmetic', () => {
    for (const v of [[0, 0, 0, 0], [1, 2, 3, 4], [127, 2047, 0xffffffff, 1], [0x9e3779b9, 0x85ebca6b, 0xc2b2ae35, 0x27d4eb2f]] as [number, number, number, number][]) {
      expect(pcg4d(...v)).toEqual(pcg4dBig(...v));
    }
    for (let k = 0; k < 2000; k++) {
      const v = [k * 7919, k ^ 0x5bd1e995, (k * 2654435761) >>> 0, k % 3] as const;
      expect(pcg4d(...v)).toEqual(pcg4dBig(...v));
    }
  });
});

describe('the Gaussian deviates', () => {
  it('LIDAR_GAUSS_TABLE is round(2²⁰ · Φ⁻¹(1 − 2⁻ʲ⁻¹(1 − m/32))) by AS241, 16 points per octave, then 1 − 2⁻³³; increasing', () => {
    expect(LIDAR_GAUSS_TABLE).toHaveLength(513);
    for (let j = 0; j < 32; j++) {
      for (let m = 0; m < 16; m++) {
        expect(LIDAR_GAUSS_TABLE[16 * j + m], `octave ${j}, point ${m}`).toBe(Math.round(-ppnd16(2 ** -(j + 1) * (1 - m / 32)) * LIDAR_GAUSS_SCALE) || 0);
      }
    }
    expect(LIDAR_GAUSS_TABLE[512]).toBe(Math.round(-ppnd16(2 ** -33) * LIDAR_GAUSS_SCALE));
    expect(LIDAR_GAUSS_TABLE.every((x, k) => k === 0 || x > LIDAR_GAUSS_TABLE[k - 1]!)).toBe(true);
    // The interpolation's product stays inside u32: (hi − lo) · 4095 < 2³².
    expect(Math.max(...LIDAR_GAUSS_TABLE.slice(1).map((x, k) => x - LIDAR_GAUSS_TABLE[k]!)) * 4095).toBeLessThan(2 ** 32);
  });

  it('the extreme words: 0 and ±6.2303 (p = 1 − 2⁻³¹, the last octave\'s first point), the sign from the top bit', () => {
    expect(gaussianOf(0)).toBe(0);
    expect(gaussianOf(0x7fffffff)).toBe(LIDAR_GAUSS_TABLE[496]! / LIDAR_GAUSS_SCALE);
    expect(gaussianOf(0xffffffff)).toBe(-LIDAR_GAUSS_TABLE[496]! / LIDAR_GAUSS_SCALE);
    expect(LIDAR_GAUSS_TABLE[496]! / LIDAR_GAUSS_SCALE).toBeLessThanOrEqual(LIDAR_GAUSS_MAX);
    expect(LIDAR_GAUSS_MAX - LIDAR_GAUSS_TABLE[496]! / LIDAR_GAUSS_SCALE).toBeLessThan(1e-3);
    // p = 1/2 exactly: the first point of octave 1, Φ⁻¹(3/4).
    expect(gaussianOf(0x40000000)).toBe(LIDAR_GAUSS_TABLE[16]! / LIDAR_GAUSS_SCALE);
    expect(gaussianOf(0x40000000)).toBeCloseTo(0.6744897501960817, 6);
  });

  it('|z| grows with the 31 magnitude bits (the interpolation never steps back)', () => {
    let last = -1;
    for (let k = 0; k < 200_000; k++) {
      const h = Math.floor((k / 200_000) * 0x7fffffff);
      const z = gaussianOf(h);
      expect(z).toBeGreaterThanOrEqual(last);
      last = z;
    }
  });

  it('a million hashed counters: mean 0, variance 1, the tails and the KS distance of N(0, 1)', () => {
    const n = 1_000_000;
    const z = new Float64Array(n);
    let sum = 0;
    let sq = 0;
    let beyond3 = 0;
    let beyond4 = 0;
    for (let k = 0; k < n; k++) {
      const h = pcg4d(k % 128, Math.floor(k / 128), 12345, 1);
      const x = gaussianOf(h[0]);
      z[k] = x;
      sum += x;
      sq += x * x;
      beyond3 += Math.abs(x) > 3 ? 1 : 0;
      beyond4 += Math.abs(x) > 4 ? 1 : 0;
    }
    const mean = sum / n;
    const variance = sq / n - mean * mean;
    z.sort();
    let ks = 0;
    for (let k = 0; k < n; k += 97) {
      ks = Math.max(ks, Math.abs(phi(z[k]!) - (k + 0.5) / n));
    }
    console.log(`1e6 deviates: mean ${mean.toFixed(5)}, variance ${variance.toFixed(5)}, P(|z| > 3) ${beyond3 / n} (0.0026998), P(|z| > 4) ${beyond4 / n} (6.3e-5), KS ${ks.toExponential(2)}`);
    expect(Math.abs(mean)).toBeLessThan(0.005);
    expect(Math.abs(variance - 1)).toBeLessThan(0.005);
    expect(Math.abs(beyond3 / n - 0.0026998)).toBeLessThan(0.0003);
    expect(Math.abs(beyond4 / n - 6.334e-5)).toBeLessThan(3e-5);
    expect(ks).toBeLessThan(2e-3);
  });

  it('uniformOf: the top 24 bits over 2²⁴; dropoutThreshold: ⌊p · 2³²⌋, p = 1 every draw but one', () => {
    expect(uniformOf(0)).toBe(0);
    expect(uniformOf(0xffffffff)).toBe(1 - 2 ** -24);
    expect(dropoutThreshold(0)).toBe(0);
    expect(dropoutThreshold(0.25)).toBe(2 ** 30);
    expect(dropoutThreshold(1)).toBe(0xffffffff);
  });
});

describe('the noise in the description', () => {
  const base: LidarDescription = { elevations: linearElevations(8, -10, 10), azimuthSteps: 64, maxRange: 50 };

  it('validates every field by name', () => {
    expect(() => checkLidar({ ...base, noise: { rangeStdDev: -1 } })).toThrow(/noise.rangeStdDev/);
    expect(() => checkLidar({ ...base, noise: { azimuthStdDev: 0.02 } })).toThrow(/noise.azimuthStdDev.*0.01/);
    expect(() => checkLidar({ ...base, noise: { dropout: 1.5 } })).toThrow(/noise.dropout/);
    expect(() => checkLidar({ ...base, noise: { intensityDropout: { limit: 0, atZero: 0.4 } } })).toThrow(/intensityDropout.limit/);
    expect(() => checkLidar({ ...base, noise: { jitter: 1 } as never })).toThrow(/unknown key "jitter"/);
    expect(() => checkLidar({ ...base, noise: { rangeStdDev: 0.02, azimuthStdDev: 0.001, dropout: 0.45, intensityDropout: { limit: 0.8, atZero: 0.4 } } })).not.toThrow();
  });

  it('the reference perturbs each ray by its own draws: azimuth φ + σ z₀, elevation e + σ z₁, the same seed the same rays', () => {
    const desc = { ...base, noise: { azimuthStdDev: 0.003, elevationStdDev: 0.002 } };
    const plain = lidarRays(base, { origin: [0, 0, 0] });
    const a = lidarRays(desc, { origin: [0, 0, 0] }, undefined, { seed: 5 });
    const b = lidarRays(desc, { origin: [0, 0, 0] }, undefined, { seed: 5 });
    const other = lidarRays(desc, { origin: [0, 0, 0] }, undefined, { seed: 6 });
    expect([...a.data]).toEqual([...b.data]);
    expect([...a.data]).not.toEqual([...other.data]);
    for (const r of [0, 77, 300, 511]) {
      const c = Math.floor(r / 64);
      const col = r % 64;
      const h = pcg4d(c, col, 5, 0);
      const d = [plain.data[7 * r + 3]!, plain.data[7 * r + 4]!, plain.data[7 * r + 5]!];
      const p = [a.data[7 * r + 3]!, a.data[7 * r + 4]!, a.data[7 * r + 5]!];
      expect(Math.atan2(p[1]!, p[0]!) - Math.atan2(d[1]!, d[0]!)).toBeCloseTo(0.003 * gaussianOf(h[0]), 12);
      expect(Math.asin(p[2]!) - Math.asin(d[2]!)).toBeCloseTo(0.002 * gaussianOf(h[1]), 12);
    }
  });
});
