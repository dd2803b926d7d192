// The revolute joint in Box2D 2.0's force-based formulation: velocity set-up with warm
// starting, motor then limit velocity solve, point and limit position correction
// (ENGINE.md section 14b).
#include "engine.h"
#include "engine_util.h"

namespace qwop {

// ---------------------------------------------------------------- revolute joint (section 14b)

namespace {
// A joint's lever arm on body b: R (anchor - localCenter), as (x, y).
inline XY lever(const Body& b, const Vec2& anchor) {
  const XY o = load_xy(anchor) - load_xy(b.sweep.localCenter);
  return load_xy(b.xf.R.col1) * x_both(o) + load_xy(b.xf.R.col2) * y_both(o);
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
  store_xy(d.rA, lever(A, j.localAnchor1));
  store_xy(d.rB, lever(B, j.localAnchor2));
  const Vec2 rA = d.rA, rB = d.rB;
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
  // A body's linear velocity is one (x, y) pair (engine_util.h's XY): every operation of the
  // point constraint is the same on x as on y. (-w) * r.y is written w * (-r.y) through the
  // perpendicular arms the velocity set-up stores (negation and a product's sign are
  // exact). The velocities are read field by field (the contact solver writes them so).
  Body* A[N];
  Body* B[N];
  XY vA[N], vB[N];
  double wA[N], wB[N];
  for (int k = 0; k < N; ++k) {
    A[k] = bs[2 * k];
    B[k] = bs[2 * k + 1];
    vA[k] = load_xy_split(A[k]->linearVelocity);
    wA[k] = A[k]->angularVelocity;
    vB[k] = load_xy_split(B[k]->linearVelocity);
    wB[k] = B[k]->angularVelocity;
  }
  const XY minusInvDt = both(-step.inv_dt), dt = both(step.dt);
  for (int k = 0; k < N; ++k) {
    RevoluteJoint& j = *js[k];
    const JointVelocityData& d = *ds[k];
    const double iA = A[k]->invI, iB = B[k]->invI;
    const XY cdot = ((vB[k] + both(wB[k]) * load_xy(d.rBperp)) - vA[k]) - both(wA[k]) * load_xy(d.rAperp);
    const XY f = minusInvDt * (load_xy(d.pivotMass.col1) * x_both(cdot) + load_xy(d.pivotMass.col2) * y_both(cdot));
    store_xy(j.pivotForce, load_xy(j.pivotForce) + f);
    const XY P = dt * f;
    vA[k] = vA[k] - both(A[k]->invMass) * P;
    vB[k] = vB[k] + both(B[k]->invMass) * P;
    const double PX = x_of(P), PY = y_of(P);
    wA[k] -= iA * (d.rA.x * PY - d.rA.y * PX);
    wB[k] += iB * (d.rB.x * PY - d.rB.y * PX);
  }
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
    store_xy(A[k]->linearVelocity, vA[k]);
    store_xy(B[k]->linearVelocity, vB[k]);
    A[k]->angularVelocity = wA[k];
    B[k]->angularVelocity = wB[k];
  }
}

// The same, reusing the stored rotation when the angle has not changed (sync_transform).
inline void sync_body(Body& b, XY c, double a, trig::Variant v) {
  if (same_bits(a, b.xfAngle)) {
    set_body_sweep(b, c, a, b.xf.R.col1.y, b.xf.R.col1.x);
  } else {
    const trig::SinCos r = trig::sincos(v, a);
    set_body_sweep(b, c, a, r.s, r.c);
  }
}

// The position solve with each body's centre and each lever arm one (x, y) pair, as the
// velocity solve above.
template <int N>
inline bool solve_position_n(trig::Variant variant, RevoluteJoint* const* js, Body* const* bs) {
  Body* A[N];
  Body* B[N];
  XY cA[N], cB[N], rA[N], rB[N];
  double aA[N], aB[N];
  for (int k = 0; k < N; ++k) {
    A[k] = bs[2 * k];
    B[k] = bs[2 * k + 1];
    // The contact solver writes sweep.c field by field.
    cA[k] = load_xy_split(A[k]->sweep.c);
    aA[k] = A[k]->sweep.a;
    cB[k] = load_xy_split(B[k]->sweep.c);
    aB[k] = B[k]->sweep.a;
    rA[k] = lever(*A[k], js[k]->localAnchor1);
    rB[k] = lever(*B[k], js[k]->localAnchor2);
  }
  bool ok = true;
  for (int k = 0; k < N; ++k) {
    const double mA = A[k]->invMass, mB = B[k]->invMass, iA = A[k]->invI, iB = B[k]->invI;
    const XY ptpC = (cB[k] + rB[k]) - (cA[k] + rA[k]);
    const XY sq = ptpC * ptpC;
    const double squaredError = x_of(sq) + y_of(sq);
    const Vec2 rAk{x_of(rA[k]), y_of(rA[k])}, rBk{x_of(rB[k]), y_of(rB[k])};
    const Mat22 K = joint_k(mA, mB, iA, iB, rAk, rBk);
    double det = K.col1.x * K.col2.y - K.col2.x * K.col1.y;
    if (det != 0.0) det = 1.0 / det;
    const double bx = -x_of(ptpC), by = -y_of(ptpC);
    const double impulseX = det * (K.col2.y * bx - K.col2.x * by);
    const double impulseY = det * (K.col1.x * by - K.col1.y * bx);
    const XY impulse = xy(impulseX, impulseY);
    cA[k] = cA[k] - both(mA) * impulse;
    aA[k] -= iA * (rAk.x * impulseY - rAk.y * impulseX);
    cB[k] = cB[k] + both(mB) * impulse;
    aB[k] += iB * (rBk.x * impulseY - rBk.y * impulseX);
    ok = ok && squaredError <= kJointSquaredErrorBound;
  }
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
