// Small helpers shared by the engine's files: JavaScript's Math.min/max, Box2D's scalar
// helpers, AABB tests, the cached body rotation and the transform synchronisation.
// Internal to the engine (each file gets its own inline copies).
#pragma once

#include <cmath>
#include <cstring>
#include <limits>

#include "engine.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace qwop {
namespace {


constexpr double kMaxValue = std::numeric_limits<double>::max();

// JavaScript Math.min / Math.max (used only by AABB combine): NaN if either is NaN, else the
// smaller (larger), -0 counting below +0. Written without a branch on which is smaller (the
// broad phase's combines go either way at random): a < b ? a : b is the CPU's min; where the
// two are equal they have the same bits except for zeros of both signs, which OR (AND) of
// the bits resolves. Same results as the comparisons in the order JavaScript makes them.
inline uint64_t double_bits(double x) {
  uint64_t u;
  std::memcpy(&u, &x, 8);
  return u;
}
inline double from_bits(uint64_t u) {
  double x;
  std::memcpy(&x, &u, 8);
  return x;
}
inline double js_min(double a, double b) {
  if (a != a || b != b) return std::numeric_limits<double>::quiet_NaN();
  const double m = a < b ? a : b;
  const uint64_t same = static_cast<uint64_t>(0) - static_cast<uint64_t>(a == b);
  return from_bits(double_bits(m) | (double_bits(a) & same));
}
inline double js_max(double a, double b) {
  if (a != a || b != b) return std::numeric_limits<double>::quiet_NaN();
  const double m = a > b ? a : b;
  const uint64_t same = static_cast<uint64_t>(0) - static_cast<uint64_t>(a == b);
  return from_bits(double_bits(m) & (double_bits(a) | ~same));
}
// B2Math helpers (section 2).
inline double b2min(double a, double b) { return b > a ? a : b; }
inline double b2max(double a, double b) { return a > b ? a : b; }
inline double b2clamp(double a, double lo, double hi) { return lo > a ? lo : (a > hi ? hi : a); }
inline double b2abs(double a) { return a > 0 ? a : -a; }

// Index of the lowest set bit of a non-zero word.
inline int lowest_bit(uint64_t v) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_ctzll(v);
#else
  int k = 0;
  while (!(v & 1)) v >>= 1, ++k;
  return k;
#endif
}

inline bool same_bits(double a, double b) { return double_bits(a) == double_bits(b); }

// Sets b.xf.R = R(angle), reusing the stored rotation when the angle is bit-identical.
inline void set_body_rotation(Body& b, double angle, trig::Variant v) {
  if (same_bits(angle, b.xfAngle)) return;
  b.xf.R.set_angle(angle, v);
  b.xfAngle = angle;
}

#if defined(__SSE2__)
// An AABB's corners as (x, y) pairs. Boxes are written and read whole (a 16-byte load of
// fields stored one by one waits for the stores to retire instead of taking their values).
inline __m128d load_lower(const AABB& a) { return _mm_loadu_pd(&a.lower.x); }
inline __m128d load_upper(const AABB& a) { return _mm_loadu_pd(&a.upper.x); }
inline void store_aabb(AABB& out, __m128d lower, __m128d upper) {
  _mm_storeu_pd(&out.lower.x, lower);
  _mm_storeu_pd(&out.upper.x, upper);
}
// js_min and js_max lane by lane: the CPU's min (max) is a < b ? a : b (a > b ? a : b);
// equal lanes OR (AND) the bits, so -0 wins the min and +0 the max; a NaN lane gives NaN.
// m where neither a nor b is NaN, else NaN (lane by lane).
inline __m128d nan_if_unordered(__m128d a, __m128d b, __m128d m) {
  const __m128d nan = _mm_cmpunord_pd(a, b);
  return _mm_or_pd(_mm_andnot_pd(nan, m), _mm_and_pd(nan, _mm_set1_pd(std::numeric_limits<double>::quiet_NaN())));
}
inline __m128d js_min2(__m128d a, __m128d b) {
  return nan_if_unordered(a, b, _mm_or_pd(_mm_min_pd(a, b), _mm_and_pd(a, _mm_cmpeq_pd(a, b))));
}
inline __m128d js_max2(__m128d a, __m128d b) {
  return nan_if_unordered(a, b, _mm_and_pd(_mm_max_pd(a, b), _mm_or_pd(a, _mm_cmpneq_pd(a, b))));
}
inline void aabb_combine(AABB& out, const AABB& a, const AABB& b) {
  store_aabb(out, js_min2(load_lower(a), load_lower(b)), js_max2(load_upper(a), load_upper(b)));
}
inline bool aabb_contains(const AABB& a, const AABB& inner) {
  const __m128d in = _mm_and_pd(_mm_cmple_pd(load_lower(a), load_lower(inner)),
                                _mm_cmple_pd(load_upper(inner), load_upper(a)));
  return _mm_movemask_pd(in) == 3;
}
#else
inline void aabb_combine(AABB& out, const AABB& a, const AABB& b) {
  out.lower.x = js_min(a.lower.x, b.lower.x);
  out.lower.y = js_min(a.lower.y, b.lower.y);
  out.upper.x = js_max(a.upper.x, b.upper.x);
  out.upper.y = js_max(a.upper.y, b.upper.y);
}
inline bool aabb_contains(const AABB& a, const AABB& inner) {
  bool r = true;
  r = r && a.lower.x <= inner.lower.x;
  r = r && a.lower.y <= inner.lower.y;
  r = r && inner.upper.x <= a.upper.x;
  r = r && inner.upper.y <= a.upper.y;
  return r;
}
#endif
inline bool aabb_overlap(const AABB& a, const AABB& other) {
  const double d1x = other.lower.x - a.upper.x;
  const double d1y = other.lower.y - a.upper.y;
  const double d2x = a.lower.x - other.upper.x;
  const double d2y = a.lower.y - other.upper.y;
  // The original's four tests, evaluated without short-circuit branches (same result).
  return !((d1x > 0) | (d1y > 0) | (d2x > 0) | (d2y > 0));
}

