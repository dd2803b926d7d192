// The contact solver over an island's contacts: constraint set-up, warm start, velocity
// iterations (block solver for two points), impulse write-back and position correction
// with Baumgarte 1.0 (ENGINE.md section 5).
#include "engine.h"
#include "engine_util.h"
#include "contact_solver.h"

namespace qwop {

// Contact solver (section 5), over the island's contacts.
void contact_solver_initialize(World& w, StepScratch& s) {
  if (s.constraints.size() < static_cast<size_t>(s.contactCount)) s.constraints.resize(static_cast<size_t>(s.contactCount));
  for (int32_t i = 0; i < s.contactCount; ++i) {
    Contact& contact = w.contacts[s.contacts[i]];
    Body& bodyA = w.bodies[contact.bodyA];
    Body& bodyB = w.bodies[contact.bodyB];
    const double radiusA = Fixture::radius;
    const double radiusB = Fixture::radius;
    Manifold& manifold = contact.manifold();
    const double friction = std::sqrt(bodyA.fixture.friction * bodyB.fixture.friction);
    const double restitution = bodyA.fixture.restitution > bodyB.fixture.restitution
                                   ? bodyA.fixture.restitution
                                   : bodyB.fixture.restitution;
    const double vAX = bodyA.linearVelocity.x;
    const double vAY = bodyA.linearVelocity.y;
    const double vBX = bodyB.linearVelocity.x;
    const double vBY = bodyB.linearVelocity.y;
    const double wA = bodyA.angularVelocity;
    const double wB = bodyB.angularVelocity;
    WorldManifold wm;
    w.world_manifold(s.contacts[i], wm);
    const double normalX = wm.normal.x;
    const double normalY = wm.normal.y;
    ContactConstraint& cc = s.constraints[i];
    cc.bodyA = contact.bodyA;
    cc.bodyB = contact.bodyB;
    cc.contact = s.contacts[i];
    cc.normal = {normalX, normalY};
    cc.pointCount = manifold.pointCount;
    cc.friction = friction;
    cc.restitution = restitution;
    cc.localPlaneNormal = manifold.localPlaneNormal;
    cc.localPoint = manifold.localPoint;
    cc.radius = radiusA + radiusB;
    cc.type = manifold.type;
    for (int32_t k = 0; k < cc.pointCount; ++k) {
      const ManifoldPoint& cp = manifold.points[k];
      ContactConstraintPoint& ccp = cc.points[k];
      ccp.normalImpulse = cp.normalImpulse;
      ccp.tangentImpulse = cp.tangentImpulse;
      ccp.localPoint = cp.localPoint;
      const double rAX = ccp.rA.x = wm.points[k].x - bodyA.sweep.c.x;
      const double rAY = ccp.rA.y = wm.points[k].y - bodyA.sweep.c.y;
      const double rBX = ccp.rB.x = wm.points[k].x - bodyB.sweep.c.x;
      const double rBY = ccp.rB.y = wm.points[k].y - bodyB.sweep.c.y;
      double rnA = rAX * normalY - rAY * normalX;
      double rnB = rBX * normalY - rBY * normalX;
      rnA *= rnA;
      rnB *= rnB;
      const double kNormal = bodyA.invMass + bodyB.invMass + bodyA.invI * rnA + bodyB.invI * rnB;
      ccp.normalMass = 1.0 / kNormal;
      double kEqualized = bodyA.mass * bodyA.invMass + bodyB.mass * bodyB.invMass;
      kEqualized += bodyA.mass * bodyA.invI * rnA + bodyB.mass * bodyB.invI * rnB;
      ccp.equalizedMass = 1.0 / kEqualized;
      const double tangentX = normalY;
      const double tangentY = -normalX;
      double rtA = rAX * tangentY - rAY * tangentX;
      double rtB = rBX * tangentY - rBY * tangentX;
      rtA *= rtA;
      rtB *= rtB;
      const double kTangent = bodyA.invMass + bodyB.invMass + bodyA.invI * rtA + bodyB.invI * rtB;
      ccp.tangentMass = 1.0 / kTangent;
      ccp.velocityBias = 0.0;
      const double tX = vBX + (-wB * rBY) - vAX - (-wA * rAY);
      const double tY = vBY + (wB * rBX) - vAY - (wA * rAX);
      const double vRel = cc.normal.x * tX + cc.normal.y * tY;
      if (vRel < -settings::kVelocityThreshold) ccp.velocityBias += -cc.restitution * vRel;
    }
    if (cc.pointCount == 2) {
      const ContactConstraintPoint& ccp1 = cc.points[0];
      const ContactConstraintPoint& ccp2 = cc.points[1];
      const double invMassA = bodyA.invMass;
      const double invIA = bodyA.invI;
      const double invMassB = bodyB.invMass;
      const double invIB = bodyB.invI;
      const double rn1A = ccp1.rA.x * normalY - ccp1.rA.y * normalX;
      const double rn1B = ccp1.rB.x * normalY - ccp1.rB.y * normalX;
      const double rn2A = ccp2.rA.x * normalY - ccp2.rA.y * normalX;
      const double rn2B = ccp2.rB.x * normalY - ccp2.rB.y * normalX;
      const double k11 = invMassA + invMassB + invIA * rn1A * rn1A + invIB * rn1B * rn1B;
      const double k22 = invMassA + invMassB + invIA * rn2A * rn2A + invIB * rn2B * rn2B;
      const double k12 = invMassA + invMassB + invIA * rn1A * rn2A + invIB * rn1B * rn2B;
      const double k_maxConditionNumber = 100.0;
      if (k11 * k11 < k_maxConditionNumber * (k11 * k22 - k12 * k12)) {
        cc.K.col1 = {k11, k12};
        cc.K.col2 = {k12, k22};
        const double a = cc.K.col1.x, b = cc.K.col2.x, c = cc.K.col1.y, d = cc.K.col2.y;
        double det = a * d - b * c;
        if (det != 0.0) det = 1.0 / det;
        cc.normalMass.col1.x = det * d;
        cc.normalMass.col2.x = -det * b;
        cc.normalMass.col1.y = -det * c;
        cc.normalMass.col2.y = det * a;
      } else {
        cc.pointCount = 1;
      }
    }
  }
}

void contact_solver_warm_start(World& w, StepScratch& s, const TimeStep& step) {
  for (int32_t i = 0; i < s.contactCount; ++i) {
    ContactConstraint& c = s.constraints[i];
    Body& bodyA = w.bodies[c.bodyA];
    Body& bodyB = w.bodies[c.bodyB];
    const double invMassA = bodyA.invMass, invIA = bodyA.invI;
    const double invMassB = bodyB.invMass, invIB = bodyB.invI;
    const double normalX = c.normal.x, normalY = c.normal.y;
    const double tangentX = normalY, tangentY = -normalX;
    if (step.warmStarting) {
      for (int32_t j = 0; j < c.pointCount; ++j) {
        ContactConstraintPoint& ccp = c.points[j];
        ccp.normalImpulse *= step.dtRatio;
        ccp.tangentImpulse *= step.dtRatio;
        const double PX = ccp.normalImpulse * normalX + ccp.tangentImpulse * tangentX;
        const double PY = ccp.normalImpulse * normalY + ccp.tangentImpulse * tangentY;
        bodyA.angularVelocity -= invIA * (ccp.rA.x * PY - ccp.rA.y * PX);
        bodyA.linearVelocity.x -= invMassA * PX;
        bodyA.linearVelocity.y -= invMassA * PY;
        bodyB.angularVelocity += invIB * (ccp.rB.x * PY - ccp.rB.y * PX);
        bodyB.linearVelocity.x += invMassB * PX;
        bodyB.linearVelocity.y += invMassB * PY;
      }
    } else {
      for (int32_t j = 0; j < c.pointCount; ++j) {
        c.points[j].normalImpulse = 0.0;
        c.points[j].tangentImpulse = 0.0;
      }
    }
  }
}

void contact_solver_solve_velocity(World& w, StepScratch& s) {
  for (int32_t i = 0; i < s.contactCount; ++i) {
    ContactConstraint& c = s.constraints[i];
    Body& bodyA = w.bodies[c.bodyA];
    Body& bodyB = w.bodies[c.bodyB];
    double wA = bodyA.angularVelocity;
    double wB = bodyB.angularVelocity;
    Vec2& vA = bodyA.linearVelocity;
    Vec2& vB = bodyB.linearVelocity;
    const double invMassA = bodyA.invMass, invIA = bodyA.invI;
    const double invMassB = bodyB.invMass, invIB = bodyB.invI;
    const double normalX = c.normal.x, normalY = c.normal.y;
    const double tangentX = normalY, tangentY = -normalX;
    const double friction = c.friction;
    for (int32_t j = 0; j < c.pointCount; ++j) {
      ContactConstraintPoint& ccp = c.points[j];
      const double dvX = vB.x - wB * ccp.rB.y - vA.x + wA * ccp.rA.y;
      const double dvY = vB.y + wB * ccp.rB.x - vA.y - wA * ccp.rA.x;
      const double vt = dvX * tangentX + dvY * tangentY;
      double lambda = ccp.tangentMass * (-vt);
      const double maxFriction = friction * ccp.normalImpulse;
      const double newImpulse = b2clamp(ccp.tangentImpulse + lambda, -maxFriction, maxFriction);
      lambda = newImpulse - ccp.tangentImpulse;
      const double PX = lambda * tangentX;
      const double PY = lambda * tangentY;
      vA.x -= invMassA * PX;
      vA.y -= invMassA * PY;
      wA -= invIA * (ccp.rA.x * PY - ccp.rA.y * PX);
      vB.x += invMassB * PX;
      vB.y += invMassB * PY;
      wB += invIB * (ccp.rB.x * PY - ccp.rB.y * PX);
      ccp.tangentImpulse = newImpulse;
    }
    if (c.pointCount == 1) {
      ContactConstraintPoint& ccp = c.points[0];
      const double dvX = vB.x + (-wB * ccp.rB.y) - vA.x - (-wA * ccp.rA.y);
      const double dvY = vB.y + (wB * ccp.rB.x) - vA.y - (wA * ccp.rA.x);
      const double vn = dvX * normalX + dvY * normalY;
      double lambda = -ccp.normalMass * (vn - ccp.velocityBias);
      double newImpulse = ccp.normalImpulse + lambda;
      newImpulse = newImpulse > 0 ? newImpulse : 0.0;
      lambda = newImpulse - ccp.normalImpulse;
      const double PX = lambda * normalX;
      const double PY = lambda * normalY;
      vA.x -= invMassA * PX;
      vA.y -= invMassA * PY;
      wA -= invIA * (ccp.rA.x * PY - ccp.rA.y * PX);
      vB.x += invMassB * PX;
      vB.y += invMassB * PY;
      wB += invIB * (ccp.rB.x * PY - ccp.rB.y * PX);
      ccp.normalImpulse = newImpulse;
    } else {
      ContactConstraintPoint& cp1 = c.points[0];
      ContactConstraintPoint& cp2 = c.points[1];
      const double aX = cp1.normalImpulse;
      const double aY = cp2.normalImpulse;
      const double dv1X = vB.x - wB * cp1.rB.y - vA.x + wA * cp1.rA.y;
      const double dv1Y = vB.y + wB * cp1.rB.x - vA.y - wA * cp1.rA.x;
      const double dv2X = vB.x - wB * cp2.rB.y - vA.x + wA * cp2.rA.y;
      const double dv2Y = vB.y + wB * cp2.rB.x - vA.y - wA * cp2.rA.x;
      double vn1 = dv1X * normalX + dv1Y * normalY;
      double vn2 = dv2X * normalX + dv2Y * normalY;
      double bX = vn1 - cp1.velocityBias;
      double bY = vn2 - cp2.velocityBias;
      const Mat22& K = c.K;
      bX -= K.col1.x * aX + K.col2.x * aY;
      bY -= K.col1.y * aX + K.col2.y * aY;
      auto apply = [&](double xX, double xY) {
        const double dX = xX - aX;
        const double dY = xY - aY;
        const double P1X = dX * normalX;
        const double P1Y = dX * normalY;
        const double P2X = dY * normalX;
        const double P2Y = dY * normalY;
        vA.x -= invMassA * (P1X + P2X);
        vA.y -= invMassA * (P1Y + P2Y);
        wA -= invIA * (cp1.rA.x * P1Y - cp1.rA.y * P1X + cp2.rA.x * P2Y - cp2.rA.y * P2X);
        vB.x += invMassB * (P1X + P2X);
        vB.y += invMassB * (P1Y + P2Y);
        wB += invIB * (cp1.rB.x * P1Y - cp1.rB.y * P1X + cp2.rB.x * P2Y - cp2.rB.y * P2X);
        cp1.normalImpulse = xX;
        cp2.normalImpulse = xY;
      };
      for (;;) {
        const Mat22& M = c.normalMass;
        double xX = -(M.col1.x * bX + M.col2.x * bY);
        double xY = -(M.col1.y * bX + M.col2.y * bY);
        if (xX >= 0.0 && xY >= 0.0) {
          apply(xX, xY);
          break;
        }
        xX = -cp1.normalMass * bX;
        xY = 0.0;
        vn1 = 0.0;
        vn2 = K.col1.y * xX + bY;
        if (xX >= 0.0 && vn2 >= 0.0) {
          apply(xX, xY);
          break;
        }
        xX = 0.0;
        xY = -cp2.normalMass * bY;
        vn1 = K.col2.x * xY + bX;
        vn2 = 0.0;
        if (xY >= 0.0 && vn1 >= 0.0) {
          apply(xX, xY);
          break;
        }
        xX = 0.0;
        xY = 0.0;
        vn1 = bX;
        vn2 = bY;
        if (vn1 >= 0.0 && vn2 >= 0.0) {
          apply(xX, xY);
          break;
        }
        break;
      }
    }
    bodyA.angularVelocity = wA;
    bodyB.angularVelocity = wB;
  }
}

void contact_solver_finalize(World& w, StepScratch& s) {
  for (int32_t i = 0; i < s.contactCount; ++i) {
    const ContactConstraint& c = s.constraints[i];
    Manifold& m = w.contacts[c.contact].manifold();
    for (int32_t j = 0; j < c.pointCount; ++j) {
      m.points[j].normalImpulse = c.points[j].normalImpulse;
      m.points[j].tangentImpulse = c.points[j].tangentImpulse;
    }
  }
}


bool contact_solver_solve_position(World& w, StepScratch& s, double baumgarte) {
  double minSeparation = 0.0;
  for (int32_t i = 0; i < s.contactCount; ++i) {
    ContactConstraint& c = s.constraints[i];
    Body& bodyA = w.bodies[c.bodyA];
    Body& bodyB = w.bodies[c.bodyB];
    const double invMassA = bodyA.mass * bodyA.invMass;
    const double invIA = bodyA.mass * bodyA.invI;
    const double invMassB = bodyB.mass * bodyB.invMass;
    const double invIB = bodyB.mass * bodyB.invI;
    // Position solver manifold, from the current transforms.
    double normalX, normalY;
    Vec2 points[2];
    double separations[2];
    // The reference face's body gives the plane, the other body the clip points (FACE_B
    // swaps them, then flips the normal back to point from A to B).
    const bool faceA = c.type == kManifoldFaceA;
    const Transform& xfPlane = faceA ? bodyA.xf : bodyB.xf;
    const Transform& xfClip = faceA ? bodyB.xf : bodyA.xf;
    normalX = xfPlane.R.col1.x * c.localPlaneNormal.x + xfPlane.R.col2.x * c.localPlaneNormal.y;
    normalY = xfPlane.R.col1.y * c.localPlaneNormal.x + xfPlane.R.col2.y * c.localPlaneNormal.y;
    const double planePointX =
        xfPlane.position.x + (xfPlane.R.col1.x * c.localPoint.x + xfPlane.R.col2.x * c.localPoint.y);
    const double planePointY =
        xfPlane.position.y + (xfPlane.R.col1.y * c.localPoint.x + xfPlane.R.col2.y * c.localPoint.y);
    for (int32_t k = 0; k < c.pointCount; ++k) {
      const Vec2& lp = c.points[k].localPoint;
      const double clipPointX = xfClip.position.x + (xfClip.R.col1.x * lp.x + xfClip.R.col2.x * lp.y);
      const double clipPointY = xfClip.position.y + (xfClip.R.col1.y * lp.x + xfClip.R.col2.y * lp.y);
      separations[k] = (clipPointX - planePointX) * normalX + (clipPointY - planePointY) * normalY - c.radius;
      points[k] = {clipPointX, clipPointY};
    }
    if (!faceA) {
      normalX = normalX * -1.0;
      normalY = normalY * -1.0;
    }
    for (int32_t k = 0; k < c.pointCount; ++k) {
      const ContactConstraintPoint& ccp = c.points[k];
      const Vec2& point = points[k];
      const double separation = separations[k];
      const double rAX = point.x - bodyA.sweep.c.x;
      const double rAY = point.y - bodyA.sweep.c.y;
      const double rBX = point.x - bodyB.sweep.c.x;
      const double rBY = point.y - bodyB.sweep.c.y;
      minSeparation = separation > minSeparation ? minSeparation : separation;
      const double C = b2clamp(baumgarte * (separation + settings::kLinearSlop), -settings::kMaxLinearCorrection, 0.0);
      const double impulse = -ccp.equalizedMass * C;
      const double PX = impulse * normalX;
      const double PY = impulse * normalY;
      bodyA.sweep.c.x -= invMassA * PX;
      bodyA.sweep.c.y -= invMassA * PY;
      bodyA.sweep.a -= invIA * (rAX * PY - rAY * PX);
      bodyB.sweep.c.x += invMassB * PX;
      bodyB.sweep.c.y += invMassB * PY;
      bodyB.sweep.a += invIB * (rBX * PY - rBY * PX);
    }
    // The original synchronizes A and B after every point. Nothing reads the transforms
    // between the points of one constraint (points and separations were computed above,
    // lever arms use the sweep centres), so syncing once after the last point gives the
    // same bits with fewer sin/cos calls.
    if (c.pointCount > 0) {
      sync_transform(w, c.bodyA);
      sync_transform(w, c.bodyB);
    }
  }
  return minSeparation > -1.5 * settings::kLinearSlop;
}

}  // namespace qwop
