// The revolute joint in Box2D 2.0's force-based formulation: velocity set-up with warm
// starting, motor then limit velocity solve, point and limit position correction
// (ENGINE.md section 14b).
#include "engine.h"
#include "engine_util.h"

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

void joint_solve_velocity(World& w, RevoluteJoint& j, const JointVelocityData& d, const TimeStep& step) {
  Body& A = w.bodies[j.bodyA];
  Body& B = w.bodies[j.bodyB];
  const Vec2 rA = d.rA;
  const Vec2 rB = d.rB;
  const double mA = A.invMass, mB = B.invMass, iA = A.invI, iB = B.invI;
  Vec2& vA = A.linearVelocity;
  Vec2& vB = B.linearVelocity;
  const double cdotX = ((vB.x + (-B.angularVelocity) * rB.y) - vA.x) - (-A.angularVelocity) * rA.y;
  const double cdotY = ((vB.y + B.angularVelocity * rB.x) - vA.y) - A.angularVelocity * rA.x;
  const double fX = (-step.inv_dt) * (d.pivotMass.col1.x * cdotX + d.pivotMass.col2.x * cdotY);
  const double fY = (-step.inv_dt) * (d.pivotMass.col1.y * cdotX + d.pivotMass.col2.y * cdotY);
  j.pivotForce.x += fX;
  j.pivotForce.y += fY;
  const double PX = step.dt * fX;
  const double PY = step.dt * fY;
  vA.x -= mA * PX;
  vA.y -= mA * PY;
  A.angularVelocity -= iA * (rA.x * PY - rA.y * PX);
  vB.x += mB * PX;
  vB.y += mB * PY;
  B.angularVelocity += iB * (rB.x * PY - rB.y * PX);

  if (j.enableMotor && j.limitState != kEqualLimits) {
    const double motorCdot = (B.angularVelocity - A.angularVelocity) - j.motorSpeed;
    double motorForce = ((-step.inv_dt) * j.motorMass) * motorCdot;
    const double oldMotorForce = j.motorForce;
    j.motorForce = b2clamp(j.motorForce + motorForce, -j.maxMotorTorque, j.maxMotorTorque);
    motorForce = j.motorForce - oldMotorForce;
    A.angularVelocity -= (iA * step.dt) * motorForce;
    B.angularVelocity += (iB * step.dt) * motorForce;
  }
  if (j.enableLimit && j.limitState != kInactiveLimit) {
    const double limitCdot = B.angularVelocity - A.angularVelocity;
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
    A.angularVelocity -= (iA * step.dt) * limitForce;
    B.angularVelocity += (iB * step.dt) * limitForce;
  }
}

bool joint_solve_position(World& w, RevoluteJoint& j) {
  Body& A = w.bodies[j.bodyA];
  Body& B = w.bodies[j.bodyB];
  const double mA = A.invMass, mB = B.invMass, iA = A.invI, iB = B.invI;
  Vec2 rA = lever(A, j.localAnchor1);
  Vec2 rB = lever(B, j.localAnchor2);
  const double p1X = A.sweep.c.x + rA.x;
  const double p1Y = A.sweep.c.y + rA.y;
  const double p2X = B.sweep.c.x + rB.x;
  const double p2Y = B.sweep.c.y + rB.y;
  const double ptpCX = p2X - p1X;
  const double ptpCY = p2Y - p1Y;
  const double squaredError = ptpCX * ptpCX + ptpCY * ptpCY;
  const Mat22 K = joint_k(mA, mB, iA, iB, rA, rB);
  double det = K.col1.x * K.col2.y - K.col2.x * K.col1.y;
  if (det != 0.0) det = 1.0 / det;
  const double bx = -ptpCX, by = -ptpCY;
  const double impulseX = det * (K.col2.y * bx - K.col2.x * by);
  const double impulseY = det * (K.col1.x * by - K.col1.y * bx);
  A.sweep.c.x -= mA * impulseX;
  A.sweep.c.y -= mA * impulseY;
  A.sweep.a -= iA * (rA.x * impulseY - rA.y * impulseX);
  B.sweep.c.x += mB * impulseX;
  B.sweep.c.y += mB * impulseY;
  B.sweep.a += iB * (rB.x * impulseY - rB.y * impulseX);

  double angularError = 0.0;
  // The original synchronizes both bodies here and again after the limit correction;
  // the limit correction reads only sweep angles, so with an active limit the first
  // synchronization is overwritten unread and is skipped (same bits, fewer sin/cos).
  if (!(j.enableLimit && j.limitState != kInactiveLimit)) {
    sync_transform(w, j.bodyA);
    sync_transform(w, j.bodyB);
  } else {
    const double angle = (B.sweep.a - A.sweep.a) - j.referenceAngle;
    double limitImpulse = 0.0;
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
    A.sweep.a -= iA * limitImpulse;
    B.sweep.a += iB * limitImpulse;
    sync_transform(w, j.bodyA);
    sync_transform(w, j.bodyB);
  }
  return squaredError <= kJointSquaredErrorBound && angularError <= settings::kAngularSlop;
}

}  // namespace qwop