// The contact filter (b2ContactFilter.ShouldCollide on two fixtures' filters).
inline bool filter_should_collide(const Filter& f1, const Filter& f2) {
  if (f1.groupIndex == f2.groupIndex && f1.groupIndex != 0) return f1.groupIndex > 0;
  return (f1.maskBits & f2.categoryBits) != 0 && (f1.categoryBits & f2.maskBits) != 0;
}

// pos + (R v)
inline Vec2 mul_x(const Transform& t, const Vec2& v) {
  return {t.position.x + (t.R.col1.x * v.x + t.R.col2.x * v.y),
          t.position.y + (t.R.col1.y * v.x + t.R.col2.y * v.y)};
}


// The first free slot of a fixed-capacity pool (bodies, joints), or kNull when it is full.
template <class T, int32_t N>
inline int32_t first_free_slot(const T (&pool)[N]) {
  for (int32_t i = 0; i < N; ++i) {
    if (!pool[i].inUse) return i;
  }
  return kNull;
}

// An (x, y) pair of doubles computed lane by lane: one SSE2 register where the CPU has SSE2,
// two doubles elsewhere. The solvers compute x and y with the same operations, so each
// operation runs once for both; a lane's result is the scalar operation's either way.
#if defined(__SSE2__)
struct XY {
  __m128d v;
};
inline XY xy(double x, double y) { return {_mm_set_pd(y, x)}; }
inline XY both(double a) { return {_mm_set1_pd(a)}; }
inline XY load_xy(const Vec2& p) { return {_mm_loadu_pd(&p.x)}; }
// For a vector whose fields are written one by one somewhere: two 8-byte loads (a 16-byte
// load of fields stored one by one waits for the stores to retire).
inline XY load_xy_split(const Vec2& p) { return {_mm_loadh_pd(_mm_load_sd(&p.x), &p.y)}; }
inline void store_xy(Vec2& p, XY a) { _mm_storeu_pd(&p.x, a.v); }
inline XY operator+(XY a, XY b) { return {_mm_add_pd(a.v, b.v)}; }
inline XY operator-(XY a, XY b) { return {_mm_sub_pd(a.v, b.v)}; }
inline XY operator*(XY a, XY b) { return {_mm_mul_pd(a.v, b.v)}; }
inline XY x_both(XY a) { return {_mm_unpacklo_pd(a.v, a.v)}; }
inline XY y_both(XY a) { return {_mm_unpackhi_pd(a.v, a.v)}; }
inline double x_of(XY a) { return _mm_cvtsd_f64(a.v); }
inline double y_of(XY a) { return _mm_cvtsd_f64(_mm_unpackhi_pd(a.v, a.v)); }
#else
struct XY {
  double x, y;
};
inline XY xy(double x, double y) { return {x, y}; }
inline XY both(double a) { return {a, a}; }
inline XY load_xy(const Vec2& p) { return {p.x, p.y}; }
inline XY load_xy_split(const Vec2& p) { return {p.x, p.y}; }
inline void store_xy(Vec2& p, XY a) { p = {a.x, a.y}; }
inline XY operator+(XY a, XY b) { return {a.x + b.x, a.y + b.y}; }
inline XY operator-(XY a, XY b) { return {a.x - b.x, a.y - b.y}; }
inline XY operator*(XY a, XY b) { return {a.x * b.x, a.y * b.y}; }
inline XY x_both(XY a) { return {a.x, a.x}; }
inline XY y_both(XY a) { return {a.y, a.y}; }
inline double x_of(XY a) { return a.x; }
inline double y_of(XY a) { return a.y; }
#endif

// Section 4: a body's transform (synchronizeTransform) from its sweep centre c and the sine
// and cosine of its sweep angle: R = [c -s; s c], position = c - R localCenter.
inline void set_transform_at(Body& b, XY c, double s, double co) {
  const XY col1 = xy(co, s), col2 = xy(-s, co);
  store_xy(b.xf.R.col1, col1);
  store_xy(b.xf.R.col2, col2);
  b.xfAngle = b.sweep.a;
  const XY lc = load_xy(b.sweep.localCenter);
  store_xy(b.xf.position, c - (col1 * x_both(lc) + col2 * y_both(lc)));
}

// A body's new sweep centre and angle, and its transform from the angle's sine and cosine.
inline void set_body_sweep(Body& b, XY c, double a, double s, double co) {
  store_xy(b.sweep.c, c);
  b.sweep.a = a;
  set_transform_at(b, c, s, co);
}

// The transform from the body's stored sweep centre.
inline void set_transform(Body& b, double s, double c) { set_transform_at(b, load_xy_split(b.sweep.c), s, c); }

// The same, computing sine and cosine only when the angle changed (values kept in registers,
// not read back from xf.R: a load of fields just stored one by one waits for the stores).
inline void sync_transform(World& w, int32_t bi) {
  Body& b = w.bodies[bi];
  if (same_bits(b.sweep.a, b.xfAngle)) {
    set_transform(b, b.xf.R.col1.y, b.xf.R.col1.x);
  } else {
    const trig::SinCos r = trig::sincos(w.trigVariant, b.sweep.a);
    set_transform(b, r.s, r.c);
  }
}

}  // namespace
}  // namespace qwop
