// Four worlds stepped in lock step (lockstep.h): each world collides and builds its islands on
// its own, then the four lane islands are solved together, the lane joints in SIMD lanes and
// the contacts and other joints world by world, each world keeping its own order of islands,
// joints and contacts.
#include "lockstep.h"

#include <bitset>
#include <initializer_list>

#include "engine_util.h"

namespace qwop {

namespace {

// Splits the island's joints into groups that share no body (bodies linked by joints, any
// body type): the first group, in island order, of at least kLaneIslandMinJoints joints goes
// to the lanes, the rest are solved world by world. A joint reads and writes only its two
// bodies and itself, and every sweep solves all joints between the contacts, so solving one
// group's joints before another's gives the same bits as the island's interleaved order
// (each group keeps its own order). Returns whether there is a lane group.
bool split_lane_joints(const World& w, StepScratch& s) {
  static_assert(kMaxBodies <= 32 && kMaxJoints <= 32, "a bit per body and per joint");
  uint32_t bodies[kMaxJoints];  // each island joint's two bodies as bits
  for (int32_t i = 0; i < s.jointCount; ++i) {
    const RevoluteJoint& j = w.joints[s.joints[i]];
    bodies[i] = (1u << j.bodyA) | (1u << j.bodyB);
  }
  uint32_t seen = 0, lane = 0;  // island joints as bits: grouped so far, the lane group
  for (int32_t first = 0; first < s.jointCount && lane == 0; ++first) {
    if ((seen >> first) & 1u) continue;
    // The group of `first`: joints that share a body with it, transitively.
    uint32_t group = 1u << first, reach = bodies[first];
    for (bool grew = true; grew;) {
      grew = false;
      for (int32_t i = first + 1; i < s.jointCount; ++i) {
        if (!((group >> i) & 1u) && (bodies[i] & reach)) {
          group |= 1u << i;
          reach |= bodies[i];
          grew = true;
        }
      }
    }
    seen |= group;
    if (static_cast<int32_t>(std::bitset<32>(group).count()) >= kLaneIslandMinJoints) lane = group;
  }
  s.laneJointCount = s.otherJointCount = 0;
  for (int32_t i = 0; i < s.jointCount; ++i) {
    if ((lane >> i) & 1u) {
      s.laneJoints[s.laneJointCount++] = i;
    } else {
      s.otherJoints[s.otherJointCount++] = i;
    }
  }
  return lane != 0;
}

// The per-joint and per-body constants the lanes read from the first world have the same
// bits in every world (equal values are not enough: -0 and +0 can round differently), and
// every world solves the same lane joints in the same order.
bool lanes_agree(World* const w[kLanes], StepScratch* const s[kLanes]) {
  const World& w0 = *w[0];
  const StepScratch& s0 = *s[0];
  for (int g = 1; g < kLanes; ++g) {
    const World& wg = *w[g];
    const StepScratch& sg = *s[g];
    if (wg.trigVariant != w0.trigVariant || wg.warmStarting != w0.warmStarting ||
        sg.laneJointCount != s0.laneJointCount) {
      return false;
    }
    for (int32_t i = 0; i < s0.laneJointCount; ++i) {
      const int32_t j = s0.joints[s0.laneJoints[i]];
      if (sg.joints[sg.laneJoints[i]] != j) return false;
      const RevoluteJoint& a = w0.joints[j];
      const RevoluteJoint& b = wg.joints[j];
      if (a.bodyA != b.bodyA || a.bodyB != b.bodyB || a.enableLimit != b.enableLimit ||
          a.enableMotor != b.enableMotor || !same_bits(a.referenceAngle, b.referenceAngle) ||
          !same_bits(a.localAnchor1.x, b.localAnchor1.x) || !same_bits(a.localAnchor1.y, b.localAnchor1.y) ||
          !same_bits(a.localAnchor2.x, b.localAnchor2.x) || !same_bits(a.localAnchor2.y, b.localAnchor2.y)) {
        return false;
      }
      for (const int32_t k : {a.bodyA, a.bodyB}) {
        const Body& p = w0.bodies[k];
        const Body& q = wg.bodies[k];
        if (!same_bits(p.invMass, q.invMass) || !same_bits(p.invI, q.invI) ||
            !same_bits(p.sweep.localCenter.x, q.sweep.localCenter.x) ||
            !same_bits(p.sweep.localCenter.y, q.sweep.localCenter.y)) {
          return false;
        }
      }
    }
  }
  return true;
}

}  // namespace

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
bool lockstep_available() {
  static const bool ok = [] {
    __builtin_cpu_init();
    return trig::cpu_extensions_enabled() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return ok;
}
#else
bool lockstep_available() { return false; }
void solve_islands_x4(World* const[kLanes], StepScratch* const[kLanes], const TimeStep[kLanes]) {}
#endif

// Each world's islands are solved in its own seed order, as World::step solves them: the
// islands before its lane island (the first with a lane group of joints) on their own, then
// the lane island (its lane group in the lanes when the four agree, else all of it on its
// own), then the rest on their own. Worlds are independent, so only each world's own order
// matters.
bool step_worlds_lockstep(World* const w[kLanes], ContactListener* const listeners[kLanes],
                          StepScratch* const s[kLanes], double dt, int32_t vi, int32_t pi) {
  TimeStep step[kLanes];
  bool built[kLanes];
  bool together = lockstep_available() && dt > 0.0;
  for (int g = 0; g < kLanes; ++g) {
    World& wg = *w[g];
    step[g] = wg.begin_step(dt, vi, pi, listeners[g], *s[g]);
    built[g] = false;
    if (step[g].dt > 0.0) {
      wg.clear_island_flags();
      for (int32_t seed = wg.next_island_seed(); seed != kNull; seed = wg.next_island_seed()) {
        wg.build_island(seed, *s[g]);
        if (split_lane_joints(wg, *s[g])) {
          built[g] = true;
          break;
        }
        wg.solve_island(step[g], *s[g]);
        wg.release_island(*s[g]);
      }
    }
    together = together && built[g];
  }
  together = together && lanes_agree(w, s);

  if (together) {
    solve_islands_x4(w, s, step);
    for (int g = 0; g < kLanes; ++g) w[g]->island_sleep(step[g], *s[g]);
  }
  for (int g = 0; g < kLanes; ++g) {
    World& wg = *w[g];
    if (step[g].dt > 0.0) {
      if (built[g]) {
        if (!together) wg.solve_island(step[g], *s[g]);
        wg.release_island(*s[g]);
      }
      wg.solve_islands(step[g], *s[g]);
      wg.end_solve(*s[g]);
    }
    wg.end_step(step[g]);
  }
  return together;
}

}  // namespace qwop
