// The revolute joint in Box2D 2.0's force-based formulation: velocity set-up with warm
// starting, motor then limit velocity solve, point and limit position correction
// (ENGINE.md section 14b).
#include "engine.h"
#include "engine_util.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace qwop {

// ---------------------------------------------------------------- revolute joint (section 14b)

namespace {
inline Vec2 lever(const Body& b, const Vec2& anchor) {
  const double ox = anchor.x - b.sweep.localCenter.x;
  const double oy = anchor.y - b.sweep.localCenter.y;
  const Mat22& R = b.xf.R;
  return {R.col1.x * ox + R.col2.x * oy, R.col1.y * ox + R.col2.y * oy};
}

}  // namespace

// The position solve reports success when sqrt(e) <= kLinearSlop, e the squared pivot
// error. sqrt is correctly rounded and so never decreasing: that holds exactly when
// e <= the largest double whose square root is still <= kLinearSlop (found once here),
// which spares a square root on the solver's path.
const double kJointSquaredErrorBound = [] {
  const double inf = std::numeric_limits<double>::infinity();
  double t = settings::kLinearSlop * settings::kLinearSlop;
  while (!(std::sqrt(t) <= settings::kLinearSlop)) t = std::nextafter(t, 0.0);
  while (std::sqrt(std::nextafter(t, inf)) <= settings::kLinearSlop) t = std::nextafter(t, inf);
  return t;
}();

namespace {

inline Mat22 joint_k(double mA, double mB, double iA, double iB, const Vec2& rA, const Vec2& rB) {
  Mat22 K1, K2, K3, K;
  K1.col1.x = mA + mB;
  K1.col2.x = 0.0;
  K1.col1.y = 0.0;
  K1.col2.y = mA + mB;
  K2.col1.x = iA * rA.y * rA.y;
  K2.col2.x = -iA * rA.x * rA.y;
  K2.col1.y = -iA * rA.x * rA.y;
  K2.col2.y = iA * rA.x * rA.x;
  K3.col1.x = iB * rB.y * rB.y;
  K3.col2.x = -iB * rB.x * rB.y;
  K3.col1.y = -iB * rB.x * rB.y;
  K3.col2.y = iB * rB.x * rB.x;
  K.col1.x = K1.col1.x + K2.col1.x + K3.col1.x;
  K.col1.y = K1.col1.y + K2.col1.y + K3.col1.y;
  K.col2.x = K1.col2.x + K2.col2.x + K3.col2.x;
  K.col2.y = K1.col2.y + K2.col2.y + K3.col2.y;
  return K;
}
}  // namespace

void joint_init_limits(RevoluteJoint& j, double angleA, double angleB) {
  if (!j.enableMotor) j.motorForce = 0.0;
  if (j.enableLimit) {
    const double jointAngle = (angleB - angleA) - j.referenceAngle;
    if (b2abs(j.upperAngle - j.lowerAngle) < 2.0 * settings::kAngularSlop) {
      j.limitState = kEqualLimits;
    } else if (jointAngle <= j.lowerAngle) {
      if (j.limitState != kAtLowerLimit) j.limitForce = 0.0;
      j.limitState = kAtLowerLimit;
    } else if (jointAngle >= j.upperAngle) {
      if (j.limitState != kAtUpperLimit) j.limitForce = 0.0;
      j.limitState = kAtUpperLimit;
    } else {
      j.limitState = kInactiveLimit;
      j.limitForce = 0.0;
    }
  } else {
    j.limitForce = 0.0;
  }
}

