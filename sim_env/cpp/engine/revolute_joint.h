// The revolute joint's solver steps (revolute_joint.cpp), one joint or a plan of waves.
#pragma once

#include <cstdint>

#include "world.h"

namespace qwop {

// Revolute joint steps (ENGINE.md 14b).
// The largest squared pivot error whose square root is within kLinearSlop (revolute_joint.cpp).
extern const double kJointSquaredErrorBound;
void joint_init_velocity(World& w, RevoluteJoint& j, JointVelocityData& d, const TimeStep& step);
// The motor and limit bookkeeping of joint_init_velocity (motor force, limit state and force),
// from the two bodies' sweep angles.
void joint_init_limits(RevoluteJoint& j, double angleA, double angleB);
// A sweep over the joints gives the same bits in any order that keeps, for every body, the
// order of the joints on it (a joint reads and writes only its two bodies and itself). Each
// of the n joints (world joint ids) goes in the wave after the latest wave holding one of its
// bodies: order[start[v] .. start[v + 1]) are wave v's joints (indices into `joints`, in
// their order), joints that share no body. Returns the number of waves (the runner's 11
// joints make 6: 1, 2, 1, 2, 3 and 2 joints; the torso's five joints set the length).
int32_t joint_waves(const World& w, const int32_t* joints, int32_t n, int32_t* order, int32_t* start);
// One velocity and one position sweep over the island's joints, wave after wave of the
// plan in `s` (World::plan_joint_waves), each wave's joints side by side; the position
// sweep returns whether every joint is within tolerance.
void joints_solve_velocity(const StepScratch& s, const TimeStep& step);
bool joints_solve_position(World& w, const StepScratch& s);
// One joint's velocity and position solve on its own (d from its joint_init_velocity); the
// position solve returns whether it is within tolerance.
void joint_solve_velocity(World& w, RevoluteJoint& j, const JointVelocityData& d, const TimeStep& step);
bool joint_solve_position(World& w, RevoluteJoint& j);

}  // namespace qwop
