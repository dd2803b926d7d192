// sin and cos following glibc's IBM Accurate Mathematical Library algorithm
// (sysdeps/ieee754/dbl-64/s_sin.c, glibc 2.28 and later), written for this engine so that
// its results are the same on any host. The algorithm, by range of |x|:
//
//   |x| < 2^-26        sin x = x; cos x = 1 (below 2^-27), else the table path
//   |x| < 0.855469     sin: a Taylor polynomial below 0.126, else the table path;
//                      cos: the table path
//   |x| < 2.426265     through pi/2 - |x| as a double-double: sin = +-cos(t), cos = sin(t)
//   |x| < 105414350    x - n pi/2 in double-double (pi/2 in four parts), then the table path
//   larger             the host's libm (Payne-Hanek reduction; never reached by a game:
//                      a body would have to turn 16 million times)
//
// The table path splits the argument as x = X + r with X = i/128 (adding 1.5 * 2^45 rounds
// |x| to 1/128 and leaves i in the low bits), looks up sin X and cos X as double-doubles
// (sincos_table.h) and combines them with short polynomials in r.
//
// The two variants are the same expressions; glibc's FMA build is the compiler's
// contraction of them, so wherever GCC fused a product into an addition there (read from
// the build's machine code: the product a*b is fused into the add/sub that uses it; of two
// products in one sum, the left one) the FMA variant calls fma() explicitly. This file is
// compiled with -ffp-contract=off, so the generic variant's products round on their own.
#include "trig.h"

#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "sincos_table.h"
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include "trig_x4.h"
#endif

// Everything below is inlined into each variant's entry point, so that the FMA build's
// fma() becomes the CPU's instruction where the entry point is compiled for it.
#if defined(__GNUC__) || defined(__clang__)
#define QWOP_TRIG_INLINE __attribute__((always_inline)) inline
#define QWOP_FMA(a, b, c) __builtin_fma(a, b, c)
#else
#define QWOP_TRIG_INLINE inline
#define QWOP_FMA(a, b, c) std::fma(a, b, c)
#endif

