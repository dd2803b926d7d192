// The Box2D 2.0 force-based revolute joint's state and definition (revolute_joint.cpp).
#pragma once

#include <cstdint>

#include "body.h"

namespace qwop {

struct RevoluteJointDef {
  int32_t bodyA = kNull, bodyB = kNull;
  Vec2 localAnchorA{0, 0}, localAnchorB{0, 0};
  double referenceAngle = 0;
  bool enableLimit = false;
  double lowerAngle = 0, upperAngle = 0;
  bool enableMotor = false;
  double maxMotorTorque = 0, motorSpeed = 0;
  bool collideConnected = false;
};

enum LimitState : int32_t { kInactiveLimit = 0, kAtLowerLimit = 1, kAtUpperLimit = 2, kEqualLimits = 3 };

// Box2D 2.0 force-based revolute joint (ENGINE.md section 14b).
struct RevoluteJoint {
  Vec2 localAnchor1, localAnchor2;
  Vec2 pivotForce;
  double referenceAngle;
  double motorForce, limitForce, limitPositionImpulse;
  double lowerAngle, upperAngle;
  double maxMotorTorque, motorSpeed;
  double motorMass;
  Edge edgeA, edgeB;
  int8_t bodyA, bodyB;
  int8_t prev, next;  // world joint list
  int8_t limitState;  // LimitState
  bool enableLimit, enableMotor;
  bool collideConnected;
  bool islandFlag;
  bool inUse;
  const Edge& edge(int side) const { return side ? edgeB : edgeA; }  // side 0 = A, 1 = B
};

// What a joint's velocity set-up computes for its velocity iterations: scratch of one step
// (the next step computes it again before any use), so it is kept with the island, not in
// every game.
struct JointVelocityData {
  Mat22 pivotMass;
  Vec2 rA, rB;  // lever arms; rotations do not change during velocity iterations
  Vec2 rAperp, rBperp;  // (-r.y, r.x) of each: the arms' part in the pivot's velocity
};

}  // namespace qwop
