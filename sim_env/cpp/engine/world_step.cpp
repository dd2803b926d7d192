// One world step: contact updates, island building, the island solver (integration,
// contact and joint velocity iterations, position correction) and sleeping
// (ENGINE.md sections 3, 4 and 5).
#include "engine.h"
#include "engine_util.h"
#include "contact_solver.h"

namespace qwop {

// ---------------------------------------------------------------- step (sections 3, 4, 5)

void World::step(double dt, int32_t velocityIterations, int32_t positionIterations,
                 ContactListener* listener, StepScratch& scratch) {
  const TimeStep step = begin_step(dt, velocityIterations, positionIterations, listener, scratch);
  if (step.dt > 0.0) {
    clear_island_flags();
    solve_islands(step, scratch);
    end_solve(scratch);
  }
  end_step(step);
}

TimeStep World::begin_step(double dt, int32_t velocityIterations, int32_t positionIterations,
                           ContactListener* listener, StepScratch& scratch) {
  if (flags & kWorldNewFixture) {
    find_new_contacts();
    flags &= ~kWorldNewFixture;
  }
  flags |= kWorldLocked;
  scratch.r0Valid = 0;
  scratch.aabb0Valid = 0;
  TimeStep step;
  step.dt = dt;
  step.velocityIterations = velocityIterations;
  step.positionIterations = positionIterations;
  step.inv_dt = dt > 0.0 ? 1.0 / dt : 0.0;
  step.dtRatio = inv_dt0 * dt;
  step.warmStarting = warmStarting;
  collide(listener);
  return step;
}

void World::prefetch() const {
#if defined(__GNUC__) || defined(__clang__)
  auto lines = [](const void* p, size_t n) {
    for (size_t o = 0; o < n; o += 64) __builtin_prefetch(static_cast<const char*>(p) + o);
  };
  lines(bodies, sizeof(bodies));
  lines(joints, sizeof(joints));
  lines(&tree, sizeof(tree));
#endif
}

void World::end_step(const TimeStep& step) {
  if (step.dt > 0.0) inv_dt0 = step.inv_dt;
  flags &= ~kWorldLocked;
}

// The world's bodies and joints are its slots in use (their lists hold exactly those), so
// their flags are cleared slot by slot rather than by following the lists link by link.
void World::clear_island_flags() {
  for (Body& b : bodies) {
    if (b.inUse) b.flags &= ~kBodyIsland;
  }
  for (int32_t c = contactList; c != kNull; c = contacts[c].next) contacts[c].flags &= ~kContactIsland;
  for (RevoluteJoint& j : joints) {
    if (j.inUse) j.islandFlag = false;
  }
}

int32_t World::next_island_seed() const {
  for (int32_t seed = bodyList; seed != kNull; seed = bodies[seed].next) {
    const Body& sb = bodies[seed];
    if (sb.flags & kBodyIsland) continue;
    if ((sb.flags & kBodyAwake) == 0 || (sb.flags & kBodyActive) == 0) continue;
    if (sb.type == kStaticBody) continue;
    return seed;
  }
  return kNull;
}

// The seed loop visits the body list in order and skips flagged bodies, so taking the first
// remaining seed each time visits the seeds the original's single pass does, in its order.
void World::solve_islands(const TimeStep& step, StepScratch& s) {
  for (int32_t seed = next_island_seed(); seed != kNull; seed = next_island_seed()) {
    build_island(seed, s);
    solve_island(step, s);
    release_island(s);
  }
}

void World::build_island(int32_t seed, StepScratch& s) {
  Body& sb = bodies[seed];
  s.bodyCount = s.contactCount = s.jointCount = 0;
  int32_t stackCount = 0;
  s.stack[stackCount++] = seed;
  sb.flags |= kBodyIsland;
  while (stackCount > 0) {
    const int32_t bi = s.stack[--stackCount];
    Body& b = bodies[bi];
    b.islandIndex = s.bodyCount;
    s.bodies[s.bodyCount++] = bi;
    if ((b.flags & kBodyAwake) == 0) set_awake(bi, true);
    if (b.type == kStaticBody) continue;
    for (int32_t e = b.contactList; e != kNull; e = contact_edge(e).next) {
      Contact& c = contacts[e >> 1];
      if (c.flags & kContactIsland) continue;
      if ((c.flags & kContactSensor) || (c.flags & kContactEnabled) == 0 ||
          (c.flags & kContactTouching) == 0) {
        continue;
      }
      s.contacts[s.contactCount++] = e >> 1;
      c.flags |= kContactIsland;
      const int32_t other = contact_edge(e).other;
      if (bodies[other].flags & kBodyIsland) continue;
      s.stack[stackCount++] = other;
      bodies[other].flags |= kBodyIsland;
    }
    for (int32_t e = b.jointList; e != kNull; e = joint_edge(e).next) {
      RevoluteJoint& j = joints[e >> 1];
      if (j.islandFlag) continue;
      const int32_t other = joint_edge(e).other;
      if ((bodies[other].flags & kBodyActive) == 0) continue;
      s.joints[s.jointCount++] = e >> 1;
      j.islandFlag = true;
      if (bodies[other].flags & kBodyIsland) continue;
      s.stack[stackCount++] = other;
      bodies[other].flags |= kBodyIsland;
    }
  }
}

void World::release_island(const StepScratch& s) {
  for (int32_t i = 0; i < s.bodyCount; ++i) {
    Body& b = bodies[s.bodies[i]];
    if (b.type == kStaticBody) b.flags &= ~kBodyIsland;
  }
}

void World::end_solve(StepScratch& s) {
  for (int32_t b = bodyList; b != kNull; b = bodies[b].next) {
    const Body& body = bodies[b];
    if ((body.flags & kBodyAwake) == 0 || (body.flags & kBodyActive) == 0) continue;
    if (body.type == kStaticBody) continue;
    synchronize_fixtures(b, s);
  }
  find_new_contacts();
}


// Waves of joints (engine.h): the waves in order are a sweep order with the same bits, and
// the joints of one wave are solved side by side.
int32_t joint_waves(const World& w, const int32_t* joints, int32_t n, int32_t* order, int32_t* start) {
  int32_t lastWave[kMaxBodies];
  int32_t wave[kMaxJoints];
  int32_t count[kMaxJoints + 1] = {};
  for (int32_t b = 0; b < kMaxBodies; ++b) lastWave[b] = -1;
  int32_t waves = 0;
  for (int32_t i = 0; i < n; ++i) {
    const RevoluteJoint& j = w.joints[joints[i]];
    const int32_t v = 1 + (lastWave[j.bodyA] > lastWave[j.bodyB] ? lastWave[j.bodyA] : lastWave[j.bodyB]);
    wave[i] = lastWave[j.bodyA] = lastWave[j.bodyB] = v;
    ++count[v + 1];
    if (v + 1 > waves) waves = v + 1;
  }
  for (int32_t v = 0; v < waves; ++v) count[v + 1] += count[v];
  for (int32_t v = 0; v <= waves; ++v) start[v] = count[v];
  for (int32_t i = 0; i < n; ++i) order[count[wave[i]]++] = i;
  return waves;
}

void World::plan_joint_waves(StepScratch& s) {
  int32_t order[kMaxJoints];
  const int32_t n = s.jointCount;
  bool same = n == plan.count;
  for (int32_t k = 0; same && k < n; ++k) same = plan.joints[k] == s.joints[k];
  if (same) {
    for (int32_t k = 0; k < n; ++k) order[k] = plan.order[k];
    s.waveCount = plan.waves;
    for (int32_t v = 0; v <= plan.waves; ++v) s.waveStart[v] = plan.start[v];
  } else {
    s.waveCount = joint_waves(*this, s.joints, n, order, s.waveStart);
    if (n >= WavePlan::kMinJoints) {
      // Whole arrays (unused tails cleared): loops bounded by n made GCC 12 warn of writes
      // past them, which n <= kMaxJoints rules out.
      for (int32_t k = 0; k < kMaxJoints; ++k) {
        plan.joints[k] = k < n ? static_cast<int8_t>(s.joints[k]) : int8_t{-1};
        plan.order[k] = k < n ? static_cast<int8_t>(order[k]) : int8_t{-1};
      }
      for (int32_t v = 0; v <= kMaxJoints; ++v) {
        plan.start[v] = v <= s.waveCount ? static_cast<int8_t>(s.waveStart[v]) : int8_t{0};
      }
      plan.waves = static_cast<int8_t>(s.waveCount);
      plan.count = static_cast<int8_t>(n);
    }
  }
  for (int32_t k = 0; k < n; ++k) {
    RevoluteJoint& j = joints[s.joints[order[k]]];
    s.waveJoints[k] = &j;
    s.waveData[k] = &s.jointData[order[k]];
    s.waveBodies[2 * k] = &bodies[j.bodyA];
    s.waveBodies[2 * k + 1] = &bodies[j.bodyB];
  }
}

void World::solve_island(const TimeStep& step, StepScratch& s) {
  island_prepare(step, s);
  plan_joint_waves(s);
  for (int32_t it = 0; it < step.velocityIterations; ++it) {
    joints_solve_velocity(s, step);
    contact_solver_solve_velocity(*this, s);
  }
  island_integrate(step, s);
  for (int32_t it = 0; it < step.positionIterations; ++it) {
    const bool contactsOkay = contact_solver_solve_position(*this, s, settings::kContactBaumgarte);
    const bool jointsOkay = joints_solve_position(*this, s);
    if (contactsOkay && jointsOkay) break;
  }
  island_sleep(step, s);
}

void World::island_prepare(const TimeStep& step, StepScratch& s, bool with_joints) {
  for (int32_t i = 0; i < s.bodyCount; ++i) {
    Body& b = bodies[s.bodies[i]];
    if (b.type != kDynamicBody) continue;
    b.linearVelocity.x += step.dt * (gravity.x + b.invMass * 0.0);
    b.linearVelocity.y += step.dt * (gravity.y + b.invMass * 0.0);
    b.angularVelocity += step.dt * b.invI * b.torque;
    const double ld = b2clamp(1.0 - step.dt * b.linearDamping, 0.0, 1.0);
    b.linearVelocity.x *= ld;
    b.linearVelocity.y *= ld;
    b.angularVelocity *= b2clamp(1.0 - step.dt * b.angularDamping, 0.0, 1.0);
  }
  contact_solver_initialize(*this, s);
  contact_solver_warm_start(*this, s, step);
  if (!with_joints) return;
  for (int32_t i = 0; i < s.jointCount; ++i) joint_init_velocity(*this, joints[s.joints[i]], s.jointData[i], step);
}

void World::island_integrate(const TimeStep& step, StepScratch& s) {
  contact_solver_finalize(*this, s);
  Body* moved[kMaxBodies];
  int32_t movedCount = 0;
  for (int32_t i = 0; i < s.bodyCount; ++i) {
    const int32_t bi = s.bodies[i];
    Body& b = bodies[bi];
    if (b.type == kStaticBody) continue;
    const double translationX = step.dt * b.linearVelocity.x;
    const double translationY = step.dt * b.linearVelocity.y;
    if (translationX * translationX + translationY * translationY > settings::kMaxTranslationSquared) {
      Vec2& v = b.linearVelocity;
      const double length = std::sqrt(v.x * v.x + v.y * v.y);
      if (length >= std::numeric_limits<double>::denorm_min()) {
        const double invLength = 1.0 / length;
        v.x *= invLength;
        v.y *= invLength;
      }
      v.x *= settings::kMaxTranslation * step.inv_dt;
      v.y *= settings::kMaxTranslation * step.inv_dt;
    }
    const double rotation = step.dt * b.angularVelocity;
    if (rotation * rotation > settings::kMaxRotationSquared) {
      if (b.angularVelocity < 0.0) {
        b.angularVelocity = -settings::kMaxRotation * step.inv_dt;
      } else {
        b.angularVelocity = settings::kMaxRotation * step.inv_dt;
      }
    }
    b.sweep.c0 = b.sweep.c;
    b.sweep.a0 = b.sweep.a;
    s.R0[bi] = b.xf.R;
    s.R0Angle[bi] = b.xfAngle;
    s.r0Valid |= 1u << bi;
    if (b.fixture.aabbAtXf) {
      s.P0[bi] = b.xf.position;
      s.aabb0Valid |= 1u << bi;
      b.fixture.aabbAtXf = false;
    }
    b.sweep.c.x += step.dt * b.linearVelocity.x;
    b.sweep.c.y += step.dt * b.linearVelocity.y;
    b.sweep.a += step.dt * b.angularVelocity;
    moved[movedCount++] = &b;
  }
  // The bodies' new rotations four at a time (trig::sincos4), the rest one by one.
  int32_t i = 0;
  for (; i + 4 <= movedCount; i += 4) {
    const trig::SinCos4 r = trig::sincos4(trigVariant, moved[i]->sweep.a, moved[i + 1]->sweep.a,
                                          moved[i + 2]->sweep.a, moved[i + 3]->sweep.a);
    for (int k = 0; k < 4; ++k) set_transform(*moved[i + k], r.s[k], r.c[k]);
  }
  for (; i < movedCount; ++i) sync_transform(*this, static_cast<int32_t>(moved[i] - bodies));
}

void World::island_sleep(const TimeStep& step, StepScratch& s) {
  if (allowSleep) {
    double minSleepTime = kMaxValue;
    const double linTolSqr = settings::kLinearSleepTolerance * settings::kLinearSleepTolerance;
    const double angTolSqr = settings::kAngularSleepTolerance * settings::kAngularSleepTolerance;
    for (int32_t i = 0; i < s.bodyCount; ++i) {
      Body& b = bodies[s.bodies[i]];
      if (b.type == kStaticBody) continue;
      if ((b.flags & kBodyAllowSleep) == 0) {
        b.sleepTime = 0.0;
        minSleepTime = 0.0;
      }
      if ((b.flags & kBodyAllowSleep) == 0 || b.angularVelocity * b.angularVelocity > angTolSqr ||
          (b.linearVelocity.x * b.linearVelocity.x + b.linearVelocity.y * b.linearVelocity.y) > linTolSqr) {
        b.sleepTime = 0.0;
        minSleepTime = 0.0;
      } else {
        b.sleepTime += step.dt;
        minSleepTime = b2min(minSleepTime, b.sleepTime);
      }
    }
    if (minSleepTime >= settings::kTimeToSleep) {
      for (int32_t i = 0; i < s.bodyCount; ++i) set_awake(s.bodies[i], false);
    }
  }
}

}  // namespace qwop
