// Four worlds stepped in lock step (lockstep.h): each world collides and builds its island on
// its own, then the four islands are solved together, the joints in SIMD lanes and the
// contacts world by world, each world keeping its own order of joints and contacts.
#include "lockstep.h"

#include <initializer_list>

namespace qwop {

namespace {

// The per-joint and per-body constants the lanes read from the first world are the same in
// every world, and every world solves the same joints in the same order.
bool lanes_agree(World* const w[kLanes], StepScratch* const s[kLanes]) {
  const World& w0 = *w[0];
  const StepScratch& s0 = *s[0];
  for (int g = 1; g < kLanes; ++g) {
    const World& wg = *w[g];
    const StepScratch& sg = *s[g];
    if (wg.trigVariant != w0.trigVariant || wg.warmStarting != w0.warmStarting || sg.jointCount != s0.jointCount) {
      return false;
    }
    for (int32_t i = 0; i < s0.jointCount; ++i) {
      const int32_t j = s0.joints[i];
      if (sg.joints[i] != j) return false;
      const RevoluteJoint& a = w0.joints[j];
      const RevoluteJoint& b = wg.joints[j];
      if (a.bodyA != b.bodyA || a.bodyB != b.bodyB || a.enableLimit != b.enableLimit ||
          a.enableMotor != b.enableMotor || a.referenceAngle != b.referenceAngle ||
          a.localAnchor1.x != b.localAnchor1.x || a.localAnchor1.y != b.localAnchor1.y ||
          a.localAnchor2.x != b.localAnchor2.x || a.localAnchor2.y != b.localAnchor2.y) {
        return false;
      }
      for (const int32_t k : {a.bodyA, a.bodyB}) {
        const Body& p = w0.bodies[k];
        const Body& q = wg.bodies[k];
        if (p.invMass != q.invMass || p.invI != q.invI || p.sweep.localCenter.x != q.sweep.localCenter.x ||
            p.sweep.localCenter.y != q.sweep.localCenter.y) {
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
      const int32_t seed = wg.next_island_seed();
      if (seed != kNull) {
        wg.build_island(seed, *s[g]);
        built[g] = true;
      }
    }
    // Together only when each world has exactly one island.
    together = together && built[g] && wg.next_island_seed() == kNull;
  }
  together = together && lanes_agree(w, s);

  if (!together) {
    for (int g = 0; g < kLanes; ++g) {
      World& wg = *w[g];
      if (step[g].dt > 0.0) {
        if (built[g]) {
          wg.solve_island(step[g], *s[g]);
          wg.release_island(*s[g]);
        }
        wg.solve_islands(step[g], *s[g]);
        wg.end_solve(*s[g]);
      }
      wg.end_step(step[g]);
    }
    return false;
  }

  solve_islands_x4(w, s, step);
  for (int g = 0; g < kLanes; ++g) {
    World& wg = *w[g];
    wg.island_sleep(step[g], *s[g]);
    wg.release_island(*s[g]);
    wg.end_solve(*s[g]);
    wg.end_step(step[g]);
  }
  return true;
}

}  // namespace qwop
