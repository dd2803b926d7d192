// The world and its bodies: creation, fixtures, mass, awake and bullet flags, torque,
// placement and fixture synchronisation; joint and body creation and destruction
// (ENGINE.md sections 3 and 14), and the angular settings derived from pi.
#include "engine.h"
#include "engine_util.h"

namespace qwop {

namespace settings {
const double kAngularSlop = 0.011111111111111112 * kPi;
const double kMaxAngularCorrection = 0.044444444444444446 * kPi;
const double kMaxRotation = 0.5 * kPi;
const double kMaxRotationSquared = ((0.5 * kPi) * 0.5) * kPi;
const double kAngularSleepTolerance = 0.011111111111111112 * kPi;
}  // namespace settings

// ---------------------------------------------------------------- world (section 3)

void World::init(Vec2 g, bool sleep, trig::Variant variant) {
  zero_block<WorldState>(*this);
  contacts.clear();
  trigVariant = variant;
  gravity = g;
  allowSleep = sleep;
  warmStarting = true;
  flags = 0;
  inv_dt0 = 0.0;
  bodyList = jointList = contactList = kNull;
  tree.root = kNull;
  tree.freeList = kNull;
  tree.nodeCount = 0;
  moveCount = 0;
  plan.count = -1;
  overflow = false;
  BodyDef ground;  // the engine's own ground body, always last in the body list
  create_body(ground);
}

int32_t World::create_body(const BodyDef& def) {
  if (flags & kWorldLocked) return kNull;
  const int32_t idx = first_free_slot(bodies);
  if (idx == kNull) {
    overflow = true;
    return kNull;
  }
  Body& b = bodies[idx];
  std::memset(static_cast<void*>(&b), 0, sizeof(Body));
  b.inUse = true;
  b.flags = 0;
  if (def.bullet) b.flags |= kBodyBullet;
  if (def.fixedRotation) b.flags |= kBodyFixedRotation;
  if (def.allowSleep) b.flags |= kBodyAllowSleep;
  if (def.awake) b.flags |= kBodyAwake;
  if (def.active) b.flags |= kBodyActive;
  b.xf.position = def.position;
  b.xf.R.set_angle(def.angle, trigVariant);
  b.xfAngle = def.angle;
  b.sweep.localCenter = {0.0, 0.0};
  b.sweep.a0 = b.sweep.a = def.angle;
  const Mat22& R = b.xf.R;
  const Vec2& lc = b.sweep.localCenter;
  b.sweep.c.x = R.col1.x * lc.x + R.col2.x * lc.y;
  b.sweep.c.y = R.col1.y * lc.x + R.col2.y * lc.y;
  b.sweep.c.x += b.xf.position.x;
  b.sweep.c.y += b.xf.position.y;
  b.sweep.c0 = b.sweep.c;
  b.jointList = kNull;
  b.contactList = kNull;
  b.linearDamping = def.linearDamping;
  b.angularDamping = def.angularDamping;
  b.torque = 0.0;
  b.sleepTime = 0.0;
  b.type = static_cast<int8_t>(def.type);
  if (b.type == kDynamicBody) {
    b.mass = 1.0;
    b.invMass = 1.0;
  } else {
    b.mass = 0.0;
    b.invMass = 0.0;
  }
  b.I = 0.0;
  b.invI = 0.0;
  b.inertiaScale = def.inertiaScale;
  b.userData = def.userData;
  b.fixture.present = false;
  b.fixture.proxy = kNull;
  b.islandIndex = 0;
  b.prev = kNull;
  b.next = bodyList;
  if (bodyList != kNull) bodies[bodyList].prev = idx;
  bodyList = idx;
  ++bodyCount;
  return idx;
}

void World::create_fixture(int32_t bi, const FixtureDef& def) {
  if (flags & kWorldLocked) return;
  Body& b = bodies[bi];
  Fixture& f = b.fixture;
  f.hx = def.hx;
  f.hy = def.hy;
  f.density = def.density;
  f.friction = def.friction;
  f.restitution = def.restitution;
  f.filter = def.filter;
  f.isSensor = def.isSensor;
  f.proxy = kNull;
  f.present = true;
  f.aabbAtXf = false;
  if (b.flags & kBodyActive) {
    f.shape().compute_aabb(f.aabb, b.xf);
    f.proxy = create_proxy(f.aabb, bi);
  }
  if (f.density > 0.0) reset_mass_data(bi);
  flags |= kWorldNewFixture;
}

void World::reset_mass_data(int32_t bi) {
  Body& b = bodies[bi];
  b.mass = 0.0;
  b.invMass = 0.0;
  b.I = 0.0;
  b.invI = 0.0;
  b.sweep.localCenter = {0.0, 0.0};
  if (b.type == kStaticBody || b.type == kKinematicBody) return;
  Vec2 center{0.0, 0.0};
  if (b.fixture.present && b.fixture.density != 0.0) {
    double m;
    Vec2 c;
    double I;
    b.fixture.shape().compute_mass(b.fixture.density, m, c, I);
    b.mass += m;
    center.x += c.x * m;
    center.y += c.y * m;
    b.I += I;
  }
  if (b.mass > 0.0) {
    b.invMass = 1.0 / b.mass;
    center.x *= b.invMass;
    center.y *= b.invMass;
  } else {
    b.mass = 1.0;
    b.invMass = 1.0;
  }
  if (b.I > 0.0 && (b.flags & kBodyFixedRotation) == 0) {
    b.I -= b.mass * (center.x * center.x + center.y * center.y);
    b.I *= b.inertiaScale;
    b.invI = 1.0 / b.I;
  } else {
    b.I = 0.0;
    b.invI = 0.0;
  }
  const Vec2 oldCenter = b.sweep.c;
  b.sweep.localCenter = center;
  // MulX: (R v) + position
  const Mat22& R = b.xf.R;
  Vec2 c0;
  c0.x = (R.col1.x * center.x + R.col2.x * center.y) + b.xf.position.x;
  c0.y = (R.col1.y * center.x + R.col2.y * center.y) + b.xf.position.y;
  b.sweep.c0 = c0;
  b.sweep.c = c0;
  b.linearVelocity.x += b.angularVelocity * (-(b.sweep.c.y - oldCenter.y));
  b.linearVelocity.y += b.angularVelocity * (+(b.sweep.c.x - oldCenter.x));
}

void World::set_awake(int32_t bi, bool flag) {
  Body& b = bodies[bi];
  if (flag) {
    b.flags |= kBodyAwake;
    b.sleepTime = 0.0;
  } else {
    b.flags &= ~kBodyAwake;
    b.sleepTime = 0.0;
    b.linearVelocity = {0.0, 0.0};
    b.angularVelocity = 0.0;
    b.torque = 0.0;
  }
}

void World::set_bullet(int32_t bi, bool flag) {
  if (flag) {
    bodies[bi].flags |= kBodyBullet;
  } else {
    bodies[bi].flags &= ~kBodyBullet;
  }
}

void World::apply_torque(int32_t bi, double t) {
  Body& b = bodies[bi];
  if (b.type != kDynamicBody) return;
  if ((b.flags & kBodyAwake) == 0) set_awake(bi, true);
  b.torque += t;
}

void World::set_position_and_angle(int32_t bi, Vec2 p, double angle) {
  if (flags & kWorldLocked) return;
  Body& b = bodies[bi];
  set_body_rotation(b, angle, trigVariant);
  b.xf.position = p;
  const Mat22& R = b.xf.R;
  const Vec2& lc = b.sweep.localCenter;
  b.sweep.c.x = R.col1.x * lc.x + R.col2.x * lc.y;
  b.sweep.c.y = R.col1.y * lc.x + R.col2.y * lc.y;
  b.sweep.c.x += b.xf.position.x;
  b.sweep.c.y += b.xf.position.y;
  b.sweep.c0 = b.sweep.c;
  b.sweep.a0 = b.sweep.a = angle;
  if (b.fixture.present) synchronize_fixture(bi, b.xf, false);
  find_new_contacts();
}

void World::synchronize_fixtures(int32_t bi, const StepScratch& s) {
  Body& b = bodies[bi];
  Transform xf1;
  const bool r0 = (s.r0Valid >> bi & 1u) && same_bits(b.sweep.a0, s.R0Angle[bi]);
  if (r0) {
    xf1.R = s.R0[bi];
  } else {
    xf1.R.set_angle(b.sweep.a0, trigVariant);
  }
  const Vec2& lc = b.sweep.localCenter;
  xf1.position.x = b.sweep.c0.x - (xf1.R.col1.x * lc.x + xf1.R.col2.x * lc.y);
  xf1.position.y = b.sweep.c0.y - (xf1.R.col1.y * lc.x + xf1.R.col2.y * lc.y);
  // xf1 is the transform the step started from, bit for bit (its rotation, and the same
  // position), when the fixture's AABB was of that transform: the AABB is then reused.
  const bool aabb1Known = r0 && (s.aabb0Valid >> bi & 1u) && same_bits(xf1.position.x, s.P0[bi].x) &&
                          same_bits(xf1.position.y, s.P0[bi].y);
  if (b.fixture.present) synchronize_fixture(bi, xf1, aabb1Known);
}

// The swept AABB from xf1 to the body's transform xf; aabb1Known: the fixture's AABB is
// xf1's.
void World::synchronize_fixture(int32_t bi, const Transform& xf1, bool aabb1Known) {
  const Transform& xf2 = bodies[bi].xf;
  Fixture& f = bodies[bi].fixture;
  f.aabbAtXf = false;
  if (f.proxy == kNull) return;
  AABB a1, swept;
  if (aabb1Known) {
    a1 = f.aabb;
  } else {
    box_aabb(a1, f.hx, f.hy, xf1);
  }
  box_aabb(f.aabb, f.hx, f.hy, xf2);
  f.aabbAtXf = true;
  aabb_combine(swept, a1, f.aabb);
  const Vec2 d{xf2.position.x - xf1.position.x, xf2.position.y - xf1.position.y};
  move_proxy(f.proxy, swept, d);
}

// ---------------------------------------------------------------- joints (section 3, 14)

int32_t World::create_joint(const RevoluteJointDef& def) {
  const int32_t idx = first_free_slot(joints);
  if (idx == kNull) {
    overflow = true;
    return kNull;
  }
  plan.count = -1;
  RevoluteJoint& j = joints[idx];
  std::memset(static_cast<void*>(&j), 0, sizeof(RevoluteJoint));
  j.inUse = true;
  j.bodyA = def.bodyA;
  j.bodyB = def.bodyB;
  j.collideConnected = def.collideConnected;
  j.islandFlag = false;
  j.localAnchor1 = def.localAnchorA;
  j.localAnchor2 = def.localAnchorB;
  j.referenceAngle = def.referenceAngle;
  j.pivotForce = {0.0, 0.0};
  j.motorForce = 0.0;
  j.limitForce = 0.0;
  j.limitPositionImpulse = 0.0;
  j.lowerAngle = def.lowerAngle;
  j.upperAngle = def.upperAngle;
  j.maxMotorTorque = def.maxMotorTorque;
  j.motorSpeed = def.motorSpeed;
  j.enableLimit = def.enableLimit;
  j.enableMotor = def.enableMotor;
  j.limitState = kInactiveLimit;

  j.prev = kNull;
  j.next = jointList;
  if (jointList != kNull) joints[jointList].prev = idx;
  jointList = idx;
  ++jointCount;

  const int32_t codeA = idx * 2, codeB = idx * 2 + 1;
  Body& A = bodies[j.bodyA];
  Body& B = bodies[j.bodyB];
  j.edgeA.other = j.bodyB;
  j.edgeA.prev = kNull;
  j.edgeA.next = A.jointList;
  if (A.jointList != kNull) joint_edge(A.jointList).prev = codeA;
  A.jointList = codeA;
  j.edgeB.other = j.bodyA;
  j.edgeB.prev = kNull;
  j.edgeB.next = B.jointList;
  if (B.jointList != kNull) joint_edge(B.jointList).prev = codeB;
  B.jointList = codeB;

  if (!def.collideConnected) flag_contacts_for_filtering(def.bodyA, def.bodyB);
  return idx;
}

void World::flag_contacts_for_filtering(int32_t bodyA, int32_t bodyB) {
  for (int32_t e = bodies[bodyB].contactList; e != kNull; e = contact_edge(e).next) {
    if (contact_edge(e).other == bodyA) contacts[e >> 1].flags |= kContactFilter;
  }
}

void World::destroy_joint(int32_t ji) {
  plan.count = -1;
  RevoluteJoint& j = joints[ji];
  const bool collideConnected = j.collideConnected;
  if (j.prev != kNull) joints[j.prev].next = j.next;
  if (j.next != kNull) joints[j.next].prev = j.prev;
  if (ji == jointList) jointList = j.next;
  const int32_t bA = j.bodyA, bB = j.bodyB;
  set_awake(bA, true);
  set_awake(bB, true);
  const int32_t codeA = ji * 2, codeB = ji * 2 + 1;
  if (j.edgeA.prev != kNull) joint_edge(j.edgeA.prev).next = j.edgeA.next;
  if (j.edgeA.next != kNull) joint_edge(j.edgeA.next).prev = j.edgeA.prev;
  if (codeA == bodies[bA].jointList) bodies[bA].jointList = j.edgeA.next;
  j.edgeA.prev = j.edgeA.next = kNull;
  if (j.edgeB.prev != kNull) joint_edge(j.edgeB.prev).next = j.edgeB.next;
  if (j.edgeB.next != kNull) joint_edge(j.edgeB.next).prev = j.edgeB.prev;
  if (codeB == bodies[bB].jointList) bodies[bB].jointList = j.edgeB.next;
  j.edgeB.prev = j.edgeB.next = kNull;
  j.inUse = false;
  --jointCount;
  if (!collideConnected) flag_contacts_for_filtering(bA, bB);
}

void World::destroy_body(int32_t bi) {
  if (flags & kWorldLocked) return;
  Body& b = bodies[bi];
  int32_t je = b.jointList;
  while (je != kNull) {
    const int32_t je0 = je;
    je = joint_edge(je).next;
    destroy_joint(je0 >> 1);
  }
  int32_t ce = b.contactList;
  while (ce != kNull) {
    const int32_t ce0 = ce;
    ce = contact_edge(ce).next;
    destroy_contact(ce0 >> 1);
  }
  b.contactList = kNull;
  if (b.fixture.present) {
    if (b.fixture.proxy != kNull) {
      destroy_proxy(b.fixture.proxy);
      b.fixture.proxy = kNull;
    }
    b.fixture.present = false;
  }
  if (b.prev != kNull) bodies[b.prev].next = b.next;
  if (b.next != kNull) bodies[b.next].prev = b.prev;
  if (bi == bodyList) bodyList = b.next;
  b.inUse = false;
  --bodyCount;
}

}  // namespace qwop
