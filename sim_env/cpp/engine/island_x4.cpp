// The revolute joints of four islands solved together, one world per lane of an AVX2
// register (lockstep.h): the velocity set-up, the velocity iterations and the position
// iterations of World::solve_island, with each world's contacts solved world by world
// between the joint sweeps as the scalar island does. Each lane computes exactly what the
// scalar solve (revolute_joint.cpp) computes for its world: the same operations in the same
// order, the limit states' branches taken per lane by masks, sin/cos by trig_x4.h.
//
// While the joints are solved, the bodies and joints they touch live in packed lanes
// (IslandX4: a field of the four worlds in one aligned row), loaded once per phase and
// written back when the phase ends; a world's contact solve in between gets its contact
// bodies written back before and reads them again after. This replaces a gather and a
// scatter per field per joint solve: the lanes' data movement is a phase's, not a joint's.
// The lock step has checked that the four worlds share the per-joint constants read from
// the first world (masses, anchors, reference angle, which of motor and limit are enabled).
#include "lockstep.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <initializer_list>

#include "contact_solver.h"
#include "engine_util.h"
#include "trig_x4.h"

namespace qwop {

using trig::x4::V;
using namespace trig::x4;

namespace {

// One field of the four worlds, lane g holding world g's.
struct Row {
  alignas(32) double v[kLanes];
};
QWOP_X4_INLINE V load(const Row& r) { return _mm256_load_pd(r.v); }
QWOP_X4_INLINE void store(Row& r, V x) { _mm256_store_pd(r.v, x); }
// Only the lanes set in `mask` (a lane mask as a comparison gives it) take x.
QWOP_X4_INLINE void store(Row& r, V x, V mask) { _mm256_store_pd(r.v, select(mask, x, load(r))); }
QWOP_X4_INLINE V lane_mask(int bits) {
  return _mm256_castsi256_pd(_mm256_cmpgt_epi64(
      _mm256_and_si256(_mm256_set1_epi64x(bits), _mm256_set_epi64x(8, 4, 2, 1)), _mm256_setzero_si256()));
}

QWOP_X4_INLINE V add(V a, V b) { return _mm256_add_pd(a, b); }
QWOP_X4_INLINE V sub(V a, V b) { return _mm256_sub_pd(a, b); }
QWOP_X4_INLINE V mul(V a, V b) { return _mm256_mul_pd(a, b); }
QWOP_X4_INLINE V gt(V a, V b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
// engine_util.h's b2max(a, b) = a > b ? a : b, b2min(a, b) = b > a ? a : b and
// b2clamp(a, lo, hi) = lo > a ? lo : (a > hi ? hi : a), lane by lane (NaN and -0 alike).
QWOP_X4_INLINE V vmax(V a, V b) { return select(gt(a, b), a, b); }
QWOP_X4_INLINE V vmin(V a, V b) { return select(gt(b, a), a, b); }
QWOP_X4_INLINE V vclamp(V a, V lo, V hi) { return select(gt(lo, a), lo, select(gt(a, hi), hi, a)); }

// A body's state that the joints read and write. The rotation is kept as its sine and
// cosine (xf.R = [c -s; s c], as Mat22::set_angle builds it; negation is exact).
struct BodyX4 {
  Row cx, cy, a, s, c;  // sweep.c, sweep.a, xf.R
  Row vx, vy, w;        // linearVelocity, angularVelocity
};

// A joint's state, and what every solve of it starts from.
struct JointX4 {
  int a, b;                       // its bodies
  double mA, mB, iA, iB;          // their inverse masses and inertias (the same in every world)
  double oAx, oAy, oBx, oBy;      // anchor minus local centre, per body: what the lever arms rotate
  Row rAx, rAy, rBx, rBy;         // lever arms from the velocity set-up
  Row m11, m21, m12, m22;         // pivotMass col1.x, col1.y, col2.x, col2.y
  Row Fx, Fy, motorF, limitF, limitP;  // pivotForce, motorForce, limitForce, limitPositionImpulse
  Row lower, upper, motorSpeed, maxTorque;
  V atLower, atUpper, equal;      // limit state masks (fixed within a step)
};

struct IslandX4 {
  BodyX4 body[kMaxBodies];
  JointX4 joint[kMaxJoints];
  int bodies[kMaxBodies];    // the bodies some joint touches
  int bodyCount;
  uint32_t contactBodies[kLanes];  // per world: bit k when body k is packed and in a contact constraint
  int dirty[kMaxBodies];     // position phase: lanes whose packed pose is newer than the world's
};

// ---- moving state between the worlds and the lanes ----

QWOP_X4_INLINE void load_velocity(IslandX4& x, World* const* W, int k, int g) {
  const Body& B = W[g]->bodies[k];
  x.body[k].vx.v[g] = B.linearVelocity.x;
  x.body[k].vy.v[g] = B.linearVelocity.y;
  x.body[k].w.v[g] = B.angularVelocity;
}
QWOP_X4_INLINE void write_velocity(const IslandX4& x, World* const* W, int k, int g) {
  Body& B = W[g]->bodies[k];
  B.linearVelocity.x = x.body[k].vx.v[g];
  B.linearVelocity.y = x.body[k].vy.v[g];
  B.angularVelocity = x.body[k].w.v[g];
}
QWOP_X4_INLINE void load_pose(IslandX4& x, World* const* W, int k, int g) {
  const Body& B = W[g]->bodies[k];
  BodyX4& p = x.body[k];
  p.cx.v[g] = B.sweep.c.x;
  p.cy.v[g] = B.sweep.c.y;
  p.a.v[g] = B.sweep.a;
  p.s.v[g] = B.xf.R.col1.y;
  p.c.v[g] = B.xf.R.col1.x;
}
// As sync_transform after the joint's update of sweep.c and sweep.a (engine_util.h).
QWOP_X4_INLINE void write_pose(const IslandX4& x, World* const* W, int k, int g) {
  Body& B = W[g]->bodies[k];
  const BodyX4& p = x.body[k];
  const double c = p.c.v[g], s = p.s.v[g];
  set_body_sweep(B, xy(p.cx.v[g], p.cy.v[g]), p.a.v[g], s, c);
}

QWOP_X4_INLINE V limit_mask(World* const* W, int j, LimitState state) {
  const __m256i s = _mm256_set_epi64x(W[3]->joints[j].limitState, W[2]->joints[j].limitState,
                                      W[1]->joints[j].limitState, W[0]->joints[j].limitState);
  return _mm256_castsi256_pd(_mm256_cmpeq_epi64(s, _mm256_set1_epi64x(state)));
}

#define ROW_IN(row, field)                                                     \
  do {                                                                         \
    for (int g_ = 0; g_ < kLanes; ++g_) (row).v[g_] = W[g_]->field;            \
  } while (0)
#define ROW_OUT(row, field)                                                    \
  do {                                                                         \
    for (int g_ = 0; g_ < kLanes; ++g_) W[g_]->field = (row).v[g_];            \
  } while (0)

// ---- the joint's arithmetic (revolute_joint.cpp), lane by lane ----

// joint_k: K = K1 + K2 + K3 (col1.y and col2.x are the same sum: 0 + -iA rA.x rA.y + -iB rB.x rB.y).
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

// lever: R * (anchor - local centre), R = [c -s; s c].
QWOP_X4_INLINE void lever(const BodyX4& p, double ox_, double oy_, V* rx, V* ry) {
  const V ox = splat(ox_), oy = splat(oy_), s = load(p.s), c = load(p.c);
  *rx = add(mul(c, ox), mul(vneg(s), oy));
  *ry = add(mul(s, ox), mul(c, oy));
}

QWOP_X4_INLINE V inverse_det(const Mat22x4& K) {
  const V det = sub(mul(K.c1x, K.c2y), mul(K.c2x, K.c1y));
  return select(_mm256_cmp_pd(det, _mm256_setzero_pd(), _CMP_NEQ_UQ), _mm256_div_pd(splat(1.0), det), det);
}

// joint_init_velocity for joint j of the four worlds: the arithmetic in lanes, the limit
// state's bookkeeping world by world (it only sets flags and zeroes forces).
QWOP_X4_INLINE void init_joint(IslandX4& x, World* const* W, int j, const TimeStep& step) {
  JointX4& J = x.joint[j];
  const V mA = splat(J.mA), mB = splat(J.mB), iA = splat(J.iA), iB = splat(J.iB);
  V rAx, rAy, rBx, rBy;
  lever(x.body[J.a], J.oAx, J.oAy, &rAx, &rAy);
  lever(x.body[J.b], J.oBx, J.oBy, &rBx, &rBy);
  store(J.rAx, rAx), store(J.rAy, rAy), store(J.rBx, rBx), store(J.rBy, rBy);
  const Mat22x4 K = joint_k(mA, mB, iA, iB, rAx, rAy, rBx, rBy);
  const V det = inverse_det(K);
  store(J.m11, mul(det, K.c2y));
  store(J.m12, mul(vneg(det), K.c2x));
  store(J.m21, mul(vneg(det), K.c1y));
  store(J.m22, mul(det, K.c1x));
  const double motorMass = 1.0 / (J.iA + J.iB);
  for (int g = 0; g < kLanes; ++g) {
    RevoluteJoint& Jg = W[g]->joints[j];
    Jg.motorMass = motorMass;
    joint_init_limits(Jg, W[g]->bodies[J.a].sweep.a, W[g]->bodies[J.b].sweep.a);
    if (!step.warmStarting) {
      Jg.pivotForce = {0.0, 0.0};
      Jg.motorForce = 0.0;
      Jg.limitForce = 0.0;
    }
    Jg.limitPositionImpulse = 0.0;
  }
  ROW_IN(J.Fx, joints[j].pivotForce.x); ROW_IN(J.Fy, joints[j].pivotForce.y);
  ROW_IN(J.motorF, joints[j].motorForce); ROW_IN(J.limitF, joints[j].limitForce);
  ROW_IN(J.lower, joints[j].lowerAngle); ROW_IN(J.upper, joints[j].upperAngle);
  ROW_IN(J.motorSpeed, joints[j].motorSpeed); ROW_IN(J.maxTorque, joints[j].maxMotorTorque);
  store(J.limitP, _mm256_setzero_pd());
  J.atLower = limit_mask(W, j, kAtLowerLimit);
  J.atUpper = limit_mask(W, j, kAtUpperLimit);
  J.equal = limit_mask(W, j, kEqualLimits);
  if (step.warmStarting) {
    BodyX4& A = x.body[J.a];
    BodyX4& B = x.body[J.b];
    const V dt = splat(step.dt);
    const V Fx = load(J.Fx), Fy = load(J.Fy), motor = load(J.motorF), limit = load(J.limitF);
    const V dmA = mul(dt, mA), dmB = mul(dt, mB), diA = mul(dt, iA), diB = mul(dt, iB);
    store(A.vx, sub(load(A.vx), mul(dmA, Fx)));
    store(A.vy, sub(load(A.vy), mul(dmA, Fy)));
    store(A.w, sub(load(A.w), mul(diA, add(add(sub(mul(rAx, Fy), mul(rAy, Fx)), motor), limit))));
    store(B.vx, add(load(B.vx), mul(dmB, Fx)));
    store(B.vy, add(load(B.vy), mul(dmB, Fy)));
    store(B.w, add(load(B.w), mul(diB, add(add(sub(mul(rBx, Fy), mul(rBy, Fx)), motor), limit))));
  }
}

QWOP_X4_INLINE void velocity_joint(IslandX4& x, const RevoluteJoint& J0, int j, const TimeStep& step) {
  JointX4& J = x.joint[j];
  BodyX4& A = x.body[J.a];
  BodyX4& B = x.body[J.b];
  const V mA = splat(J.mA), mB = splat(J.mB), iA = splat(J.iA), iB = splat(J.iB);
  const V rAx = load(J.rAx), rAy = load(J.rAy), rBx = load(J.rBx), rBy = load(J.rBy);
  V vAx = load(A.vx), vAy = load(A.vy), wA = load(A.w);
  V vBx = load(B.vx), vBy = load(B.vy), wB = load(B.w);
  const V ninv = splat(-step.inv_dt), dt = splat(step.dt);
  const V cdotX = sub(sub(add(vBx, mul(vneg(wB), rBy)), vAx), mul(vneg(wA), rAy));
  const V cdotY = sub(sub(add(vBy, mul(wB, rBx)), vAy), mul(wA, rAx));
  const V fX = mul(ninv, add(mul(load(J.m11), cdotX), mul(load(J.m12), cdotY)));
  const V fY = mul(ninv, add(mul(load(J.m21), cdotX), mul(load(J.m22), cdotY)));
  store(J.Fx, add(load(J.Fx), fX));
  store(J.Fy, add(load(J.Fy), fY));
  const V PX = mul(dt, fX), PY = mul(dt, fY);
  vAx = sub(vAx, mul(mA, PX)); vAy = sub(vAy, mul(mA, PY));
  wA = sub(wA, mul(iA, sub(mul(rAx, PY), mul(rAy, PX))));
  vBx = add(vBx, mul(mB, PX)); vBy = add(vBy, mul(mB, PY));
  wB = add(wB, mul(iB, sub(mul(rBx, PY), mul(rBy, PX))));
  const V eq = J.equal;
  const V motorMass = splat(J0.motorMass);
  if (J0.enableMotor) {
    const V on = _mm256_xor_pd(eq, _mm256_castsi256_pd(_mm256_set1_epi64x(-1)));
    const V motorCdot = sub(sub(wB, wA), load(J.motorSpeed));
    V mf = mul(mul(ninv, motorMass), motorCdot);
    const V old = load(J.motorF);
    const V maxT = load(J.maxTorque);
    const V nf = vclamp(add(old, mf), vneg(maxT), maxT);
    mf = sub(nf, old);
    store(J.motorF, nf, on);
    wA = select(on, sub(wA, mul(mul(iA, dt), mf)), wA);
    wB = select(on, add(wB, mul(mul(iB, dt), mf)), wB);
  }
  if (J0.enableLimit) {
    const V lo = J.atLower, up = J.atUpper;
    const V on = _mm256_or_pd(eq, _mm256_or_pd(lo, up));
    if (_mm256_movemask_pd(on)) {
      const V limitCdot = sub(wB, wA);
      V lf = mul(mul(ninv, motorMass), limitCdot);
      const V old = load(J.limitF);
      const V sum = add(old, lf);
      const V nf = select(eq, sum, select(lo, vmax(sum, _mm256_setzero_pd()), vmin(sum, _mm256_setzero_pd())));
      lf = select(eq, lf, sub(nf, old));
      store(J.limitF, nf, on);
      wA = select(on, sub(wA, mul(mul(iA, dt), lf)), wA);
      wB = select(on, add(wB, mul(mul(iB, dt), lf)), wB);
    }
  }
  store(A.vx, vAx), store(A.vy, vAy), store(A.w, wA);
  store(B.vx, vBx), store(B.vy, vBy), store(B.w, wB);
}

// Returns the lanes whose joint is within tolerance (bit mask); only lanes in `active` change.
template <bool F>
QWOP_X4_INLINE int position_joint(IslandX4& x, const World& w0, int j, int active) {
  JointX4& J = x.joint[j];
  BodyX4& A = x.body[J.a];
  BodyX4& B = x.body[J.b];
  const RevoluteJoint& J0 = w0.joints[j];
  const V mA = splat(J.mA), mB = splat(J.mB), iA = splat(J.iA), iB = splat(J.iB);
  V rAx, rAy, rBx, rBy;
  lever(A, J.oAx, J.oAy, &rAx, &rAy);
  lever(B, J.oBx, J.oBy, &rBx, &rBy);
  V cAx = load(A.cx), cAy = load(A.cy), aA = load(A.a);
  V cBx = load(B.cx), cBy = load(B.cy), aB = load(B.a);
  const V ptpCX = sub(add(cBx, rBx), add(cAx, rAx));
  const V ptpCY = sub(add(cBy, rBy), add(cAy, rAy));
  const V squaredError = add(mul(ptpCX, ptpCX), mul(ptpCY, ptpCY));
  const Mat22x4 K = joint_k(mA, mB, iA, iB, rAx, rAy, rBx, rBy);
  const V K11 = K.c1x, K21 = K.c1y, K12 = K.c2x, K22 = K.c2y;
  const V zero = _mm256_setzero_pd();
  const V det = inverse_det(K);
  const V bx = vneg(ptpCX), by = vneg(ptpCY);
  const V impX = mul(det, sub(mul(K22, bx), mul(K12, by)));
  const V impY = mul(det, sub(mul(K11, by), mul(K21, bx)));
  cAx = sub(cAx, mul(mA, impX)); cAy = sub(cAy, mul(mA, impY));
  aA = sub(aA, mul(iA, sub(mul(rAx, impY), mul(rAy, impX))));
  cBx = add(cBx, mul(mB, impX)); cBy = add(cBy, mul(mB, impY));
  aB = add(aB, mul(iB, sub(mul(rBx, impY), mul(rBy, impX))));
  V angularError = zero;
  const V act = lane_mask(active);
  if (J0.enableLimit) {
    const V eq = J.equal, lo = J.atLower, up = J.atUpper;
    const V on = _mm256_or_pd(eq, _mm256_or_pd(lo, up));
    if (_mm256_movemask_pd(on) & active) {
      const V angle = sub(sub(aB, aA), splat(J0.referenceAngle));
      const V maxC = splat(settings::kMaxAngularCorrection), slop = splat(settings::kAngularSlop);
      const V nmm = vneg(splat(J0.motorMass));
      // equal limits
      const V cE = vclamp(angle, vneg(maxC), maxC);
      const V impE = mul(nmm, cE);
      const V errE = select(gt(cE, zero), cE, vneg(cE));
      // lower
      const V cL0 = sub(angle, load(J.lower));
      const V errL = vmax(zero, vneg(cL0));
      const V cL = vclamp(add(cL0, slop), vneg(maxC), zero);
      // upper
      const V cU0 = sub(angle, load(J.upper));
      const V errU = vmax(zero, cU0);
      const V cU = vclamp(sub(cU0, slop), zero, maxC);
      const V oldP = load(J.limitP);
      const V newL = vmax(add(oldP, mul(nmm, cL)), zero);
      const V newU = vmin(add(oldP, mul(nmm, cU)), zero);
      const V newP = select(lo, newL, newU);
      store(J.limitP, newP, _mm256_and_pd(_mm256_or_pd(lo, up), act));
      const V imp = select(eq, impE, sub(newP, oldP));
      angularError = select(on, select(eq, errE, select(lo, errL, errU)), zero);
      aA = select(on, sub(aA, mul(iA, imp)), aA);
      aB = select(on, add(aB, mul(iB, imp)), aB);
    }
  }
  V sa, ca, sb, cb;
  trig::x4::sincos<F>(aA, &sa, &ca);
  trig::x4::sincos<F>(aB, &sb, &cb);
  store(A.cx, cAx, act), store(A.cy, cAy, act), store(A.a, aA, act), store(A.s, sa, act), store(A.c, ca, act);
  store(B.cx, cBx, act), store(B.cy, cBy, act), store(B.a, aB, act), store(B.s, sb, act), store(B.c, cb, act);
  x.dirty[J.a] |= active;
  x.dirty[J.b] |= active;
  const V ok = _mm256_and_pd(le(squaredError, splat(kJointSquaredErrorBound)), le(angularError, splat(settings::kAngularSlop)));
  return _mm256_movemask_pd(ok);
}

// Which packed bodies world g's contact constraints touch.
uint32_t contact_bodies(const StepScratch& s, uint32_t packed) {
  uint32_t m = 0;
  for (int32_t i = 0; i < s.contactCount; ++i) m |= (1u << s.constraints[i].bodyA) | (1u << s.constraints[i].bodyB);
  return m & packed;
}

template <bool F>
QWOP_X4_TARGET void solve(World* const* W, StepScratch* const* S, const TimeStep* step) {
  IslandX4 x;
  const World& w0 = *W[0];
  const StepScratch& s0 = *S[0];
  const int n = s0.laneJointCount;
  int lane[kMaxJoints];  // the lane joints' world ids, in island order
  for (int i = 0; i < n; ++i) lane[i] = s0.joints[s0.laneJoints[i]];
  uint32_t packed = 0;
  x.bodyCount = 0;
  for (int i = 0; i < n; ++i) {
    const int j = lane[i];
    const RevoluteJoint& J0 = w0.joints[j];
    JointX4& J = x.joint[j];
    J.a = J0.bodyA, J.b = J0.bodyB;
    J.mA = w0.bodies[J.a].invMass, J.mB = w0.bodies[J.b].invMass;
    J.iA = w0.bodies[J.a].invI, J.iB = w0.bodies[J.b].invI;
    const Vec2 &lcA = w0.bodies[J.a].sweep.localCenter, &lcB = w0.bodies[J.b].sweep.localCenter;
    J.oAx = J0.localAnchor1.x - lcA.x, J.oAy = J0.localAnchor1.y - lcA.y;
    J.oBx = J0.localAnchor2.x - lcB.x, J.oBy = J0.localAnchor2.y - lcB.y;
    for (const int k : {J.a, J.b}) {
      if (!((packed >> k) & 1u)) x.bodies[x.bodyCount++] = k;
      packed |= 1u << k;
    }
  }
  for (int g = 0; g < kLanes; ++g) W[g]->island_prepare(step[g], *S[g], false);
  for (int g = 0; g < kLanes; ++g) x.contactBodies[g] = contact_bodies(*S[g], packed);
  // Each world's other joints touch no packed body: they are solved in place, world by world,
  // after the lane joints of each sweep.
  for (int g = 0; g < kLanes; ++g) {
    StepScratch& sg = *S[g];
    for (int32_t k = 0; k < sg.otherJointCount; ++k) {
      const int32_t i = sg.otherJoints[k];
      joint_init_velocity(*W[g], W[g]->joints[sg.joints[i]], sg.jointData[i], step[g]);
    }
  }

  // Velocities: the set-up's warm start and the iterations.
  for (int i = 0; i < x.bodyCount; ++i) {
    const int k = x.bodies[i];
    for (int g = 0; g < kLanes; ++g) {
      load_velocity(x, W, k, g);
      load_pose(x, W, k, g);  // the set-up's lever arms read the rotations
    }
  }
  for (int i = 0; i < n; ++i) init_joint(x, W, lane[i], step[0]);
  for (int32_t it = 0; it < step[0].velocityIterations; ++it) {
    for (int i = 0; i < n; ++i) velocity_joint(x, w0.joints[lane[i]], lane[i], step[0]);
    for (int g = 0; g < kLanes; ++g) {
      const StepScratch& sg = *S[g];
      for (int32_t k = 0; k < sg.otherJointCount; ++k) {
        const int32_t i = sg.otherJoints[k];
        joint_solve_velocity(*W[g], W[g]->joints[sg.joints[i]], sg.jointData[i], step[g]);
      }
      const uint32_t cb = x.contactBodies[g];
      for (uint32_t m = cb; m; m &= m - 1) write_velocity(x, W, __builtin_ctz(m), g);
      contact_solver_solve_velocity(*W[g], *S[g]);
      for (uint32_t m = cb; m; m &= m - 1) load_velocity(x, W, __builtin_ctz(m), g);
    }
  }
  for (int i = 0; i < x.bodyCount; ++i) {
    for (int g = 0; g < kLanes; ++g) write_velocity(x, W, x.bodies[i], g);
  }
  for (int i = 0; i < n; ++i) {
    const int j = lane[i];
    const JointX4& J = x.joint[j];
    ROW_OUT(J.Fx, joints[j].pivotForce.x); ROW_OUT(J.Fy, joints[j].pivotForce.y);
    ROW_OUT(J.motorF, joints[j].motorForce); ROW_OUT(J.limitF, joints[j].limitForce);
  }
  for (int g = 0; g < kLanes; ++g) W[g]->island_integrate(step[g], *S[g]);

  // Positions, until every world's contacts and joints are within tolerance.
  for (int i = 0; i < x.bodyCount; ++i) {
    const int k = x.bodies[i];
    x.dirty[k] = 0;
    for (int g = 0; g < kLanes; ++g) load_pose(x, W, k, g);
  }
  int active = (1 << kLanes) - 1;  // worlds whose position iterations go on
  for (int32_t it = 0; it < step[0].positionIterations && active != 0; ++it) {
    int okay = 0;
    for (int g = 0; g < kLanes; ++g) {
      if (!((active >> g) & 1)) continue;
      const uint32_t cb = x.contactBodies[g];
      for (uint32_t m = cb; m; m &= m - 1) {
        const int k = __builtin_ctz(m);
        if ((x.dirty[k] >> g) & 1) write_pose(x, W, k, g), x.dirty[k] &= ~(1 << g);
      }
      okay |= int{contact_solver_solve_position(*W[g], *S[g], settings::kContactBaumgarte)} << g;
      for (uint32_t m = cb; m; m &= m - 1) load_pose(x, W, __builtin_ctz(m), g);
    }
    for (int i = 0; i < n; ++i) okay &= position_joint<F>(x, w0, lane[i], active);
    for (int g = 0; g < kLanes; ++g) {
      if (!((active >> g) & 1)) continue;
      const StepScratch& sg = *S[g];
      bool others = true;
      for (int32_t k = 0; k < sg.otherJointCount; ++k) {
        others = joint_solve_position(*W[g], W[g]->joints[sg.joints[sg.otherJoints[k]]]) && others;
      }
      if (!others) okay &= ~(1 << g);
    }
    active &= ~okay;
  }
  for (int i = 0; i < x.bodyCount; ++i) {
    const int k = x.bodies[i];
    for (int g = 0; g < kLanes; ++g) {
      if ((x.dirty[k] >> g) & 1) write_pose(x, W, k, g);
    }
  }
  for (int i = 0; i < n; ++i) {
    const int j = lane[i];
    ROW_OUT(x.joint[j].limitP, joints[j].limitPositionImpulse);
  }
}

}  // namespace

void solve_islands_x4(World* const w[kLanes], StepScratch* const s[kLanes], const TimeStep step[kLanes]) {
  if (w[0]->trigVariant == trig::kFma) {
    solve<true>(w, s, step);
  } else {
    solve<false>(w, s, step);
  }
}

}  // namespace qwop
#endif