void joint_init_velocity(World& w, RevoluteJoint& j, JointVelocityData& d, const TimeStep& step) {
  Body& A = w.bodies[j.bodyA];
  Body& B = w.bodies[j.bodyB];
  const Vec2 rA = d.rA = lever(A, j.localAnchor1);
  const Vec2 rB = d.rB = lever(B, j.localAnchor2);
  d.rAperp = {-rA.y, rA.x};
  d.rBperp = {-rB.y, rB.x};
  const double mA = A.invMass, mB = B.invMass, iA = A.invI, iB = B.invI;
  const Mat22 K = joint_k(mA, mB, iA, iB, rA, rB);
  {
    double det = K.col1.x * K.col2.y - K.col2.x * K.col1.y;
    if (det != 0.0) det = 1.0 / det;
    d.pivotMass.col1.x = det * K.col2.y;
    d.pivotMass.col2.x = -det * K.col2.x;
    d.pivotMass.col1.y = -det * K.col1.y;
    d.pivotMass.col2.y = det * K.col1.x;
  }
  j.motorMass = 1.0 / (iA + iB);
  joint_init_limits(j, A.sweep.a, B.sweep.a);
  if (step.warmStarting) {
    const Vec2 F = j.pivotForce;
    A.linearVelocity.x -= (step.dt * mA) * F.x;
    A.linearVelocity.y -= (step.dt * mA) * F.y;
    A.angularVelocity -= (step.dt * iA) * ((rA.x * F.y - rA.y * F.x + j.motorForce) + j.limitForce);
    B.linearVelocity.x += (step.dt * mB) * F.x;
    B.linearVelocity.y += (step.dt * mB) * F.y;
    B.angularVelocity += (step.dt * iB) * ((rB.x * F.y - rB.y * F.x + j.motorForce) + j.limitForce);
  } else {
    j.pivotForce = {0.0, 0.0};
    j.motorForce = 0.0;
    j.limitForce = 0.0;
  }
  j.limitPositionImpulse = 0.0;
}

// The velocity and position solves of N joints that share no body (a wave, world_step.cpp),
// written stage by stage across the N joints so that their dependency chains, which are
// what bounds the solver, run side by side. Each joint's arithmetic is exactly its own solve
// (the bodies' fields are read into locals first and written back last, as the one-joint
// solve reads back what it wrote).
namespace {

template <int N>
inline void solve_velocity_n(RevoluteJoint* const* js, Body* const* bs, const JointVelocityData* const* ds,
                             const TimeStep& step) {
  Body* A[N];
  Body* B[N];
  double wA[N], wB[N];
#if defined(__SSE2__)
  // A body's linear velocity as one (x, y) register: every operation of the point
  // constraint is the same on x as on y, so each runs once for both lanes. A lane's result
  // is the scalar operation's; (-w) * r.y is w * (-r.y), the perpendicular arm the
  // velocity set-up stores. The velocities are read as two 8-byte loads: the contact solver
  // writes them field by field, and a 16-byte load of two separate stores waits for both.
  __m128d vA[N], vB[N];
  for (int k = 0; k < N; ++k) {
    A[k] = bs[2 * k];
    B[k] = bs[2 * k + 1];
    vA[k] = _mm_loadh_pd(_mm_load_sd(&A[k]->linearVelocity.x), &A[k]->linearVelocity.y);
    wA[k] = A[k]->angularVelocity;
    vB[k] = _mm_loadh_pd(_mm_load_sd(&B[k]->linearVelocity.x), &B[k]->linearVelocity.y);
    wB[k] = B[k]->angularVelocity;
  }
  const __m128d minusInvDt = _mm_set1_pd(-step.inv_dt), dt = _mm_set1_pd(step.dt);
  for (int k = 0; k < N; ++k) {
    RevoluteJoint& j = *js[k];
    const JointVelocityData& d = *ds[k];
    const double iA = A[k]->invI, iB = B[k]->invI;
    const __m128d cdot = _mm_sub_pd(
        _mm_sub_pd(_mm_add_pd(vB[k], _mm_mul_pd(_mm_set1_pd(wB[k]), _mm_loadu_pd(&d.rBperp.x))), vA[k]),
        _mm_mul_pd(_mm_set1_pd(wA[k]), _mm_loadu_pd(&d.rAperp.x)));
    const __m128d f = _mm_mul_pd(
        minusInvDt, _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(&d.pivotMass.col1.x), _mm_unpacklo_pd(cdot, cdot)),
                               _mm_mul_pd(_mm_loadu_pd(&d.pivotMass.col2.x), _mm_unpackhi_pd(cdot, cdot))));
    _mm_storeu_pd(&j.pivotForce.x, _mm_add_pd(_mm_loadu_pd(&j.pivotForce.x), f));
    const __m128d P = _mm_mul_pd(dt, f);
    vA[k] = _mm_sub_pd(vA[k], _mm_mul_pd(_mm_set1_pd(A[k]->invMass), P));
    vB[k] = _mm_add_pd(vB[k], _mm_mul_pd(_mm_set1_pd(B[k]->invMass), P));
    const double PX = _mm_cvtsd_f64(P), PY = _mm_cvtsd_f64(_mm_unpackhi_pd(P, P));
    wA[k] -= iA * (d.rA.x * PY - d.rA.y * PX);
    wB[k] += iB * (d.rB.x * PY - d.rB.y * PX);
  }
