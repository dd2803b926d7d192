// One step's time step and scratch space: island lists, contact constraints, joint waves (not world state).
#pragma once

#include <cstdint>
#include <vector>

#include "contact.h"
#include "joint.h"

namespace qwop {

// Scratch space for solving one island; not part of the world state.
struct ContactConstraintPoint {
  Vec2 localPoint, rA, rB;
  double normalImpulse, tangentImpulse;
  double normalMass, tangentMass, equalizedMass, velocityBias;
};

struct ContactConstraint {
  ContactConstraintPoint points[2];
  Vec2 localPlaneNormal, localPoint, normal;
  Mat22 normalMass, K;
  double radius, friction, restitution;
  int32_t bodyA, bodyB;
  int32_t contact;
  int32_t type;
  int32_t pointCount;
};

struct StepScratch {
  int32_t bodies[kMaxBodies];
  int32_t contacts[kMaxContacts];
  int32_t joints[kMaxJoints];
  JointVelocityData jointData[kMaxJoints];  // of joints[i]
  // Each integrated body's rotation at the start of the step, R(R0Angle[b]) (bit b of
  // r0Valid says it is of this step): the broad phase's swept AABBs reuse it instead of
  // computing sin and cos again.
  Mat22 R0[kMaxBodies];
  double R0Angle[kMaxBodies];
  uint32_t r0Valid;
  static_assert(kMaxBodies <= 32, "r0Valid has a bit per body");
  // Each integrated body's position at the start of the step, where bit b of aabb0Valid
  // says its fixture's AABB was of that transform (Fixture::aabbAtXf).
  Vec2 P0[kMaxBodies];
  uint32_t aabb0Valid;
  int32_t stack[kMaxBodies];
  // The island's joints in waves (World::plan_joint_waves): wave w is
  // waveJoints[waveStart[w] .. waveStart[w + 1]), joints that share no body.
  RevoluteJoint* waveJoints[kMaxJoints];
  const JointVelocityData* waveData[kMaxJoints];
  Body* waveBodies[2 * kMaxJoints];  // of waveJoints[k]: its body A at 2k, B at 2k + 1
  int32_t waveStart[kMaxJoints + 1];
  int32_t waveCount;
  // Of contacts[i]; grown to the largest island's contacts (scratch of every thread and lane).
  std::vector<ContactConstraint> constraints;
  int32_t bodyCount, contactCount, jointCount;
  // The lock step's split of the island's joints (world_lockstep.cpp): indices into
  // joints[] of the ones solved in the lanes and of the others, each in island order.
  int32_t laneJoints[kMaxJoints], otherJoints[kMaxJoints];
  int32_t laneJointCount, otherJointCount;
};

struct TimeStep {
  double dt, inv_dt, dtRatio;
  int32_t velocityIterations, positionIterations;
  bool warmStarting;
};

}  // namespace qwop
