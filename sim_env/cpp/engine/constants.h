// A world's capacities and the engine's settings (ENGINE.md section 1).
#pragma once

#include <cstdint>

namespace qwop {

// Capacities of a world's pools (bodies, joints and tree nodes are in every game's block, so
// every slot costs memory in every game; contact slots are allocated as a game needs them).
// QWOP has 18 bodies (3 track tiles, the block, the hurdle's two and the runner's 12) plus
// the engine's ground body, and 12 joints; a reset destroys the runner before it builds the
// new one, so these are never exceeded. 18 proxies make at most 35 tree nodes; a step moves
// each proxy at most twice. The most contacts seen at once over every trace and thousands of
// random runs is 13, so 48 leaves a wide margin. Exceeding a capacity sets World::overflow, which the bindings
// report as an error instead of a wrong state.
constexpr int kMaxBodies = 19;
constexpr int kMaxJoints = 12;
constexpr int kMaxContacts = 48;
constexpr int kMaxNodes = 36;
constexpr int kMaxMoveBuffer = 48;
constexpr int kNull = -1;
// Body, contact, joint and node indices and edge codes (slot * 2 + side) are stored in int8_t.
static_assert(kMaxBodies <= 127 && 2 * kMaxContacts <= 127 && 2 * kMaxJoints <= 127 && kMaxNodes <= 127,
              "a world's indices must fit the int8_t fields that store them");

// ---- settings (ENGINE.md section 1) ----
namespace settings {
constexpr double kPi = 3.141592653589793;
constexpr double kAabbExtension = 0.1;
constexpr double kAabbMultiplier = 2.0;
constexpr double kLinearSlop = 0.005;
constexpr double kVelocityThreshold = 1.0;
constexpr double kMaxLinearCorrection = 0.2;
constexpr double kMaxTranslation = 2.0;
constexpr double kMaxTranslationSquared = 4.0;
constexpr double kContactBaumgarte = 1.0;
constexpr double kTimeToSleep = 0.5;
constexpr double kLinearSleepTolerance = 0.01;
// Evaluated at run time in the same expression order as the original.
extern const double kAngularSlop;
extern const double kMaxAngularCorrection;
extern const double kMaxRotation;
extern const double kMaxRotationSquared;
extern const double kAngularSleepTolerance;
}  // namespace settings

}  // namespace qwop
