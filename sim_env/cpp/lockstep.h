// Four worlds stepped together: each world's step is exactly World::step, but the revolute
// joints of the four islands are solved in the four lanes of SIMD registers (AVX2), one
// joint of all four worlds at a time. A batch of games spends most of an update in the
// joint solver's dependency chains; four independent chains side by side fill the CPU.
//
// Exactness: every lane runs the scalar solver's operations in the scalar order (products
// and sums are correctly rounded in either form, fused only where the FMA sin/cos fuses),
// and each world still solves its joints and contacts in its own order. Worlds whose
// islands differ (more than one island, another joint order, other masses) take the scalar
// path for that step, so the result never depends on which worlds share a step.
#pragma once

#include <cstdint>

#include "engine.h"

namespace qwop {

constexpr int kLanes = 4;

// Whether this build and CPU run the lanes (x86-64 with AVX2 and FMA); else the lock step
// falls back to four scalar steps.
bool lockstep_available();

// Steps each world as w[i]->step(dt, vi, pi, listeners[i], *s[i]) would; returns whether
// their joints were solved in the lanes (else each world took the scalar path).
bool step_worlds_lockstep(World* const w[kLanes], ContactListener* const listeners[kLanes],
                          StepScratch* const s[kLanes], double dt, int32_t vi, int32_t pi);

// The lanes' revolute joint steps (revolute_joint_x4.cpp): joint_init_velocity,
// joint_solve_velocity and joint_solve_position (revolute_joint.cpp) for joint `j` of each world. The position solve
// changes only the worlds whose bit is set in `active` and returns the bits of the worlds
// whose joint is within tolerance.
void joint_init_velocity_x4(World* const w[kLanes], int32_t j, const TimeStep& step);
void joint_solve_velocity_x4(World* const w[kLanes], int32_t j, const TimeStep& step);
int joint_solve_position_x4(World* const w[kLanes], int32_t j, int active);

}  // namespace qwop
