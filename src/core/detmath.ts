/**
 * Deterministic elementary functions for the host-side float64 fields
 * (docs/design.md, "Determinism of the host's float64 values"): sin, cos, atan2, acos, exp and hypot built only from IEEE 754 operations that
 * every JavaScript runtime rounds the same way (+ − × ÷, sqrt, conversions, exact bit
 * manipulation), with fixed polynomials and a fixed argument reduction. `Math.sin` and its kin
 * are not specified to the bit (ECMA-262 §21.3.2: "implementation-approximated"), and V8's have
 * changed between versions: Node 20 and Chromium differ in about 4.5% of a sweep's host values, by
 * up to 1,024 ulp. These give the same bits everywhere, so a sweep's fields, ground truth and
 * files are the same in Node and in a browser.
 *
 * The kernels and constants are fdlibm 5.3's (Sun Microsystems, 1993; netlib.org/fdlibm, as
 * FreeBSD's msun and V8's own ieee754.cc before 2024 carry them): k_sin.c and k_cos.c (the
 * minimax polynomials S1–S6, C1–C6 on [−π/4, π/4]), e_rem_pio2.c (Cody–Waite reduction by
 * π/2 split in three 33-bit parts, for |x| < 2²⁰ · π/2), s_atan.c and e_atan2.c (atanhi,
 * atanlo, aT[0..10]), e_exp.c (P1–P5, ln2HI/ln2LO). fdlibm's stated error is below 1 ulp for
 * each. Beyond 2²⁰ · π/2 the reduction is exact in BigInt against 1,216 bits of 2/π (the
 * digits of fdlibm's k_rem_pio2.c `ipio2` table, A2F983 6E4E44 …, recomputed by Machin's
 * formula), then rounded to a double-double: Payne and Hanek's method, without their table
 * walk. acos(x) = atan2(√((1 − x)(1 + x)), x) is this module's own (2 ulp), hypot V8's algorithm
 * (scaled, Kahan-compensated).
 *
 * Tested against Math.* on millions of random and adversarial arguments (test/cpu/detmath.test.ts).
 *
 * @example
 * const theta = 1e22; // any double: the reduction is exact
 * const [c, s] = [detCos(theta), detSin(theta)]; // the same bits in Node and in Chromium
 */

const view = new DataView(new ArrayBuffer(8));

/** The high 32 bits of a double (sign, exponent, top 20 bits of the mantissa), as fdlibm's __HI. */
function hi(x: number): number {
  view.setFloat64(0, x);
  return view.getInt32(0);
}

/** The low 32 bits of a double, as fdlibm's __LO. */
function lo(x: number): number {
  view.setFloat64(0, x);
  return view.getUint32(4);
}

/** The double of high word h and low word l (fdlibm's INSERT_WORDS). */
function fromWords(h: number, l: number): number {
  view.setInt32(0, h);
  view.setUint32(4, l);
  return view.getFloat64(0);
}

/** 2^k exactly, for an integer k in [−1022, 1023] (built from its bits, not by pow). */
function pow2(k: number): number {
  return fromWords((k + 1023) << 20, 0);
}

// k_sin.c
const S1 = -1.66666666666666324348e-01; // 0xBFC55555 55555549
const S2 = 8.33333333332248946124e-03; // 0x3F811111 1110F8A6
const S3 = -1.98412698298579493134e-04; // 0xBF2A01A0 19C161D5
const S4 = 2.75573137070700676789e-06; // 0x3EC71DE3 57B1FE7D
const S5 = -2.50507602534068634195e-08; // 0xBE5AE5E6 8A2B9CEB
const S6 = 1.58969099521155010221e-10; // 0x3DE5D93A 5ACFD57C

/** sin(x + y) for |x + y| ≤ π/4, y the tail of x (fdlibm __kernel_sin; iy = 0: y is 0). */
function kernelSin(x: number, y: number, iy: 0 | 1): number {
  if ((hi(x) & 0x7fffffff) < 0x3e400000) {
    return x; // |x| < 2^-27: sin x = x to the last bit (and −0 stays −0)
  }
  const z = x * x;
  const v = z * x;
  const r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
  return iy === 0 ? x + v * (S1 + z * r) : x - ((z * (0.5 * y - v * r) - y) - v * S1);
}

