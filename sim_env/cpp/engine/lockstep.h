// Four worlds stepped together: each world's step is exactly World::step, but the revolute
// joints of the four islands are solved in the four lanes of SIMD registers (AVX2), one
// joint of all four worlds at a time. A batch of games spends most of an update in the
// joint solver's dependency chains; four independent chains side by side fill the CPU.
//
// Exactness: every lane runs the scalar solver's operations in the scalar order (products
// and sums are correctly rounded in either form, fused only where the FMA sin/cos fuses),
// and each world still solves its islands, joints and contacts in its own order. Worlds
// whose lane islands differ (another joint order, other masses) solve them on the scalar
// path for that step, so the result never depends on which worlds share a step.
#pragma once

#include <cstdint>

#include "engine.h"

namespace qwop {

constexpr int kLanes = 4;

// The lanes take a world's first group of at least this many joints that share bodies (in
// seed and island order): the runner's 11, not the hurdle's one, which is solved world by
// world, whether in its own island or in the runner's (world_lockstep.cpp).
constexpr int32_t kLaneIslandMinJoints = 2;

// Whether this build and CPU run the lanes (x86-64 with AVX2 and FMA); else the lock step
// falls back to four scalar steps.
bool lockstep_available();

// Steps each world as w[i]->step(dt, vi, pi, listeners[i], *s[i]) would; returns whether
// their joints were solved in the lanes (else each world took the scalar path).
bool step_worlds_lockstep(World* const w[kLanes], ContactListener* const listeners[kLanes],
                          StepScratch* const s[kLanes], double dt, int32_t vi, int32_t pi);

// World::solve_island from island_prepare to the last position iteration for the four worlds'
// islands (island_x4.cpp): each world's contacts and other joints world by world, the lane
// joints in lanes. The lock step has checked that the lane joints agree
// (world_lockstep.cpp). Does nothing where the lanes are not available.
void solve_islands_x4(World* const w[kLanes], StepScratch* const s[kLanes], const TimeStep step[kLanes]);

}  // namespace qwop
