// sin and cos of four arguments at once (AVX2), the same results bit for bit as trig.cpp's
// scalar sincos for each argument, for the solver that runs four games in SIMD lanes.
//
// The scalar algorithm branches on the range of |x|; here every lane computes both of the
// table path's functions (do_sin and do_cos) on the arguments its range calls for, and the
// range masks pick each lane's result. Each lane's arithmetic is exactly the scalar one:
// the same operations in the same order, products fused where the FMA variant fuses them
// and nowhere else. Lanes outside the reduced ranges (|x| >= 105414350, infinities, NaN)
// are computed by the scalar function.
//
// Only for translation units and functions compiled with QWOP_X4_TARGET; callers check
// trig::x4_supported() at run time.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "sincos_table.h"
#include "trig.h"

#define QWOP_X4_TARGET __attribute__((target("avx2,fma")))
#define QWOP_X4_INLINE __attribute__((target("avx2,fma"), always_inline)) inline

namespace qwop::trig::x4 {

using V = __m256d;

// The scalar file's constants (trig.cpp), as doubles given by their bits' hex form.
namespace k {
constexpr double Sn3 = -0x1.5555555555515p-3, Sn5 = 0x1.11110e829872fp-7;
constexpr double Cs2 = 0x1.0p-1, Cs4 = -0x1.5555555555535p-5, Cs6 = 0x1.6c16bedd9e239p-10;
constexpr double S1 = -0x1.5555555555555p-3, S2 = 0x1.1111111110ecep-7, S3 = -0x1.a01a019db08b8p-13;
constexpr double S4 = 0x1.71de27b9a7ed9p-19, S5 = -0x1.addffc2fcdf59p-26;
constexpr double Big = 0x1.8p45, Hp0 = 0x1.921fb54442d18p+0, Hp1 = 0x1.1a62633145c07p-54;
constexpr double HpInv = 0x1.45f306dc9c883p-1, ToInt = 0x1.8p52;
constexpr double Mp1 = 0x1.921fb58000000p+0, Mp2 = -0x1.dde973c000000p-27;
constexpr double Pp3 = -0x1.cb3b398000000p-55, Pp4 = -0x1.d747f23e32ed7p-83;
constexpr double TaylorBelow = 0x1.020c49ba5e354p-3;
// The scalar code's range tests on the high word of |x| (k < 0x3e400000 and so on), as
// comparisons of |x| with the double whose high word is the bound and low word zero.
constexpr double Below27 = 0x1.0p-27;             // 0x3e400000
constexpr double Below26 = 0x1.0p-26;             // 0x3e500000
constexpr double Range1 = 0x1.b6p-1;              // 0x3feb6000: 0.85546875
constexpr double Range2 = 0x1.368fdp+1;           // 0x400368fd: 2.4262647628784180
constexpr double Range3 = 0x1.921fbp+26;          // 0x419921fb: 105414348
}  // namespace k

QWOP_X4_INLINE V splat(double x) { return _mm256_set1_pd(x); }
QWOP_X4_INLINE V vabs(V x) { return _mm256_andnot_pd(splat(-0.0), x); }
QWOP_X4_INLINE V vneg(V x) { return _mm256_xor_pd(splat(-0.0), x); }
QWOP_X4_INLINE V copysign(V mag, V sgn) {
  return _mm256_or_pd(_mm256_andnot_pd(splat(-0.0), mag), _mm256_and_pd(splat(-0.0), sgn));
}
QWOP_X4_INLINE V select(V mask, V yes, V no) { return _mm256_blendv_pd(no, yes, mask); }
QWOP_X4_INLINE V lt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
QWOP_X4_INLINE V le(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }

// a*b + c: one rounding in the FMA variant (F), two otherwise.
template <bool F>
QWOP_X4_INLINE V madd(V a, V b, V c) {
  if constexpr (F) {
    return _mm256_fmadd_pd(a, b, c);
  } else {
    return _mm256_add_pd(_mm256_mul_pd(a, b), c);
  }
}

struct Lookup {
  V r, sn, ssn, cs, ccs;
};

// Every lane's |x| must be below 0.86 (the table's range), which the callers ensure. Each
// lane's four table values are one aligned 32-byte row, loaded whole and transposed (a
// gather is several times slower on some CPUs).
QWOP_X4_INLINE Lookup lookup(V ax) {
  const V u = _mm256_add_pd(splat(k::Big), ax);
  alignas(32) uint64_t idx[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(idx), _mm256_castpd_si256(u));
  const double* t = detail::kSinCosTable;
  const V r0 = _mm256_load_pd(t + 4 * static_cast<uint32_t>(idx[0]));
  const V r1 = _mm256_load_pd(t + 4 * static_cast<uint32_t>(idx[1]));
  const V r2 = _mm256_load_pd(t + 4 * static_cast<uint32_t>(idx[2]));
  const V r3 = _mm256_load_pd(t + 4 * static_cast<uint32_t>(idx[3]));
  const V lo01 = _mm256_unpacklo_pd(r0, r1), hi01 = _mm256_unpackhi_pd(r0, r1);  // sn cs / ssn ccs of lanes 0, 1
  const V lo23 = _mm256_unpacklo_pd(r2, r3), hi23 = _mm256_unpackhi_pd(r2, r3);
  return {_mm256_sub_pd(ax, _mm256_sub_pd(u, splat(k::Big))), _mm256_permute2f128_pd(lo01, lo23, 0x20),
          _mm256_permute2f128_pd(hi01, hi23, 0x20), _mm256_permute2f128_pd(lo01, lo23, 0x31),
          _mm256_permute2f128_pd(hi01, hi23, 0x31)};
}

// do_sin and do_cos of x + dx, given the table row of |x| (lookup(vabs(x))).
template <bool F>
QWOP_X4_INLINE V do_sin(V x, V dx, const Lookup& L) {
  const V xx = _mm256_mul_pd(x, x);
  const V p = madd<F>(madd<F>(madd<F>(madd<F>(splat(k::S5), xx, splat(k::S4)), xx, splat(k::S3)), xx, splat(k::S2)),
                      xx, splat(k::S1));
  const V taylor = _mm256_add_pd(x, madd<F>(madd<F>(p, x, vneg(_mm256_mul_pd(splat(0.5), dx))), xx, dx));
  const V ndx = select(le(x, _mm256_setzero_pd()), vneg(dx), dx);
  const V r = L.r, rr = _mm256_mul_pd(r, r);
  const V s = _mm256_add_pd(r, madd<F>(_mm256_mul_pd(r, rr), madd<F>(rr, splat(k::Sn5), splat(k::Sn3)), ndx));
  const V c = madd<F>(r, ndx, _mm256_mul_pd(rr, madd<F>(rr, madd<F>(rr, splat(k::Cs6), splat(k::Cs4)), splat(k::Cs2))));
  const V cor = madd<F>(L.cs, s, madd<F>(vneg(L.sn), c, madd<F>(s, L.ccs, L.ssn)));
  const V table = copysign(_mm256_add_pd(L.sn, cor), x);
  return select(lt(vabs(x), splat(k::TaylorBelow)), taylor, table);
}

template <bool F>
QWOP_X4_INLINE V do_cos(V x, V dx, const Lookup& L) {
  const V ndx = select(lt(x, _mm256_setzero_pd()), vneg(dx), dx);
  const V r = _mm256_add_pd(L.r, ndx), rr = _mm256_mul_pd(r, r);
  const V s = madd<F>(_mm256_mul_pd(r, rr), madd<F>(rr, splat(k::Sn5), splat(k::Sn3)), r);
  const V c = _mm256_mul_pd(rr, madd<F>(rr, madd<F>(rr, splat(k::Cs6), splat(k::Cs4)), splat(k::Cs2)));
  const V cor = madd<F>(vneg(L.sn), s, madd<F>(vneg(c), L.cs, madd<F>(vneg(s), L.ssn, L.ccs)));
  return _mm256_add_pd(L.cs, cor);
}

// sin and cos of each lane of x, as trig::sincos(variant F ? kFma : kGeneric) gives them.
template <bool F>
QWOP_X4_INLINE void sincos(V x, V* s, V* c) {
  const V ax = vabs(x);
  if (_mm256_movemask_pd(lt(ax, splat(k::Range3))) != 0xf) {  // a lane the table cannot take
    alignas(32) double in[4], so[4], co[4];
    _mm256_store_pd(in, x);
    for (int i = 0; i < 4; ++i) trig::sincos(F ? kFma : kGeneric, in[i], &so[i], &co[i]);
    *s = _mm256_load_pd(so);
    *c = _mm256_load_pd(co);
    return;
  }
  const V m1 = lt(ax, splat(k::Range1));
  const V m2 = lt(ax, splat(k::Range2));
  const V zero = _mm256_setzero_pd();
  const V sin1_lo = splat(k::Below26), cos1_lo = splat(k::Below27);
  if (_mm256_movemask_pd(m1) == 0xf) {  // sin and cos both of x itself: one table row
    const Lookup L = lookup(ax);
    *s = select(lt(ax, sin1_lo), x, do_sin<F>(x, zero, L));
    *c = select(lt(ax, cos1_lo), splat(1.0), do_cos<F>(x, zero, L));
    return;
  }
  // |x| < 2.426265: through t = pi/2 - |x|. Otherwise x = n pi/2 + (a3 + da3) (glibc's
  // reduce_sincos), computed only when some lane needs it (body angles are mostly within
  // 2.43 rad).
  const V t = _mm256_sub_pd(splat(k::Hp0), ax);
  const V a2 = _mm256_add_pd(t, splat(k::Hp1));
  const V da2 = _mm256_add_pd(_mm256_sub_pd(t, a2), splat(k::Hp1));
  V ps = select(m1, x, a2), dps = select(m1, zero, da2);
  V pc = select(m1, x, t), dpc = select(m1, zero, splat(k::Hp1));
  const bool far = _mm256_movemask_pd(m2) != 0xf;
  __m256i n = _mm256_setzero_si256();
  if (far) {
    const V tt = madd<F>(x, splat(k::HpInv), splat(k::ToInt));
    const V xn = _mm256_sub_pd(tt, splat(k::ToInt));
    const V nxn = vneg(xn);
    const V y = madd<F>(nxn, splat(k::Mp2), madd<F>(nxn, splat(k::Mp1), x));
    const V t2 = madd<F>(nxn, splat(k::Pp3), y);
    V da3 = madd<F>(nxn, splat(k::Pp3), _mm256_sub_pd(y, t2));
    const V a3 = madd<F>(nxn, splat(k::Pp4), t2);
    da3 = _mm256_add_pd(da3, madd<F>(nxn, splat(k::Pp4), _mm256_sub_pd(t2, a3)));
    n = _mm256_and_si256(_mm256_castpd_si256(tt), _mm256_set1_epi64x(3));
    ps = select(m2, ps, a3), dps = select(m2, dps, da3);
    pc = select(m2, pc, a3), dpc = select(m2, dpc, da3);
  }
  const V ds = do_sin<F>(ps, dps, lookup(vabs(ps)));
  const V dc = do_cos<F>(pc, dpc, lookup(vabs(pc)));
  V sin2 = copysign(dc, x), cos2 = ds;
  if (far) {
    // Range 3: sin = (sa, ca, -sa, -ca)[n], cos = the same at n + 1.
    const __m256i one = _mm256_set1_epi64x(1), two = _mm256_set1_epi64x(2);
    const V odd = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(n, one), one));
    const V neg_s = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(n, two), two));
    const V neg_c = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(_mm256_add_epi64(n, one), two), two));
    const V s3 = select(odd, dc, ds);
    const V c3 = select(odd, ds, dc);
    sin2 = select(m2, sin2, select(neg_s, vneg(s3), s3));
    cos2 = select(m2, cos2, select(neg_c, vneg(c3), c3));
  }
  *s = select(m1, select(lt(ax, sin1_lo), x, ds), sin2);
  *c = select(m1, select(lt(ax, cos1_lo), splat(1.0), dc), cos2);
}

}  // namespace qwop::trig::x4
