/**
 * The deterministic elementary functions (src/core/detmath.ts) against V8's Math.* on millions of
 * random and adversarial arguments, each within a stated ulp bound; their special values exactly
 * as IEEE and ECMA-262 give them. That Node and Chromium compute the same bits is the GPU
 * project's test (test/gpu/hostFields.test.ts, the same digest on both).
 */
import { describe, expect, it } from 'vitest';
import { detAcos, detAtan2, detCos, detExp, detHypot, detHypot3, detSin } from '../../src/core/detmath.ts';
import { mulberry32 } from '../../src/judge/index.ts';

const view = new DataView(new ArrayBuffer(8));
/** A double's place in the ordered line of doubles (−0 and +0 the same), as a BigInt. */
function ordinal(x: number): bigint {
  view.setFloat64(0, x);
  const b = view.getBigInt64(0);
  return b < 0n ? -(b & 0x7fffffffffffffffn) : b;
}
/** How many doubles apart a and b are (0 for equal, NaN with NaN). */
function ulps(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) {
    return Number.isNaN(a) && Number.isNaN(b) ? 0 : Infinity;
  }
  const d = ordinal(a) - ordinal(b);
  return Number(d < 0n ? -d : d);
}

/** The largest ulp distance of f from g over the arguments, and where. */
function worst(args: Iterable<number[]>, f: (...x: number[]) => number, g: (...x: number[]) => number): { ulps: number; at: number[]; n: number } {
  let w = { ulps: 0, at: [] as number[], n: 0 };
  for (const a of args) {
    const u = ulps(f(...a), g(...a));
    w.n++;
    if (u > w.ulps || w.at.length === 0) {
      w = { ...w, ulps: u, at: a };
    }
  }
  return w;
}

function* randomArgs(seed: number, n: number, draw: (rnd: () => number) => number[]): Generator<number[]> {
  const rnd = mulberry32(seed);
  for (let k = 0; k < n; k++) {
    yield draw(rnd);
  }
}

/** Doubles next to x: x itself and up to `k` neighbours each way. */
function around(x: number, k: number): number[] {
  const out = [x];
  view.setFloat64(0, x);
  const b = view.getBigInt64(0);
  for (let j = 1; j <= k; j++) {
    for (const s of [-1n, 1n]) {
      view.setBigInt64(0, b + s * BigInt(j));
      out.push(view.getFloat64(0));
    }
  }
  return out;
}

const SPECIAL = [0, -0, Number.NaN, Infinity, -Infinity, Number.MIN_VALUE, -Number.MIN_VALUE, 2.2250738585072014e-308, Number.MAX_VALUE, -Number.MAX_VALUE, 1, -1, 2 ** -27, 2 ** -29];