// k_cos.c
const C1 = 4.16666666666666019037e-02; // 0x3FA55555 5555554C
const C2 = -1.38888888888741095749e-03; // 0xBF56C16C 16C15177
const C3 = 2.48015872894767294178e-05; // 0x3EFA01A0 19CB1590
const C4 = -2.75573143513906633035e-07; // 0xBE927E4F 809C52AD
const C5 = 2.08757232129817482790e-09; // 0x3E21EE9E BDB4B1C4
const C6 = -1.13596475577881948265e-11; // 0xBDA8FAE9 BE8838D4

/** cos(x + y) for |x + y| ≤ π/4 (fdlibm __kernel_cos). */
function kernelCos(x: number, y: number): number {
  const ix = hi(x) & 0x7fffffff;
  if (ix < 0x3e400000) {
    return 1; // |x| < 2^-27
  }
  const z = x * x;
  const r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
  if (ix < 0x3fd33333) {
    return 1 - (0.5 * z - (z * r - x * y)); // |x| < 0.3
  }
  const qx = ix > 0x3fe90000 ? 0.28125 : fromWords(ix - 0x00200000, 0); // x/4, its low word cleared
  const hz = 0.5 * z - qx;
  const a = 1 - qx;
  return a - (hz - (z * r - x * y));
}

// e_rem_pio2.c
const INV_PIO2 = 6.36619772367581382433e-01; // 0x3FE45F30 6DC9C883
const PIO2_1 = 1.57079632673412561417e+00; // 0x3FF921FB 54400000: the first 33 bits of π/2
const PIO2_1T = 6.07710050650619224932e-11; // 0x3DD0B461 1A626331: π/2 − PIO2_1
const PIO2_2 = 6.07710050630396597660e-11; // 0x3DD0B461 1A600000: the next 33 bits
const PIO2_2T = 2.02226624879595063154e-21; // 0x3BA3198A 2E037073
const PIO2_3 = 2.02226624871116645580e-21; // 0x3BA3198A 2E000000: the next 33 bits
const PIO2_3T = 8.47842766036889956997e-32; // 0x397B839A 252049C1

/** π/2 as a double-double (0x3FF921FB 54442D18, then the rest). */
const PIO2_HI = 1.5707963267948966;
const PIO2_LO = 6.123233995736766e-17;

/** floor(2/π · 2^1216): A2F983 6E4E44 1529FC … (fdlibm's ipio2, continued). */
const TWO_OVER_PI = BigInt('0x' +
  'a2f9836e4e441529fc2757d1f534ddc0db6295993c439041fe5163abdebbc561b7246e3a424dd2e006492eea09d1921c' +
  'fe1deb1cb129a73ee88235f52ebb4484e99c7026b45f7e413991d639835339f49c845f8bbdf9283b1ff897ffde05980f' +
  'ef2f118b5a0a6d1f6d367ecf27cb09b74f463f669e5fea2d7527bac7ebe5f17b3d0739f78a5292ea6bfb5fb11f8d5d08' +
  '56033046fc7b6bab');
const TWO_OVER_PI_BITS = 1216n;

/** Dekker's split of a double into two 26-bit halves (Veltkamp; exact in round-to-nearest). */
function split(a: number): [number, number] {
  const t = 134217729 * a; // 2^27 + 1
  const h = t - (t - a);
  return [h, a - h];
}

/** The rounding error of a · b (Dekker's two-product: a · b = p + the result exactly). */
function productError(a: number, b: number, p: number): number {
  const [ah, al] = split(a);
  const [bh, bl] = split(b);
  return ((ah * bh - p) + ah * bl + al * bh) + al * bl;
}