#else
  double vAx[N], vAy[N], vBx[N], vBy[N];
  for (int k = 0; k < N; ++k) {
    A[k] = bs[2 * k];
    B[k] = bs[2 * k + 1];
    vAx[k] = A[k]->linearVelocity.x;
    vAy[k] = A[k]->linearVelocity.y;
    wA[k] = A[k]->angularVelocity;
    vBx[k] = B[k]->linearVelocity.x;
    vBy[k] = B[k]->linearVelocity.y;
    wB[k] = B[k]->angularVelocity;
  }
  for (int k = 0; k < N; ++k) {
    RevoluteJoint& j = *js[k];
    const JointVelocityData& d = *ds[k];
    const Vec2 rA = d.rA, rB = d.rB;
    const double mA = A[k]->invMass, mB = B[k]->invMass, iA = A[k]->invI, iB = B[k]->invI;
    const double cdotX = ((vBx[k] + (-wB[k]) * rB.y) - vAx[k]) - (-wA[k]) * rA.y;
    const double cdotY = ((vBy[k] + wB[k] * rB.x) - vAy[k]) - wA[k] * rA.x;
    const double fX = (-step.inv_dt) * (d.pivotMass.col1.x * cdotX + d.pivotMass.col2.x * cdotY);
    const double fY = (-step.inv_dt) * (d.pivotMass.col1.y * cdotX + d.pivotMass.col2.y * cdotY);
    j.pivotForce.x += fX;
    j.pivotForce.y += fY;
    const double PX = step.dt * fX;
    const double PY = step.dt * fY;
    vAx[k] -= mA * PX;
    vAy[k] -= mA * PY;
    wA[k] -= iA * (rA.x * PY - rA.y * PX);
    vBx[k] += mB * PX;
    vBy[k] += mB * PY;
    wB[k] += iB * (rB.x * PY - rB.y * PX);
  }
#endif
  for (int k = 0; k < N; ++k) {
    RevoluteJoint& j = *js[k];
    if (!(j.enableMotor && j.limitState != kEqualLimits)) continue;
    const double iA = A[k]->invI, iB = B[k]->invI;
    const double motorCdot = (wB[k] - wA[k]) - j.motorSpeed;
    double motorForce = ((-step.inv_dt) * j.motorMass) * motorCdot;
    const double oldMotorForce = j.motorForce;
    j.motorForce = b2clamp(j.motorForce + motorForce, -j.maxMotorTorque, j.maxMotorTorque);
    motorForce = j.motorForce - oldMotorForce;
    wA[k] -= (iA * step.dt) * motorForce;
    wB[k] += (iB * step.dt) * motorForce;
  }
  for (int k = 0; k < N; ++k) {
    RevoluteJoint& j = *js[k];
    if (!(j.enableLimit && j.limitState != kInactiveLimit)) continue;
    const double iA = A[k]->invI, iB = B[k]->invI;
    const double limitCdot = wB[k] - wA[k];
    double limitForce = ((-step.inv_dt) * j.motorMass) * limitCdot;
    if (j.limitState == kEqualLimits) {
      j.limitForce += limitForce;
    } else if (j.limitState == kAtLowerLimit) {
      const double oldLimitForce = j.limitForce;
      j.limitForce = b2max(j.limitForce + limitForce, 0.0);
      limitForce = j.limitForce - oldLimitForce;
    } else if (j.limitState == kAtUpperLimit) {
      const double oldLimitForce = j.limitForce;
      j.limitForce = b2min(j.limitForce + limitForce, 0.0);
      limitForce = j.limitForce - oldLimitForce;
    }
    wA[k] -= (iA * step.dt) * limitForce;
    wB[k] += (iB * step.dt) * limitForce;
  }
  for (int k = 0; k < N; ++k) {
#if defined(__SSE2__)
    _mm_storeu_pd(&A[k]->linearVelocity.x, vA[k]);
    _mm_storeu_pd(&B[k]->linearVelocity.x, vB[k]);
#else
    A[k]->linearVelocity.x = vAx[k];
    A[k]->linearVelocity.y = vAy[k];
    B[k]->linearVelocity.x = vBx[k];
    B[k]->linearVelocity.y = vBy[k];
#endif
    A[k]->angularVelocity = wA[k];
    B[k]->angularVelocity = wB[k];
  }
}