describe('detSin, detCos', () => {
  it('within 1 ulp of Math.sin and Math.cos on 2,000,000 random arguments, |x| ≤ 4π and log-uniform 2^-40…2^40 (seed 11)', () => {
    const draw = (rnd: () => number): number[] => [rnd() < 0.5 ? (rnd() - 0.5) * 8 * Math.PI : (rnd() < 0.5 ? -1 : 1) * 2 ** (80 * rnd() - 40)];
    const s = worst(randomArgs(11, 1_000_000, draw), detSin, Math.sin);
    const c = worst(randomArgs(12, 1_000_000, draw), detCos, Math.cos);
    console.log(`sin: worst ${s.ulps} ulp at ${s.at[0]}; cos: worst ${c.ulps} ulp at ${c.at[0]} (${s.n + c.n} arguments)`);
    expect(s.ulps, `sin(${s.at[0]})`).toBeLessThanOrEqual(1);
    expect(c.ulps, `cos(${c.at[0]})`).toBeLessThanOrEqual(1);
  });

  it('within 1 ulp beyond 2^20 · π/2 (the exact BigInt reduction): 200,000 huge arguments up to 1.8e308 (seed 13)', () => {
    const draw = (rnd: () => number): number[] => [(rnd() < 0.5 ? -1 : 1) * 2 ** (21 + 1002 * rnd())];
    const s = worst(randomArgs(13, 100_000, draw), detSin, Math.sin);
    const c = worst(randomArgs(14, 100_000, draw), detCos, Math.cos);
    console.log(`huge: sin worst ${s.ulps} ulp at ${s.at[0]}, cos worst ${c.ulps} ulp at ${c.at[0]}`);
    expect(s.ulps).toBeLessThanOrEqual(1);
    expect(c.ulps).toBeLessThanOrEqual(1);
  });

  it('near multiples of π/2 (k ≤ 2^22, ±8 ulp around each), where the reduction cancels, within 1 ulp', () => {
    const args: number[][] = [];
    for (let k = 1; k <= 2 ** 22; k = Math.ceil(k * 1.07)) {
      for (const x of around(k * (Math.PI / 2), 8)) {
        args.push([x], [-x]);
      }
    }
    // The double nearest a multiple of π/2 that is hardest to reduce (6381956970095103 · 2^797, Kahan & McDonald; ≈ 5.3e255).
    args.push(...around(6381956970095103 * 2 ** 797, 4).map((x) => [x]));
    const s = worst(args, detSin, Math.sin);
    const c = worst(args, detCos, Math.cos);
    console.log(`multiples of π/2: sin worst ${s.ulps} ulp at ${s.at[0]}, cos worst ${c.ulps} ulp at ${c.at[0]} (${args.length} arguments)`);
    expect(s.ulps).toBeLessThanOrEqual(1);
    expect(c.ulps).toBeLessThanOrEqual(1);
  });

  it('special values exactly: ±0 keeps its sign in sin, NaN and ±∞ give NaN, tiny x gives x', () => {
    for (const x of SPECIAL) {
      expect(Object.is(detSin(x), Math.sin(x)) || ulps(detSin(x), Math.sin(x)) <= 1, `sin(${x})`).toBe(true);
      expect(Object.is(detCos(x), Math.cos(x)) || ulps(detCos(x), Math.cos(x)) <= 1, `cos(${x})`).toBe(true);
    }
    expect(Object.is(detSin(-0), -0)).toBe(true);
    expect(detCos(-0)).toBe(1);
    expect([detSin(NaN), detSin(Infinity), detCos(-Infinity)].every(Number.isNaN)).toBe(true);
    expect(detSin(1e-300)).toBe(1e-300);
  });
});