/** The result of a reduction: x = n · π/2 + (y0 + y1), |y0 + y1| ≤ π/4 (about). */
const reduced = { n: 0, y0: 0, y1: 0 };

/**
 * x mod π/2 for a finite |x| ≥ 2^20 · π/2, exactly in BigInt: |x| = m · 2^e, m · ⌊2^1216 · 2/π⌋
 * has x · 2/π's integer part n and fraction f; y = (f rounded to 106 bits) · π/2 in
 * double-double. The truncation of 2/π costs below m · 2^(e − 1216) ≤ 2^-192, far below the
 * smallest |x · 2/π − n| a double can make (about 2^-61).
 */
function reduceHuge(x: number): void {
  const ax = Math.abs(x);
  const e = ((hi(ax) >>> 20) & 0x7ff) - 1075; // |x| = m · 2^e, m an integer < 2^53 (|x| is normal here)
  const m = BigInt(ax / pow2(e)); // exact: a power-of-two scaling (e ≥ −32 here)
  const shift = TWO_OVER_PI_BITS - BigInt(e);
  const product = m * TWO_OVER_PI;
  let n = product >> shift;
  let f = product - (n << shift);
  if (f >= 1n << (shift - 1n)) {
    f -= 1n << shift;
    n += 1n;
  }
  const negative = f < 0n;
  const g = negative ? -f : f;
  const drop = shift > 120n ? shift - 120n : 0n;
  const top = g >> drop;
  const fh = Number(top); // rounded to nearest by the BigInt-to-Number conversion
  const fl = Number(top - BigInt(fh));
  const scale = pow2(-Number(shift - drop));
  const th = fh * scale;
  const tl = fl * scale;
  // (th + tl) · (PIO2_HI + PIO2_LO) in double-double.
  const p = th * PIO2_HI;
  const err = productError(th, PIO2_HI, p) + (th * PIO2_LO + tl * PIO2_HI);
  let y0 = p + err;
  let y1 = err - (y0 - p);
  if (negative) {
    y0 = -y0;
    y1 = -y1;
  }
  const q = Number(n & 3n);
  reduced.n = x < 0 ? (4 - q) & 3 : q;
  reduced.y0 = x < 0 ? -y0 : y0;
  reduced.y1 = x < 0 ? -y1 : y1;
}

/** x = n · π/2 + (y0 + y1) into `reduced` (fdlibm __ieee754_rem_pio2, its medium case; BigInt beyond). */
function reducePio2(x: number): void {
  const hx = hi(x);
  const ix = hx & 0x7fffffff;
  if (ix > 0x413921fb) {
    reduceHuge(x); // |x| > 2^20 · π/2
    return;
  }
  const t0 = Math.abs(x);
  const n = Math.trunc(t0 * INV_PIO2 + 0.5);
  const fn = n;
  let r = t0 - fn * PIO2_1; // exact: fn < 2^20 and PIO2_1 has 33 bits
  let w = fn * PIO2_1T; // first round: good to 85 bits
  const j = ix >> 20;
  let y0 = r - w;
  if (j - ((hi(y0) >> 20) & 0x7ff) > 16) {
    // Cancellation: a second round, good to 118 bits.
    let t = r;
    w = fn * PIO2_2;
    r = t - w;
    w = fn * PIO2_2T - ((t - r) - w);
    y0 = r - w;
    if (j - ((hi(y0) >> 20) & 0x7ff) > 49) {
      // A third, good to 151 bits.
      t = r;
      w = fn * PIO2_3;
      r = t - w;
      w = fn * PIO2_3T - ((t - r) - w);
      y0 = r - w;
    }
  }
  const y1 = (r - y0) - w;
  if (hx < 0) {
    reduced.n = (4 - (n & 3)) & 3;
    reduced.y0 = -y0;
    reduced.y1 = -y1;
  } else {
    reduced.n = n & 3;
    reduced.y0 = y0;
    reduced.y1 = y1;
  }
}