namespace qwop::trig {

namespace {

using detail::kSinCosTable;

// Polynomial coefficients and constants of the algorithm (glibc's usncs.h / s_sin.c values).
constexpr double kSn3 = -0x1.5555555555515p-3;  // sin r ~ r + sn3 r^3 + sn5 r^5 for |r| <= 1/256
constexpr double kSn5 = 0x1.11110e829872fp-7;
constexpr double kCs2 = 0x1.0p-1;                // 1 - cos r ~ cs2 r^2 + cs4 r^4 + cs6 r^6
constexpr double kCs4 = -0x1.5555555555535p-5;
constexpr double kCs6 = 0x1.6c16bedd9e239p-10;
constexpr double kS1 = -0x1.5555555555555p-3;   // Taylor sin for |x| < 0.126
constexpr double kS2 = 0x1.1111111110ecep-7;
constexpr double kS3 = -0x1.a01a019db08b8p-13;
constexpr double kS4 = 0x1.71de27b9a7ed9p-19;
constexpr double kS5 = -0x1.addffc2fcdf59p-26;
constexpr double kBig = 0x1.8p45;               // rounds |x| to a multiple of 1/128
constexpr double kHp0 = 0x1.921fb54442d18p+0;   // pi/2 = hp0 + hp1
constexpr double kHp1 = 0x1.1a62633145c07p-54;
constexpr double kHpInv = 0x1.45f306dc9c883p-1; // 2/pi
constexpr double kToInt = 0x1.8p52;             // rounds to an integer, kept in the low bits
constexpr double kMp1 = 0x1.921fb58000000p+0;   // pi/2 = mp1 + mp2 + pp3 + pp4
constexpr double kMp2 = -0x1.dde973c000000p-27;
constexpr double kPp3 = -0x1.cb3b398000000p-55;
constexpr double kPp4 = -0x1.d747f23e32ed7p-83;
constexpr double kTaylorBelow = 0x1.020c49ba5e354p-3;  // 0.126

QWOP_TRIG_INLINE uint64_t bits(double x) {
  uint64_t u;
  std::memcpy(&u, &x, sizeof(u));
  return u;
}

// a*b + c: fused in glibc's FMA build (F), two roundings otherwise.
template <bool F>
QWOP_TRIG_INLINE double madd(double a, double b, double c) {
  if constexpr (F) {
    return QWOP_FMA(a, b, c);
  } else {
    return a * b + c;
  }
}

struct Lookup {
  double r;                 // |x| - X
  double sn, ssn, cs, ccs;  // sin X, cos X as double-doubles
};

QWOP_TRIG_INLINE Lookup lookup(double ax) {
  const double u = kBig + ax;
  // One row of four (the index is below 111 here): its four loads share one address.
  const double* row = kSinCosTable + 4 * static_cast<std::size_t>(static_cast<uint32_t>(bits(u)));
  return {ax - (u - kBig), row[0], row[1], row[2], row[3]};
}

template <bool F>
QWOP_TRIG_INLINE double taylor_sin(double xx, double a, double da) {
  const double p = madd<F>(madd<F>(madd<F>(madd<F>(kS5, xx, kS4), xx, kS3), xx, kS2), xx, kS1);
  const double t = madd<F>(madd<F>(p, a, -(0.5 * da)), xx, da);
  return a + t;
}

// sin(x + dx) for |x| < 0.855469 (glibc's do_sin).
template <bool F>
QWOP_TRIG_INLINE double do_sin(double x, double dx) {
  if (std::fabs(x) < kTaylorBelow) return taylor_sin<F>(x * x, x, dx);
  if (x <= 0) dx = -dx;
  const Lookup L = lookup(std::fabs(x));
  const double r = L.r, rr = r * r;
  const double s = r + madd<F>(r * rr, madd<F>(rr, kSn5, kSn3), dx);
  const double c = madd<F>(r, dx, rr * madd<F>(rr, madd<F>(rr, kCs6, kCs4), kCs2));
  const double cor = madd<F>(L.cs, s, madd<F>(-L.sn, c, madd<F>(s, L.ccs, L.ssn)));
  return std::copysign(L.sn + cor, x);
}

// cos(x + dx) for |x| < 0.855469 (glibc's do_cos).
template <bool F>
QWOP_TRIG_INLINE double do_cos(double x, double dx) {
  if (x < 0) dx = -dx;
  const Lookup L = lookup(std::fabs(x));
  const double r = L.r + dx, rr = r * r;
  const double s = madd<F>(r * rr, madd<F>(rr, kSn5, kSn3), r);
  const double c = rr * madd<F>(rr, madd<F>(rr, kCs6, kCs4), kCs2);
  const double cor = madd<F>(-L.sn, s, madd<F>(-c, L.cs, madd<F>(-s, L.ssn, L.ccs)));
  return L.cs + cor;
}

// x = n pi/2 + (a + da), |a| <= pi/4 (glibc's reduce_sincos); returns n mod 4.
template <bool F>
QWOP_TRIG_INLINE int reduce(double x, double* a, double* da) {
  const double t = madd<F>(x, kHpInv, kToInt);
  const double xn = t - kToInt;
  const int n = static_cast<int>(static_cast<uint32_t>(bits(t)) & 3u);
  const double y = madd<F>(-xn, kMp2, madd<F>(-xn, kMp1, x));
  const double t2 = madd<F>(-xn, kPp3, y);
  double db = madd<F>(-xn, kPp3, y - t2);
  const double b = madd<F>(-xn, kPp4, t2);
  db = db + madd<F>(-xn, kPp4, t2 - b);
  *a = b;
  *da = db;
  return n;
}

template <bool F>
QWOP_TRIG_INLINE void sincos_into(double x, double* s, double* c) {
  const uint32_t k = static_cast<uint32_t>(bits(x) >> 32) & 0x7fffffffu;
  if (k < 0x3e400000u) {  // |x| < 2^-27
    *s = x;
    *c = 1.0;
  } else if (k < 0x3feb6000u) {  // |x| < 0.855469
    *s = k < 0x3e500000u ? x : do_sin<F>(x, 0.0);
    *c = do_cos<F>(x, 0.0);
  } else if (k < 0x400368fdu) {  // |x| < 2.426265
    const double t = kHp0 - std::fabs(x);
    *s = std::copysign(do_cos<F>(t, kHp1), x);
    const double a = t + kHp1;
    *c = do_sin<F>(a, (t - a) + kHp1);
  } else if (k < 0x419921fbu) {  // |x| < 105414350
    double a, da;
    const int n = reduce<F>(x, &a, &da);
    const double sa = do_sin<F>(a, da), ca = do_cos<F>(a, da);
    // sin x = sin(a + n pi/2), cos x = sin(a + (n+1) pi/2).
    const double q[4] = {sa, ca, -sa, -ca};
    *s = q[n];
    *c = q[(n + 1) & 3];
  } else if (k < 0x7ff00000u) {
    *s = std::sin(x);
    *c = std::cos(x);
  } else {
    *s = x / x;  // NaN for infinities and NaN
    *c = x / x;
  }
}

template <bool F>
QWOP_TRIG_INLINE SinCos sincos_impl(double x) {
  SinCos r;
  sincos_into<F>(x, &r.s, &r.c);
  return r;
}

SinCos sincos_generic(double x) { return sincos_impl<false>(x); }
SinCos sincos_fma_soft(double x) { return sincos_impl<true>(x); }

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
__attribute__((target("fma"))) SinCos sincos_fma_hw(double x) { return sincos_impl<true>(x); }
bool cpu_has_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("fma");
}
#else
SinCos sincos_fma_hw(double x) { return sincos_impl<true>(x); }
bool cpu_has_fma() { return false; }
#endif

const bool kExtensions = [] {
  const char* p = std::getenv("QWOP_SIM_PORTABLE");
  return p == nullptr || *p == '\0' || std::strcmp(p, "0") == 0;
}();
const bool kHardwareFma = kExtensions && cpu_has_fma();

template <Variant V>
SinCos4 one_by_one(double x0, double x1, double x2, double x3) {
  SinCos4 r;
  const double x[4] = {x0, x1, x2, x3};
  for (int i = 0; i < 4; ++i) {
    const SinCos sc = sincos(V, x[i]);
    r.s[i] = sc.s;
    r.c[i] = sc.c;
  }
  return r;
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
template <bool F>
QWOP_X4_TARGET SinCos4 in_lanes(double x0, double x1, double x2, double x3) {
  x4::V s, c;
  x4::sincos<F>(_mm256_set_pd(x3, x2, x1, x0), &s, &c);
  SinCos4 r;
  _mm256_storeu_pd(r.s, s);
  _mm256_storeu_pd(r.c, c);
  return r;
}
bool cpu_has_lanes() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif
}  // namespace

namespace detail {
SinCosFn sincos_fn[2] = {sincos_fma_soft, sincos_generic};
SinCos4Fn sincos4_fn[2] = {one_by_one<kFma>, one_by_one<kGeneric>};
// Runs when the library loads; a call before it gets the portable builds (same results).
[[maybe_unused]] const bool kPicked = [] {
  if (kHardwareFma) sincos_fn[kFma] = sincos_fma_hw;
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
  if (kExtensions && cpu_has_lanes()) {
    sincos4_fn[kFma] = in_lanes<true>;
    sincos4_fn[kGeneric] = in_lanes<false>;
  }
#endif
  return true;
}();
}  // namespace detail

void sincos(Variant v, double x, double* s, double* c) {
  const SinCos r = sincos(v, x);
  *s = r.s;
  *c = r.c;
}

double sin(Variant v, double x) {
  double s, c;
  sincos(v, x, &s, &c);
  return s;
}

double cos(Variant v, double x) {
  double s, c;
  sincos(v, x, &s, &c);
  return c;
}

bool hardware_fma() { return kHardwareFma; }
bool cpu_extensions_enabled() { return kExtensions; }

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
namespace {
template <bool F>
QWOP_X4_TARGET void lanes(const double* x, double* s, double* c, std::size_t n) {
  for (std::size_t i = 0; i < n; i += 4) {
    alignas(32) double in[4] = {0.0, 0.0, 0.0, 0.0}, so[4], co[4];
    const std::size_t m = n - i < 4 ? n - i : 4;
    for (std::size_t k = 0; k < m; ++k) in[k] = x[i + k];
    x4::V vs, vc;
    x4::sincos<F>(_mm256_load_pd(in), &vs, &vc);
    _mm256_store_pd(so, vs);
    _mm256_store_pd(co, vc);
    for (std::size_t k = 0; k < m; ++k) s[i + k] = so[k], c[i + k] = co[k];
  }
}
}  // namespace

bool sincos_lanes(Variant v, const double* x, double* s, double* c, std::size_t n) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return false;
  if (v == kGeneric) {
    lanes<false>(x, s, c, n);
  } else {
    lanes<true>(x, s, c, n);
  }
  return true;
}
#else
bool sincos_lanes(Variant, const double*, double*, double*, std::size_t) { return false; }
#endif

}  // namespace qwop::trig