describe('detAtan2, detAcos, detExp, detHypot', () => {
  it('atan2 within 1 ulp of Math.atan2 on 1,000,000 random pairs of every sign and magnitude (seed 21), special cases exactly', () => {
    const mag = (rnd: () => number): number => (rnd() < 0.5 ? -1 : 1) * (rnd() < 0.3 ? rnd() * 4 : 2 ** (200 * rnd() - 100));
    const w = worst(randomArgs(21, 1_000_000, (rnd) => [mag(rnd), mag(rnd)]), detAtan2, Math.atan2);
    console.log(`atan2: worst ${w.ulps} ulp at (${w.at.join(', ')})`);
    expect(w.ulps).toBeLessThanOrEqual(1);
    for (const y of SPECIAL) {
      for (const x of SPECIAL) {
        const a = detAtan2(y, x);
        const b = Math.atan2(y, x);
        expect(Object.is(a, b) || ulps(a, b) <= 1, `atan2(${y}, ${x}) = ${a}, Math: ${b}`).toBe(true);
      }
    }
    expect(Object.is(detAtan2(-0, 1), -0) && Object.is(detAtan2(0, -1), Math.PI) && Object.is(detAtan2(-0, -0), -Math.PI)).toBe(true);
  });

  it('acos within 2 ulp of Math.acos on [−1, 1] (500,000 draws, seed 31, and ±1 ± a few ulp); NaN outside', () => {
    const args = [...randomArgs(31, 500_000, (rnd) => [2 * rnd() - 1]), ...around(1, 50).filter((x) => x <= 1).map((x) => [x]), ...around(-1, 50).filter((x) => x >= -1).map((x) => [x]), [0], [-0]];
    const w = worst(args, detAcos, Math.acos);
    console.log(`acos: worst ${w.ulps} ulp at ${w.at[0]}`);
    expect(w.ulps).toBeLessThanOrEqual(2);
    expect([detAcos(1.0000000000000002), detAcos(NaN), detAcos(-Infinity)].every(Number.isNaN)).toBe(true);
    expect(detAcos(1)).toBe(0);
  });

  it('exp within 1 ulp of Math.exp on 1,000,000 draws over [−745, 709.8] and near 0 (seed 41); overflow, underflow, ±∞, NaN exactly', () => {
    const w = worst(randomArgs(41, 1_000_000, (rnd) => [rnd() < 0.5 ? -745 + 1454.7 * rnd() : (rnd() - 0.5) * 2 ** (-40 * rnd())]), detExp, Math.exp);
    console.log(`exp: worst ${w.ulps} ulp at ${w.at[0]}`);
    expect(w.ulps).toBeLessThanOrEqual(1);
    for (const x of [...SPECIAL, 709.78, 709.79, -745.2, -745.1, -708.5]) {
      expect(Object.is(detExp(x), Math.exp(x)) || ulps(detExp(x), Math.exp(x)) <= 1, `exp(${x})`).toBe(true);
    }
    expect([detExp(Infinity), detExp(-Infinity), detExp(710), detExp(-746)]).toEqual([Infinity, 0, Infinity, 0]);
  });

  it('hypot within 1 ulp of Math.hypot on 1,000,000 vectors of 2 to 4 components (seed 51); ∞ wins over NaN', () => {
    const w = worst(randomArgs(51, 1_000_000, (rnd) => Array.from({ length: 2 + Math.floor(3 * rnd()) }, () => (rnd() - 0.5) * 2 ** (60 * rnd() - 30))), detHypot, Math.hypot);
    console.log(`hypot: worst ${w.ulps} ulp at (${w.at.join(', ')})`);
    expect(w.ulps).toBeLessThanOrEqual(1);
    expect([detHypot(NaN, Infinity), detHypot(3, 4), detHypot(0, -0), detHypot(1e300, 1e300)]).toEqual([Infinity, 5, 0, Math.SQRT2 * 1e300]);
    expect(detHypot(NaN, 1)).toBeNaN();
  });

  it('detHypot3 is detHypot of three, bit for bit, on 1,000,000 random vectors (seed 52) and every special pattern', () => {
    const rnd = mulberry32(52);
    const special = [0, -0, 1, -1, 2 ** -1074, -(2 ** -1074), 2 ** -1022, 1e-300, 1e300, Number.MAX_VALUE, -Number.MAX_VALUE, Infinity, -Infinity, NaN, 3, 4, 12];
    let differ = 0;
    const check = (x: number, y: number, z: number): void => {
      differ += Object.is(detHypot3(x, y, z), detHypot(x, y, z)) ? 0 : 1;
    };
    for (let k = 0; k < 1_000_000; k++) {
      const e = 2 ** (80 * rnd() - 40);
      // Components of one scale and of three unrelated ones (the compensation's cases).
      check((rnd() - 0.5) * e, (rnd() - 0.5) * (k & 1 ? e : 2 ** (80 * rnd() - 40)), (rnd() - 0.5) * (k & 2 ? e : 2 ** (80 * rnd() - 40)));
    }
    for (const x of special) {
      for (const y of special) {
        for (const z of special) {
          check(x, y, z);
        }
      }
    }
    expect(differ).toBe(0);
    expect(detHypot3(1, 2, 2)).toBe(3);
    expect(detHypot3(NaN, Infinity, 0)).toBe(Infinity);
    expect(detHypot3(0, NaN, 1)).toBeNaN();
  });
});