/**
 * sin x, the same bits in every runtime (fdlibm s_sin.c); error below 1 ulp. NaN and ±∞ give NaN.
 *
 * @example
 * detSin(Math.PI / 6) // 0.49999999999999994
 */
export function detSin(x: number): number {
  const ix = hi(x) & 0x7fffffff;
  if (ix <= 0x3fe921fb) {
    return kernelSin(x, 0, 0); // |x| ≤ π/4
  }
  if (ix >= 0x7ff00000) {
    return Number.NaN;
  }
  reducePio2(x);
  const { n, y0, y1 } = reduced;
  return n === 0 ? kernelSin(y0, y1, 1) : n === 1 ? kernelCos(y0, y1) : n === 2 ? -kernelSin(y0, y1, 1) : -kernelCos(y0, y1);
}

/**
 * cos x, the same bits in every runtime (fdlibm s_cos.c); error below 1 ulp. NaN and ±∞ give NaN.
 *
 * @example
 * detCos(0) // 1
 */
export function detCos(x: number): number {
  const ix = hi(x) & 0x7fffffff;
  if (ix <= 0x3fe921fb) {
    return kernelCos(x, 0);
  }
  if (ix >= 0x7ff00000) {
    return Number.NaN;
  }
  reducePio2(x);
  const { n, y0, y1 } = reduced;
  return n === 0 ? kernelCos(y0, y1) : n === 1 ? -kernelSin(y0, y1, 1) : n === 2 ? -kernelCos(y0, y1) : kernelSin(y0, y1, 1);
}

// s_atan.c
const ATAN_HI = [4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01, 1.57079632679489655800e+00];
const ATAN_LO = [2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17, 6.12323399573676603587e-17];
const AT = [
  3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01, -1.11111104054623557880e-01,
  9.09088713343650656196e-02, -7.69187620504482999495e-02, 6.66107313738753120669e-02, -5.83357013379057348645e-02,
  4.97687799461593236017e-02, -3.65315727442169155270e-02, 1.62858201153657823623e-02,
] as const;

/**
 * atan x, the same bits in every runtime (fdlibm s_atan.c); error below 1 ulp.
 *
 * @example
 * detAtan(1) // 0.7853981633974483
 */
export function detAtan(x: number): number {
  const hx = hi(x);
  const ix = hx & 0x7fffffff;
  if (ix >= 0x44100000) {
    // |x| ≥ 2^66, or NaN
    if (Number.isNaN(x)) {
      return x;
    }
    return hx > 0 ? ATAN_HI[3]! + ATAN_LO[3]! : -ATAN_HI[3]! - ATAN_LO[3]!;
  }
  let id: number;
  let t = x;
  if (ix < 0x3fdc0000) {
    // |x| < 0.4375
    if (ix < 0x3e200000) {
      return x; // |x| < 2^-29
    }
    id = -1;
  } else {
    t = Math.abs(x);
    if (ix < 0x3ff30000) {
      if (ix < 0x3fe60000) {
        id = 0; // 7/16 ≤ |x| < 11/16
        t = (2 * t - 1) / (2 + t);
      } else {
        id = 1; // 11/16 ≤ |x| < 19/16
        t = (t - 1) / (t + 1);
      }
    } else if (ix < 0x40038000) {
      id = 2; // |x| < 2.4375
      t = (t - 1.5) / (1 + 1.5 * t);
    } else {
      id = 3; // 2.4375 ≤ |x| < 2^66
      t = -1 / t;
    }
  }
  const z = t * t;
  const w = z * z;
  const s1 = z * (AT[0] + w * (AT[2] + w * (AT[4] + w * (AT[6] + w * (AT[8] + w * AT[10])))));
  const s2 = w * (AT[1] + w * (AT[3] + w * (AT[5] + w * (AT[7] + w * AT[9]))));
  if (id < 0) {
    return t - t * (s1 + s2);
  }
  const r = ATAN_HI[id]! - ((t * (s1 + s2) - ATAN_LO[id]!) - t);
  return hx < 0 ? -r : r;
}