// A body's new sweep, and its transform from the sine and cosine of the new angle.
#if defined(__SSE2__)
inline void set_body_sweep(Body& b, __m128d c, double a, double s, double co) {
  store_vec2(b.sweep.c, c);
  b.sweep.a = a;
  set_transform_at(b, c, s, co);
}

// The same, reusing the stored rotation when the angle has not changed (sync_transform).
inline void sync_body(Body& b, __m128d c, double a, trig::Variant v) {
  if (same_bits(a, b.xfAngle)) {
    set_body_sweep(b, c, a, b.xf.R.col1.y, b.xf.R.col1.x);
  } else {
    const trig::SinCos r = trig::sincos(v, a);
    set_body_sweep(b, c, a, r.s, r.c);
  }
}

// lever() as (x, y): R.col1 * ox + R.col2 * oy, lane by lane.
inline __m128d lever2(const Body& b, const Vec2& anchor) {
  const __m128d o = _mm_sub_pd(load_vec2(anchor), load_vec2(b.sweep.localCenter));
  return _mm_add_pd(_mm_mul_pd(load_vec2(b.xf.R.col1), low_both(o)), _mm_mul_pd(load_vec2(b.xf.R.col2), high_both(o)));
}

template <int N>
inline bool solve_position_n(trig::Variant variant, RevoluteJoint* const* js, Body* const* bs) {
  Body* A[N];
  Body* B[N];
  __m128d cA[N], cB[N], rA[N], rB[N];
  double aA[N], aB[N];
  for (int k = 0; k < N; ++k) {
    A[k] = bs[2 * k];
    B[k] = bs[2 * k + 1];
    // The contact solver writes sweep.c field by field.
    cA[k] = load_vec2_split(A[k]->sweep.c);
    aA[k] = A[k]->sweep.a;
    cB[k] = load_vec2_split(B[k]->sweep.c);
    aB[k] = B[k]->sweep.a;
    rA[k] = lever2(*A[k], js[k]->localAnchor1);
    rB[k] = lever2(*B[k], js[k]->localAnchor2);
  }
  bool ok = true;
  for (int k = 0; k < N; ++k) {
    const double mA = A[k]->invMass, mB = B[k]->invMass, iA = A[k]->invI, iB = B[k]->invI;
    const __m128d ptpC = _mm_sub_pd(_mm_add_pd(cB[k], rB[k]), _mm_add_pd(cA[k], rA[k]));
    const __m128d sq = _mm_mul_pd(ptpC, ptpC);
    const double squaredError = low(sq) + high(sq);
    const Vec2 rAk{low(rA[k]), high(rA[k])}, rBk{low(rB[k]), high(rB[k])};
    const Mat22 K = joint_k(mA, mB, iA, iB, rAk, rBk);
    double det = K.col1.x * K.col2.y - K.col2.x * K.col1.y;
    if (det != 0.0) det = 1.0 / det;
    const double bx = -low(ptpC), by = -high(ptpC);
    const double impulseX = det * (K.col2.y * bx - K.col2.x * by);
    const double impulseY = det * (K.col1.x * by - K.col1.y * bx);
    const __m128d impulse = _mm_set_pd(impulseY, impulseX);
    cA[k] = _mm_sub_pd(cA[k], _mm_mul_pd(_mm_set1_pd(mA), impulse));
    aA[k] -= iA * (rAk.x * impulseY - rAk.y * impulseX);
    cB[k] = _mm_add_pd(cB[k], _mm_mul_pd(_mm_set1_pd(mB), impulse));
    aB[k] += iB * (rBk.x * impulseY - rBk.y * impulseX);
    ok = ok && squaredError <= kJointSquaredErrorBound;
  }
#else
inline void set_body_sweep(Body& b, double cx, double cy, double a, double s, double c) {
  b.sweep.c.x = cx;
  b.sweep.c.y = cy;
  b.sweep.a = a;
  set_transform(b, s, c);
}

inline void sync_body(Body& b, double cx, double cy, double a, trig::Variant v) {
  if (same_bits(a, b.xfAngle)) {
    set_body_sweep(b, cx, cy, a, b.xf.R.col1.y, b.xf.R.col1.x);
  } else {
    const trig::SinCos r = trig::sincos(v, a);
    set_body_sweep(b, cx, cy, a, r.s, r.c);
  }
}

template <int N>
inline bool solve_position_n(trig::Variant variant, RevoluteJoint* const* js, Body* const* bs) {
  Body* A[N];
  Body* B[N];
  double cAx[N], cAy[N], aA[N], cBx[N], cBy[N], aB[N];
  Vec2 rA[N], rB[N];
  for (int k = 0; k < N; ++k) {
    A[k] = bs[2 * k];
    B[k] = bs[2 * k + 1];
    cAx[k] = A[k]->sweep.c.x;
    cAy[k] = A[k]->sweep.c.y;
    aA[k] = A[k]->sweep.a;
    cBx[k] = B[k]->sweep.c.x;
    cBy[k] = B[k]->sweep.c.y;
    aB[k] = B[k]->sweep.a;
    rA[k] = lever(*A[k], js[k]->localAnchor1);
    rB[k] = lever(*B[k], js[k]->localAnchor2);
  }
  bool ok = true;
  for (int k = 0; k < N; ++k) {
    const double mA = A[k]->invMass, mB = B[k]->invMass, iA = A[k]->invI, iB = B[k]->invI;
    const double p1X = cAx[k] + rA[k].x;
    const double p1Y = cAy[k] + rA[k].y;
    const double p2X = cBx[k] + rB[k].x;
    const double p2Y = cBy[k] + rB[k].y;
    const double ptpCX = p2X - p1X;
    const double ptpCY = p2Y - p1Y;
    const double squaredError = ptpCX * ptpCX + ptpCY * ptpCY;
    const Mat22 K = joint_k(mA, mB, iA, iB, rA[k], rB[k]);
    double det = K.col1.x * K.col2.y - K.col2.x * K.col1.y;
    if (det != 0.0) det = 1.0 / det;
    const double bx = -ptpCX, by = -ptpCY;
    const double impulseX = det * (K.col2.y * bx - K.col2.x * by);
    const double impulseY = det * (K.col1.x * by - K.col1.y * bx);
    cAx[k] -= mA * impulseX;
    cAy[k] -= mA * impulseY;
    aA[k] -= iA * (rA[k].x * impulseY - rA[k].y * impulseX);
    cBx[k] += mB * impulseX;
    cBy[k] += mB * impulseY;
    aB[k] += iB * (rB[k].x * impulseY - rB[k].y * impulseX);
    ok = ok && squaredError <= kJointSquaredErrorBound;
  }
#endif
  // The original synchronizes both bodies after the point correction and again after the
  // limit correction; the limit correction reads only sweep angles, so the first
  // synchronization is overwritten unread and is skipped (same bits, fewer sin/cos).
  for (int k = 0; k < N; ++k) {
    RevoluteJoint& j = *js[k];
    if (!(j.enableLimit && j.limitState != kInactiveLimit)) continue;
    const double iA = A[k]->invI, iB = B[k]->invI;
    const double angle = (aB[k] - aA[k]) - j.referenceAngle;
    double limitImpulse = 0.0;
    double angularError = 0.0;
    if (j.limitState == kEqualLimits) {
      const double limitC = b2clamp(angle, -settings::kMaxAngularCorrection, settings::kMaxAngularCorrection);
      limitImpulse = (-j.motorMass) * limitC;
      angularError = b2abs(limitC);
    } else if (j.limitState == kAtLowerLimit) {
      double limitC = angle - j.lowerAngle;
      angularError = b2max(0.0, -limitC);
      limitC = b2clamp(limitC + settings::kAngularSlop, -settings::kMaxAngularCorrection, 0.0);
      limitImpulse = (-j.motorMass) * limitC;
      const double oldLimitImpulse = j.limitPositionImpulse;
      j.limitPositionImpulse = b2max(j.limitPositionImpulse + limitImpulse, 0.0);
      limitImpulse = j.limitPositionImpulse - oldLimitImpulse;
    } else if (j.limitState == kAtUpperLimit) {
      double limitC = angle - j.upperAngle;
      angularError = b2max(0.0, limitC);
      limitC = b2clamp(limitC - settings::kAngularSlop, 0.0, settings::kMaxAngularCorrection);
      limitImpulse = (-j.motorMass) * limitC;
      const double oldLimitImpulse = j.limitPositionImpulse;
      j.limitPositionImpulse = b2min(j.limitPositionImpulse + limitImpulse, 0.0);
      limitImpulse = j.limitPositionImpulse - oldLimitImpulse;
    }
    aA[k] -= iA * limitImpulse;
    aB[k] += iB * limitImpulse;
    ok = ok && angularError <= settings::kAngularSlop;
  }
  // Two joints' four bodies take their sine and cosine together (in SIMD lanes where the CPU
  // has them; sin and cos are pure, so a rotation whose angle did not change is computed
  // again to the same bits); a joint left over syncs its bodies on its own.
  int k = 0;
#if defined(__SSE2__)
  for (; k + 2 <= N; k += 2) {
    const trig::SinCos4 r = trig::sincos4(variant, aA[k], aB[k], aA[k + 1], aB[k + 1]);
    set_body_sweep(*A[k], cA[k], aA[k], r.s[0], r.c[0]);
    set_body_sweep(*B[k], cB[k], aB[k], r.s[1], r.c[1]);
    set_body_sweep(*A[k + 1], cA[k + 1], aA[k + 1], r.s[2], r.c[2]);
    set_body_sweep(*B[k + 1], cB[k + 1], aB[k + 1], r.s[3], r.c[3]);
  }
  for (; k < N; ++k) {
    sync_body(*A[k], cA[k], aA[k], variant);
    sync_body(*B[k], cB[k], aB[k], variant);
  }
#else
  for (; k + 2 <= N; k += 2) {
    const trig::SinCos4 r = trig::sincos4(variant, aA[k], aB[k], aA[k + 1], aB[k + 1]);
    set_body_sweep(*A[k], cAx[k], cAy[k], aA[k], r.s[0], r.c[0]);
    set_body_sweep(*B[k], cBx[k], cBy[k], aB[k], r.s[1], r.c[1]);
    set_body_sweep(*A[k + 1], cAx[k + 1], cAy[k + 1], aA[k + 1], r.s[2], r.c[2]);
    set_body_sweep(*B[k + 1], cBx[k + 1], cBy[k + 1], aB[k + 1], r.s[3], r.c[3]);
  }
  for (; k < N; ++k) {
    sync_body(*A[k], cAx[k], cAy[k], aA[k], variant);
    sync_body(*B[k], cBx[k], cBy[k], aB[k], variant);
  }
#endif
  return ok;
}

}  // namespace

