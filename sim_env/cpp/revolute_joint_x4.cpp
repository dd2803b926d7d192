// The revolute joint's velocity and position solves (revolute_joint.cpp) for four worlds at
// once, one world per lane of an AVX2 register (lockstep.h). Each lane computes exactly
// what the scalar solve computes for its world: the same operations in the same order, the
// limit states' branches taken per lane by masks, sin/cos by trig_x4.h. The worlds' bodies
// and joints are read and written in place (gathered per lane); the lock step has checked
// that the four share the per-joint constants read from the first world (masses, anchors,
// reference angle, which of motor and limit are enabled).
#include "lockstep.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include "engine_util.h"
#include "trig_x4.h"

namespace qwop {

using trig::x4::V;
using namespace trig::x4;

namespace {

// One field of the four worlds, and back (only the lanes set in `mask`).
QWOP_X4_INLINE V ld(const double* p0, const double* p1, const double* p2, const double* p3) {
  return _mm256_set_pd(*p3, *p2, *p1, *p0);
}
QWOP_X4_INLINE void st(V v, double* p0, double* p1, double* p2, double* p3, int mask) {
  if (mask == 15) {
    const __m128d lo = _mm256_castpd256_pd128(v), hi = _mm256_extractf128_pd(v, 1);
    _mm_storel_pd(p0, lo);
    _mm_storeh_pd(p1, lo);
    _mm_storel_pd(p2, hi);
    _mm_storeh_pd(p3, hi);
    return;
  }
  alignas(32) double t[4];
  _mm256_store_pd(t, v);
  if (mask & 1) *p0 = t[0];
  if (mask & 2) *p1 = t[1];
  if (mask & 4) *p2 = t[2];
  if (mask & 8) *p3 = t[3];
}
#define GATHER(field) ld(&(W[0]->field), &(W[1]->field), &(W[2]->field), &(W[3]->field))
#define SCATTER(v, field, mask) st(v, &(W[0]->field), &(W[1]->field), &(W[2]->field), &(W[3]->field), mask)

QWOP_X4_INLINE V add(V a, V b) { return _mm256_add_pd(a, b); }
QWOP_X4_INLINE V sub(V a, V b) { return _mm256_sub_pd(a, b); }
QWOP_X4_INLINE V mul(V a, V b) { return _mm256_mul_pd(a, b); }
QWOP_X4_INLINE V gt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
// engine_util.h's b2max(a, b) = a > b ? a : b, b2min(a, b) = b > a ? a : b and
// b2clamp(a, lo, hi) = lo > a ? lo : (a > hi ? hi : a), lane by lane (NaN and -0 alike).
QWOP_X4_INLINE V vmax(V a, V b) { return select(gt(a, b), a, b); }
QWOP_X4_INLINE V vmin(V a, V b) { return select(gt(b, a), a, b); }
QWOP_X4_INLINE V vclamp(V a, V lo, V hi) { return select(gt(lo, a), lo, select(gt(a, hi), hi, a)); }

// The lanes whose joint j is at its lower limit, at its upper limit, or has equal limits.
struct LimitLanes {
  V lower, upper, equal;
};
QWOP_X4_INLINE LimitLanes limit_lanes(World* const* W, int j) {
  const __m256i s = _mm256_set_epi64x(W[3]->joints[j].limitState, W[2]->joints[j].limitState,
                                      W[1]->joints[j].limitState, W[0]->joints[j].limitState);
  return {_mm256_castsi256_pd(_mm256_cmpeq_epi64(s, _mm256_set1_epi64x(kAtLowerLimit))),
          _mm256_castsi256_pd(_mm256_cmpeq_epi64(s, _mm256_set1_epi64x(kAtUpperLimit))),
          _mm256_castsi256_pd(_mm256_cmpeq_epi64(s, _mm256_set1_epi64x(kEqualLimits)))};
}

// revolute_joint.cpp's joint_k, lane by lane: K = K1 + K2 + K3 (col1.y and col2.x are the
// same sum: 0 + -iA rA.x rA.y + -iB rB.x rB.y).
struct Mat22x4 {
  V c1x, c1y, c2x, c2y;
};
QWOP_X4_INLINE Mat22x4 joint_k(V mA, V mB, V iA, V iB, V rAx, V rAy, V rBx, V rBy) {
  const V mAB = add(mA, mB), zero = _mm256_setzero_pd();
  const V k2_11 = mul(mul(iA, rAy), rAy), k2_21 = mul(mul(vneg(iA), rAx), rAy), k2_22 = mul(mul(iA, rAx), rAx);
  const V k3_11 = mul(mul(iB, rBy), rBy), k3_21 = mul(mul(vneg(iB), rBx), rBy), k3_22 = mul(mul(iB, rBx), rBx);
  const V off = add(add(zero, k2_21), k3_21);
  return {add(add(mAB, k2_11), k3_11), off, off, add(add(mAB, k2_22), k3_22)};
}

// The body's rotation times (anchor - local centre), the lever arm (revolute_joint.cpp's lever).
QWOP_X4_INLINE void lever(World* const* W, int body, const Vec2& anchor, V* rx, V* ry) {
  const Vec2& lc = W[0]->bodies[body].sweep.localCenter;
  const V ox = splat(anchor.x - lc.x), oy = splat(anchor.y - lc.y);
  *rx = add(mul(GATHER(bodies[body].xf.R.col1.x), ox), mul(GATHER(bodies[body].xf.R.col2.x), oy));
  *ry = add(mul(GATHER(bodies[body].xf.R.col1.y), ox), mul(GATHER(bodies[body].xf.R.col2.y), oy));
}

// What every solve of joint j starts from: its bodies, their masses (shared by the lanes)
// and the lever arms from the bodies' current rotations.
struct JointLanes {
  int a, b;
  V mA, mB, iA, iB, rAx, rAy, rBx, rBy;
};
QWOP_X4_INLINE JointLanes joint_lanes(World* const* W, int j) {
  const RevoluteJoint& J0 = W[0]->joints[j];
  const Body& A0 = W[0]->bodies[J0.bodyA];
  const Body& B0 = W[0]->bodies[J0.bodyB];
  JointLanes L{J0.bodyA, J0.bodyB, splat(A0.invMass), splat(B0.invMass), splat(A0.invI), splat(B0.invI), {}, {}, {}, {}};
  lever(W, L.a, J0.localAnchor1, &L.rAx, &L.rAy);
  lever(W, L.b, J0.localAnchor2, &L.rBx, &L.rBy);
  return L;
}

}  // namespace

// joint_init_velocity for joint j of the four worlds: the arithmetic in lanes, the limit
// state's bookkeeping world by world (it only sets flags and zeroes forces).
static QWOP_X4_TARGET void init_x4(World* const* W, int j, const TimeStep& step) {
  const JointLanes L = joint_lanes(W, j);
  const int a = L.a, b = L.b;
  const V mA = L.mA, mB = L.mB, iA = L.iA, iB = L.iB, rAx = L.rAx, rAy = L.rAy, rBx = L.rBx, rBy = L.rBy;
  SCATTER(rAx, joints[j].rA.x, 15);
  SCATTER(rAy, joints[j].rA.y, 15);
  SCATTER(rBx, joints[j].rB.x, 15);
  SCATTER(rBy, joints[j].rB.y, 15);
  const Mat22x4 K = joint_k(mA, mB, iA, iB, rAx, rAy, rBx, rBy);
  const V zero = _mm256_setzero_pd();
  V det = sub(mul(K.c1x, K.c2y), mul(K.c2x, K.c1y));
  det = select(_mm256_cmp_pd(det, zero, _CMP_NEQ_UQ), _mm256_div_pd(splat(1.0), det), det);
  SCATTER(mul(det, K.c2y), joints[j].pivotMass.col1.x, 15);
  SCATTER(mul(vneg(det), K.c2x), joints[j].pivotMass.col2.x, 15);
  SCATTER(mul(vneg(det), K.c1y), joints[j].pivotMass.col1.y, 15);
  SCATTER(mul(det, K.c1x), joints[j].pivotMass.col2.y, 15);
  const double motorMass = 1.0 / (W[0]->bodies[a].invI + W[0]->bodies[b].invI);
  for (int g = 0; g < kLanes; ++g) {
    RevoluteJoint& J = W[g]->joints[j];
    J.motorMass = motorMass;
    joint_init_limits(J, W[g]->bodies[a].sweep.a, W[g]->bodies[b].sweep.a);
    if (!step.warmStarting) {
      J.pivotForce = {0.0, 0.0};
      J.motorForce = 0.0;
      J.limitForce = 0.0;
    }
    J.limitPositionImpulse = 0.0;
  }
  if (step.warmStarting) {
    const V dt = splat(step.dt);
    const V Fx = GATHER(joints[j].pivotForce.x), Fy = GATHER(joints[j].pivotForce.y);
    const V motor = GATHER(joints[j].motorForce), limit = GATHER(joints[j].limitForce);
    const V dmA = mul(dt, mA), dmB = mul(dt, mB), diA = mul(dt, iA), diB = mul(dt, iB);
    SCATTER(sub(GATHER(bodies[a].linearVelocity.x), mul(dmA, Fx)), bodies[a].linearVelocity.x, 15);
    SCATTER(sub(GATHER(bodies[a].linearVelocity.y), mul(dmA, Fy)), bodies[a].linearVelocity.y, 15);
    SCATTER(sub(GATHER(bodies[a].angularVelocity), mul(diA, add(add(sub(mul(rAx, Fy), mul(rAy, Fx)), motor), limit))),
            bodies[a].angularVelocity, 15);
    SCATTER(add(GATHER(bodies[b].linearVelocity.x), mul(dmB, Fx)), bodies[b].linearVelocity.x, 15);
    SCATTER(add(GATHER(bodies[b].linearVelocity.y), mul(dmB, Fy)), bodies[b].linearVelocity.y, 15);
    SCATTER(add(GATHER(bodies[b].angularVelocity), mul(diB, add(add(sub(mul(rBx, Fy), mul(rBy, Fx)), motor), limit))),
            bodies[b].angularVelocity, 15);
  }
}

static QWOP_X4_TARGET void velocity_x4(World* const* W, int j, const TimeStep& step) {
  const int a = W[0]->joints[j].bodyA, b = W[0]->joints[j].bodyB;
  const RevoluteJoint& J0 = W[0]->joints[j];
  const V mA = splat(W[0]->bodies[a].invMass), mB = splat(W[0]->bodies[b].invMass);
  const V iA = splat(W[0]->bodies[a].invI), iB = splat(W[0]->bodies[b].invI);
  const V rAx = GATHER(joints[j].rA.x), rAy = GATHER(joints[j].rA.y), rBx = GATHER(joints[j].rB.x), rBy = GATHER(joints[j].rB.y);
  V vAx = GATHER(bodies[a].linearVelocity.x), vAy = GATHER(bodies[a].linearVelocity.y), wA = GATHER(bodies[a].angularVelocity);
  V vBx = GATHER(bodies[b].linearVelocity.x), vBy = GATHER(bodies[b].linearVelocity.y), wB = GATHER(bodies[b].angularVelocity);
  const V ninv = splat(-step.inv_dt), dt = splat(step.dt);
  const V cdotX = sub(sub(add(vBx, mul(vneg(wB), rBy)), vAx), mul(vneg(wA), rAy));
  const V cdotY = sub(sub(add(vBy, mul(wB, rBx)), vAy), mul(wA, rAx));
  const V fX = mul(ninv, add(mul(GATHER(joints[j].pivotMass.col1.x), cdotX), mul(GATHER(joints[j].pivotMass.col2.x), cdotY)));
  const V fY = mul(ninv, add(mul(GATHER(joints[j].pivotMass.col1.y), cdotX), mul(GATHER(joints[j].pivotMass.col2.y), cdotY)));
  SCATTER(add(GATHER(joints[j].pivotForce.x), fX), joints[j].pivotForce.x, 15);
  SCATTER(add(GATHER(joints[j].pivotForce.y), fY), joints[j].pivotForce.y, 15);
  const V PX = mul(dt, fX), PY = mul(dt, fY);
  vAx = sub(vAx, mul(mA, PX)); vAy = sub(vAy, mul(mA, PY));
  wA = sub(wA, mul(iA, sub(mul(rAx, PY), mul(rAy, PX))));
  vBx = add(vBx, mul(mB, PX)); vBy = add(vBy, mul(mB, PY));
  wB = add(wB, mul(iB, sub(mul(rBx, PY), mul(rBy, PX))));
  const LimitLanes limit = limit_lanes(W, j);
  const V eq = limit.equal;
  const V motorMass = splat(J0.motorMass);
  if (J0.enableMotor) {
    const V on = _mm256_xor_pd(eq, _mm256_castsi256_pd(_mm256_set1_epi64x(-1)));
    const V motorCdot = sub(sub(wB, wA), GATHER(joints[j].motorSpeed));
    V mf = mul(mul(ninv, motorMass), motorCdot);
    const V old = GATHER(joints[j].motorForce);
    const V maxT = GATHER(joints[j].maxMotorTorque);
    const V nf = vclamp(add(old, mf), vneg(maxT), maxT);
    mf = sub(nf, old);
    SCATTER(nf, joints[j].motorForce, _mm256_movemask_pd(on));
    wA = select(on, sub(wA, mul(mul(iA, dt), mf)), wA);
    wB = select(on, add(wB, mul(mul(iB, dt), mf)), wB);
  }
  if (J0.enableLimit) {
    const V lo = limit.lower, up = limit.upper;
    const V on = _mm256_or_pd(eq, _mm256_or_pd(lo, up));
    const int onm = _mm256_movemask_pd(on);
    if (onm) {
      const V limitCdot = sub(wB, wA);
      V lf = mul(mul(ninv, motorMass), limitCdot);
      const V old = GATHER(joints[j].limitForce);
      const V sum = add(old, lf);
      const V nf = select(eq, sum, select(lo, vmax(sum, _mm256_setzero_pd()), vmin(sum, _mm256_setzero_pd())));
      lf = select(eq, lf, sub(nf, old));
      SCATTER(nf, joints[j].limitForce, onm);
      wA = select(on, sub(wA, mul(mul(iA, dt), lf)), wA);
      wB = select(on, add(wB, mul(mul(iB, dt), lf)), wB);
    }
  }
  SCATTER(vAx, bodies[a].linearVelocity.x, 15); SCATTER(vAy, bodies[a].linearVelocity.y, 15); SCATTER(wA, bodies[a].angularVelocity, 15);
  SCATTER(vBx, bodies[b].linearVelocity.x, 15); SCATTER(vBy, bodies[b].linearVelocity.y, 15); SCATTER(wB, bodies[b].angularVelocity, 15);
}

// Returns the lanes whose joint is within tolerance (bit mask); only lanes in `active` change.
template <bool F>
static QWOP_X4_TARGET int position_x4(World* const* W, int j, int active) {
  const JointLanes L = joint_lanes(W, j);
  const int a = L.a, b = L.b;
  const V mA = L.mA, mB = L.mB, iA = L.iA, iB = L.iB, rAx = L.rAx, rAy = L.rAy, rBx = L.rBx, rBy = L.rBy;
  const RevoluteJoint& J0 = W[0]->joints[j];
  const Body& A0 = W[0]->bodies[a];
  const Body& B0 = W[0]->bodies[b];
  V cAx = GATHER(bodies[a].sweep.c.x), cAy = GATHER(bodies[a].sweep.c.y), aA = GATHER(bodies[a].sweep.a);
  V cBx = GATHER(bodies[b].sweep.c.x), cBy = GATHER(bodies[b].sweep.c.y), aB = GATHER(bodies[b].sweep.a);
  const V ptpCX = sub(add(cBx, rBx), add(cAx, rAx));
  const V ptpCY = sub(add(cBy, rBy), add(cAy, rAy));
  const V squaredError = add(mul(ptpCX, ptpCX), mul(ptpCY, ptpCY));
  const Mat22x4 K = joint_k(mA, mB, iA, iB, rAx, rAy, rBx, rBy);
  const V K11 = K.c1x, K21 = K.c1y, K12 = K.c2x, K22 = K.c2y;
  const V zero = _mm256_setzero_pd();
  V det = sub(mul(K11, K22), mul(K12, K21));
  det = select(_mm256_cmp_pd(det, zero, _CMP_NEQ_UQ), _mm256_div_pd(splat(1.0), det), det);
  const V bx = vneg(ptpCX), by = vneg(ptpCY);
  const V impX = mul(det, sub(mul(K22, bx), mul(K12, by)));
  const V impY = mul(det, sub(mul(K11, by), mul(K21, bx)));
  cAx = sub(cAx, mul(mA, impX)); cAy = sub(cAy, mul(mA, impY));
  aA = sub(aA, mul(iA, sub(mul(rAx, impY), mul(rAy, impX))));
  cBx = add(cBx, mul(mB, impX)); cBy = add(cBy, mul(mB, impY));
  aB = add(aB, mul(iB, sub(mul(rBx, impY), mul(rBy, impX))));
  V angularError = zero;
  if (J0.enableLimit) {
    const LimitLanes limit = limit_lanes(W, j);
    const V eq = limit.equal, lo = limit.lower, up = limit.upper;
    const V on = _mm256_or_pd(eq, _mm256_or_pd(lo, up));
    const int onm = _mm256_movemask_pd(on) & active;
    if (onm) {
      const V angle = sub(sub(aB, aA), splat(J0.referenceAngle));
      const V maxC = splat(settings::kMaxAngularCorrection), slop = splat(settings::kAngularSlop);
      const V nmm = vneg(splat(J0.motorMass));
      // equal limits
      const V cE = vclamp(angle, vneg(maxC), maxC);
      const V impE = mul(nmm, cE);
      const V errE = select(gt(cE, zero), cE, vneg(cE));
      // lower
      const V cL0 = sub(angle, GATHER(joints[j].lowerAngle));
      const V errL = vmax(zero, vneg(cL0));
      const V cL = vclamp(add(cL0, slop), vneg(maxC), zero);
      // upper
      const V cU0 = sub(angle, GATHER(joints[j].upperAngle));
      const V errU = vmax(zero, cU0);
      const V cU = vclamp(sub(cU0, slop), zero, maxC);
      const V oldP = GATHER(joints[j].limitPositionImpulse);
      const V newL = vmax(add(oldP, mul(nmm, cL)), zero);
      const V newU = vmin(add(oldP, mul(nmm, cU)), zero);
      const V newP = select(lo, newL, newU);
      SCATTER(newP, joints[j].limitPositionImpulse, _mm256_movemask_pd(_mm256_or_pd(lo, up)) & active);
      const V imp = select(eq, impE, sub(newP, oldP));
      angularError = select(on, select(eq, errE, select(lo, errL, errU)), zero);
      aA = select(on, sub(aA, mul(iA, imp)), aA);
      aB = select(on, add(aB, mul(iB, imp)), aB);
    }
  }
  V sa, ca, sb, cb;
  trig::x4::sincos<F>(aA, &sa, &ca);
  trig::x4::sincos<F>(aB, &sb, &cb);
  const V lAx = splat(A0.sweep.localCenter.x), lAy = splat(A0.sweep.localCenter.y);
  const V lBx = splat(B0.sweep.localCenter.x), lBy = splat(B0.sweep.localCenter.y);
  const V nsa = vneg(sa), nsb = vneg(sb);
  SCATTER(cAx, bodies[a].sweep.c.x, active); SCATTER(cAy, bodies[a].sweep.c.y, active); SCATTER(aA, bodies[a].sweep.a, active);
  SCATTER(cBx, bodies[b].sweep.c.x, active); SCATTER(cBy, bodies[b].sweep.c.y, active); SCATTER(aB, bodies[b].sweep.a, active);
  SCATTER(ca, bodies[a].xf.R.col1.x, active); SCATTER(sa, bodies[a].xf.R.col1.y, active);
  SCATTER(nsa, bodies[a].xf.R.col2.x, active); SCATTER(ca, bodies[a].xf.R.col2.y, active);
  SCATTER(cb, bodies[b].xf.R.col1.x, active); SCATTER(sb, bodies[b].xf.R.col1.y, active);
  SCATTER(nsb, bodies[b].xf.R.col2.x, active); SCATTER(cb, bodies[b].xf.R.col2.y, active);
  SCATTER(aA, bodies[a].xfAngle, active); SCATTER(aB, bodies[b].xfAngle, active);
  SCATTER(sub(cAx, add(mul(ca, lAx), mul(nsa, lAy))), bodies[a].xf.position.x, active);
  SCATTER(sub(cAy, add(mul(sa, lAx), mul(ca, lAy))), bodies[a].xf.position.y, active);
  SCATTER(sub(cBx, add(mul(cb, lBx), mul(nsb, lBy))), bodies[b].xf.position.x, active);
  SCATTER(sub(cBy, add(mul(sb, lBx), mul(cb, lBy))), bodies[b].xf.position.y, active);
  const V ok = _mm256_and_pd(le(squaredError, splat(kJointSquaredErrorBound)), le(angularError, splat(settings::kAngularSlop)));
  return _mm256_movemask_pd(ok);
}

void joint_init_velocity_x4(World* const w[kLanes], int32_t j, const TimeStep& step) { init_x4(w, j, step); }

void joint_solve_velocity_x4(World* const w[kLanes], int32_t j, const TimeStep& step) { velocity_x4(w, j, step); }

int joint_solve_position_x4(World* const w[kLanes], int32_t j, int active) {
  return w[0]->trigVariant == trig::kFma ? position_x4<true>(w, j, active) : position_x4<false>(w, j, active);
}

}  // namespace qwop
#endif