// e_atan2.c
const PI_O_4 = 7.8539816339744827900e-01;
const PI_O_2 = 1.5707963267948965580e+00;
const PI = 3.1415926535897931160e+00;
const PI_LO = 1.2246467991473531772e-16;

/**
 * atan2(y, x) in [−π, π], the same bits in every runtime (fdlibm e_atan2.c, its special cases
 * for zeros, infinities and NaN included); error below 2 ulp.
 *
 * @example
 * detAtan2(1, -1) // 2.356194490192345
 */
export function detAtan2(y: number, x: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) {
    return Number.NaN;
  }
  const hx = hi(x);
  const ix = hx & 0x7fffffff;
  const hy = hi(y);
  const iy = hy & 0x7fffffff;
  if (x === 1) {
    return detAtan(y);
  }
  const m = ((hy >>> 31) & 1) | ((hx >>> 30) & 2); // 2 · sign(x) + sign(y)
  if (y === 0) {
    return m === 0 || m === 1 ? y : m === 2 ? PI : -PI;
  }
  if (x === 0) {
    return hy < 0 ? -PI_O_2 : PI_O_2;
  }
  if (ix === 0x7ff00000 && lo(x) === 0) {
    if (iy === 0x7ff00000 && lo(y) === 0) {
      return [PI_O_4, -PI_O_4, 3 * PI_O_4, -3 * PI_O_4][m]!;
    }
    return [0, -0, PI, -PI][m]!;
  }
  if (iy === 0x7ff00000 && lo(y) === 0) {
    return hy < 0 ? -PI_O_2 : PI_O_2;
  }
  const k = (iy - ix) >> 20;
  let z: number;
  if (k > 60) {
    z = PI_O_2 + 0.5 * PI_LO; // |y/x| > 2^60
  } else if (hx < 0 && k < -60) {
    z = 0; // |y|/x < −2^60
  } else {
    z = detAtan(Math.abs(y / x));
  }
  return m === 0 ? z : m === 1 ? -z : m === 2 ? PI - (z - PI_LO) : (z - PI_LO) - PI;
}

/**
 * acos x for x in [−1, 1] as atan2(√((1 − x)(1 + x)), x): 1 − x is exact where acos is
 * ill-conditioned (x near 1, Sterbenz), so a few ulp; the same bits in every runtime. NaN outside.
 *
 * @example
 * detAcos(0.5) // 1.0471975511965976 (π/3, within 1 ulp)
 */
export function detAcos(x: number): number {
  if (!(x >= -1 && x <= 1)) {
    return Number.NaN;
  }
  return detAtan2(Math.sqrt((1 - x) * (1 + x)), x);
}

// e_exp.c
const O_THRESHOLD = 7.09782712893383973096e+02;
const U_THRESHOLD = -7.45133219101941108420e+02;
const LN2_HI = 6.93147180369123816490e-01; // 0x3fe62e42 fee00000
const LN2_LO = 1.90821492927058770002e-10; // 0x3dea39ef 35793c76
const INV_LN2 = 1.44269504088896338700e+00;
const P1 = 1.66666666666666019037e-01;
const P2 = -2.77777777770155933842e-03;
const P3 = 6.61375632143793436117e-05;
const P4 = -1.65339022054652515390e-06;
const P5 = 4.13813679705723846039e-08;

/**
 * e^x, the same bits in every runtime (fdlibm e_exp.c); error below 1 ulp.
 *
 * @example
 * detExp(1) // 2.7182818284590455 (Math.E is 2.718281828459045: within 1 ulp)
 */
