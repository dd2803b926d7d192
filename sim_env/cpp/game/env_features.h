// Observation and reward terms computed from body states: the one definition used by the
// batched engine, the single env and the browser env (through sim_env.observation and
// sim_env.rewards, which document every element).
#pragma once

#include <cstdint>

#include "game.h"

namespace qwop {

// relative x, y of 11 parts; angle, vx, vy, omega of 12; 11 joint angles; torso height, speed
constexpr int kObsSize = 2 * (kNumParts - 1) + 4 * kNumParts + kNumJoints + 2;  // 83
static_assert(kObsSize == 83, "observation layout");
// The reward terms, their constants and the observation's scales are in spec.h (spec.json).

// state: 12 x 6 doubles (x, y, angle, vx, vy, omega per part); out: kObsSize floats.
void write_observation(const double* state, float* out);

// Every RewardTerm (spec.h), at its index.
void write_reward_terms(const double* before, const double* after, double dt, double time_after, bool fell,
                        bool finished, double* out);

}  // namespace qwop