void joint_solve_velocity(World& w, RevoluteJoint& j, const JointVelocityData& d, const TimeStep& step) {
  RevoluteJoint* const js[1] = {&j};
  Body* const bs[2] = {&w.bodies[j.bodyA], &w.bodies[j.bodyB]};
  const JointVelocityData* const ds[1] = {&d};
  solve_velocity_n<1>(js, bs, ds, step);
}

bool joint_solve_position(World& w, RevoluteJoint& j) {
  RevoluteJoint* const js[1] = {&j};
  Body* const bs[2] = {&w.bodies[j.bodyA], &w.bodies[j.bodyB]};
  return solve_position_n<1>(w.trigVariant, js, bs);
}

// A wave of n joints goes up to three side by side (the runner's widest wave has three).
void joints_solve_velocity(const StepScratch& s, const TimeStep& step) {
  for (int32_t v = 0; v < s.waveCount; ++v) {
    RevoluteJoint* const* js = s.waveJoints + s.waveStart[v];
    Body* const* bs = s.waveBodies + 2 * s.waveStart[v];
    const JointVelocityData* const* ds = s.waveData + s.waveStart[v];
    int32_t n = s.waveStart[v + 1] - s.waveStart[v];
    for (; n >= 3; js += 3, bs += 6, ds += 3, n -= 3) solve_velocity_n<3>(js, bs, ds, step);
    if (n == 2) solve_velocity_n<2>(js, bs, ds, step);
    if (n == 1) solve_velocity_n<1>(js, bs, ds, step);
  }
}

bool joints_solve_position(World& w, const StepScratch& s) {
  bool ok = true;
  for (int32_t v = 0; v < s.waveCount; ++v) {
    RevoluteJoint* const* js = s.waveJoints + s.waveStart[v];
    Body* const* bs = s.waveBodies + 2 * s.waveStart[v];
    int32_t n = s.waveStart[v + 1] - s.waveStart[v];
    for (; n >= 3; js += 3, bs += 6, n -= 3) ok = solve_position_n<3>(w.trigVariant, js, bs) && ok;
    if (n == 2) ok = solve_position_n<2>(w.trigVariant, js, bs) && ok;
    if (n == 1) ok = solve_position_n<1>(w.trigVariant, js, bs) && ok;
  }
  return ok;
}

}  // namespace qwop