export function detExp(x: number): number {
  const hx = hi(x);
  const negative = hx < 0;
  const ix = hx & 0x7fffffff;
  if (ix >= 0x40862e42) {
    // |x| ≥ 709.78…
    if (Number.isNaN(x)) {
      return x;
    }
    if (x === Infinity) {
      return x;
    }
    if (x === -Infinity) {
      return 0;
    }
    if (x > O_THRESHOLD) {
      return Infinity;
    }
    if (x < U_THRESHOLD) {
      return 0;
    }
  }
  let k = 0;
  let h = 0;
  let l = 0;
  let t = x;
  if (ix > 0x3fd62e42) {
    // |x| > ln2 / 2
    if (ix < 0x3ff0a2b2) {
      // and |x| < 1.5 ln2
      h = negative ? x + LN2_HI : x - LN2_HI;
      l = negative ? -LN2_LO : LN2_LO;
      k = negative ? -1 : 1;
    } else {
      k = Math.trunc(INV_LN2 * x + (negative ? -0.5 : 0.5));
      h = x - k * LN2_HI; // exact: k · LN2_HI has few bits
      l = k * LN2_LO;
    }
    t = h - l;
  } else if (ix < 0x3e300000) {
    return 1 + x; // |x| < 2^-28
  }
  const tt = t * t;
  const c = t - tt * (P1 + tt * (P2 + tt * (P3 + tt * (P4 + tt * P5))));
  if (k === 0) {
    return 1 - ((t * c) / (c - 2) - t);
  }
  const y = 1 - ((l - (t * c) / (2 - c)) - h);
  // y · 2^k, in two exact steps where 2^k alone would overflow or underflow.
  return k > 1023 ? y * 2 * pow2(k - 1) : k >= -1021 ? y * pow2(k) : y * pow2(k + 1000) * pow2(-1000);
}

/**
 * √(Σ xᵢ²) without overflow, the same bits in every runtime: scaled by the largest |xᵢ|, the
 * squares summed in order with Kahan's compensation, one sqrt (the algorithm of V8's own
 * Math.hypot, written down here so no runtime's choice enters); about 1 ulp. Any infinity gives
 * ∞, else any NaN gives NaN.
 *
 * @example
 * detHypot(3, 4) // 5
 */
export function detHypot(...xs: number[]): number {
  if (xs.some((x) => x === Infinity || x === -Infinity)) {
    return Infinity;
  }
  let max = 0;
  for (const x of xs) {
    const a = Math.abs(x);
    if (Number.isNaN(a)) {
      return Number.NaN;
    }
    if (a > max) {
      max = a;
    }
  }
  if (max === 0) {
    return 0;
  }
  // Kahan's compensated sum of the scaled squares, in argument order.
  let sum = 0;
  let compensation = 0;
  for (const x of xs) {
    const q = Math.abs(x) / max;
    const summand = q * q - compensation;
    const next = sum + summand;
    compensation = (next - sum) - summand;
    sum = next;
  }
  return Math.sqrt(sum) * max;
}

/**
 * detHypot of exactly three numbers, the same operations in the same order (so the same bits):
 * no rest array and no iterator, for the host's per-ray and per-point loops.
 *
 * @example
 * detHypot3(1, 2, 2) // 3, as detHypot(1, 2, 2)
 */
export function detHypot3(x: number, y: number, z: number): number {
  if (x === Infinity || x === -Infinity || y === Infinity || y === -Infinity || z === Infinity || z === -Infinity) {
    return Infinity;
  }
  const ax = Math.abs(x);
  const ay = Math.abs(y);
  const az = Math.abs(z);
  if (Number.isNaN(ax) || Number.isNaN(ay) || Number.isNaN(az)) {
    return Number.NaN;
  }
  let max = 0;
  if (ax > max) {
    max = ax;
  }
  if (ay > max) {
    max = ay;
  }
  if (az > max) {
    max = az;
  }
  if (max === 0) {
    return 0;
  }
  // Kahan's compensated sum of the scaled squares, x then y then z (detHypot's loop unrolled).
  let q = ax / max;
  let summand = q * q;
  let sum = summand;
  let compensation = (sum - 0) - summand;
  q = ay / max;
  summand = q * q - compensation;
  let next = sum + summand;
  compensation = (next - sum) - summand;
  sum = next;
  q = az / max;
  summand = q * q - compensation;
  next = sum + summand;
  sum = next;
  return Math.sqrt(sum) * max;
}
