// World, bodies, broad phase, contacts and island solver of the QWOP engine port.
// Section numbers refer to ../shared/qwop-reference/ENGINE.md.
#include "engine.h"

#include <cmath>
#include <limits>

namespace qwop {

namespace settings {
const double kAngularSlop = 0.011111111111111112 * kPi;
const double kMaxAngularCorrection = 0.044444444444444446 * kPi;
const double kMaxRotation = 0.5 * kPi;
const double kMaxRotationSquared = ((0.5 * kPi) * 0.5) * kPi;
const double kAngularSleepTolerance = 0.011111111111111112 * kPi;
}  // namespace settings

namespace {

constexpr double kMaxValue = std::numeric_limits<double>::max();

// JavaScript Math.min / Math.max (used only by AABB combine).
inline double js_min(double a, double b) {
  if (a < b) return a;
  if (b < a) return b;
  if (a != a || b != b) return std::numeric_limits<double>::quiet_NaN();
  return std::signbit(a) ? a : b;
}
inline double js_max(double a, double b) {
  if (a > b) return a;
  if (b > a) return b;
  if (a != a || b != b) return std::numeric_limits<double>::quiet_NaN();
  return std::signbit(a) ? b : a;
}
// B2Math helpers (section 2).
inline double b2min(double a, double b) { return b > a ? a : b; }
inline double b2max(double a, double b) { return a > b ? a : b; }
inline double b2clamp(double a, double lo, double hi) { return lo > a ? lo : (a > hi ? hi : a); }
inline double b2abs(double a) { return a > 0 ? a : -a; }

inline bool same_bits(double a, double b) {
  uint64_t x, y;
  std::memcpy(&x, &a, 8);
  std::memcpy(&y, &b, 8);
  return x == y;
}

// Sets b.xf.R = R(angle), reusing the stored rotation when the angle is bit-identical.
inline void set_body_rotation(Body& b, double angle) {
  if (same_bits(angle, b.xfAngle)) return;
  b.xf.R.set_angle(angle);
  b.xfAngle = angle;
}

inline void aabb_combine(AABB& out, const AABB& a, const AABB& b) {
  out.lower.x = js_min(a.lower.x, b.lower.x);
  out.lower.y = js_min(a.lower.y, b.lower.y);
  out.upper.x = js_max(a.upper.x, b.upper.x);
  out.upper.y = js_max(a.upper.y, b.upper.y);
}
inline bool aabb_overlap(const AABB& a, const AABB& other) {
  const double d1x = other.lower.x - a.upper.x;
  const double d1y = other.lower.y - a.upper.y;
  const double d2x = a.lower.x - other.upper.x;
  const double d2y = a.lower.y - other.upper.y;
  // The original's four tests, evaluated without short-circuit branches (same result).
  return !((d1x > 0) | (d1y > 0) | (d2x > 0) | (d2y > 0));
}
inline bool aabb_contains(const AABB& a, const AABB& inner) {
  bool r = true;
  r = r && a.lower.x <= inner.lower.x;
  r = r && a.lower.y <= inner.lower.y;
  r = r && inner.upper.x <= a.upper.x;
  r = r && inner.upper.y <= a.upper.y;
  return r;
}

// pos + (R v)
inline Vec2 mul_x(const Transform& t, const Vec2& v) {
  return {t.position.x + (t.R.col1.x * v.x + t.R.col2.x * v.y),
          t.position.y + (t.R.col1.y * v.x + t.R.col2.y * v.y)};
}

}  // namespace

// ---------------------------------------------------------------- shapes (section 13)

void PolygonShape::set_as_box(double hx, double hy) {
  vertices[0] = {-hx, -hy};
  vertices[1] = {hx, -hy};
  vertices[2] = {hx, hy};
  vertices[3] = {-hx, hy};
  normals[0] = {0.0, -1.0};
  normals[1] = {1.0, 0.0};
  normals[2] = {0.0, 1.0};
  normals[3] = {-1.0, 0.0};
  centroid = {0.0, 0.0};
  radius = settings::kLinearSlop;
}

void PolygonShape::compute_aabb(AABB& out, const Transform& xf) const {
  const Mat22& R = xf.R;
  double lowerX = xf.position.x + (R.col1.x * vertices[0].x + R.col2.x * vertices[0].y);
  double lowerY = xf.position.y + (R.col1.y * vertices[0].x + R.col2.y * vertices[0].y);
  double upperX = lowerX;
  double upperY = lowerY;
  for (int i = 1; i < 4; ++i) {
    const double vX = xf.position.x + (R.col1.x * vertices[i].x + R.col2.x * vertices[i].y);
    const double vY = xf.position.y + (R.col1.y * vertices[i].x + R.col2.y * vertices[i].y);
    lowerX = lowerX < vX ? lowerX : vX;
    lowerY = lowerY < vY ? lowerY : vY;
    upperX = upperX > vX ? upperX : vX;
    upperY = upperY > vY ? upperY : vY;
  }
  out.lower.x = lowerX - radius;
  out.lower.y = lowerY - radius;
  out.upper.x = upperX + radius;
  out.upper.y = upperY + radius;
}

void PolygonShape::compute_mass(double density, double& mass, Vec2& center, double& inertia) const {
  double cx = 0.0, cy = 0.0, area = 0.0, I = 0.0;
  const double p1X = 0.0, p1Y = 0.0;
  const double k_inv3 = 0.3333333333333333;
  for (int i = 0; i < 4; ++i) {
    const Vec2 p2 = vertices[i];
    const Vec2 p3 = i + 1 < 4 ? vertices[i + 1] : vertices[0];
    const double e1X = p2.x - p1X;
    const double e1Y = p2.y - p1Y;
    const double e2X = p3.x - p1X;
    const double e2Y = p3.y - p1Y;
    const double D = e1X * e2Y - e1Y * e2X;
    const double triangleArea = 0.5 * D;
    area += triangleArea;
    cx += triangleArea * k_inv3 * (p1X + p2.x + p3.x);
    cy += triangleArea * k_inv3 * (p1Y + p2.y + p3.y);
    const double px = p1X, py = p1Y;
    const double ex1 = e1X, ey1 = e1Y, ex2 = e2X, ey2 = e2Y;
    const double intx2 = k_inv3 * (0.25 * (ex1 * ex1 + ex2 * ex1 + ex2 * ex2) + (px * ex1 + px * ex2)) + 0.5 * px * px;
    const double inty2 = k_inv3 * (0.25 * (ey1 * ey1 + ey2 * ey1 + ey2 * ey2) + (py * ey1 + py * ey2)) + 0.5 * py * py;
    I += D * (intx2 + inty2);
  }
  mass = density * area;
  cx *= 1.0 / area;
  cy *= 1.0 / area;
  center = {cx, cy};
  inertia = density * I;
}

// ---------------------------------------------------------------- world (section 3)

void World::init(Vec2 g, bool sleep) {
  std::memset(static_cast<void*>(this), 0, sizeof(World));
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
  overflow = false;
  BodyDef ground;  // the engine's own ground body, always last in the body list
  create_body(ground);
}

int32_t World::create_body(const BodyDef& def) {
  if (flags & kWorldLocked) return kNull;
  int32_t idx = kNull;
  for (int32_t i = 0; i < kMaxBodies; ++i) {
    if (!bodies[i].inUse) {
      idx = i;
      break;
    }
  }
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
  b.xf.R.set_angle(def.angle);
  b.xfAngle = def.angle;
  b.R0 = b.xf.R;
  b.R0Angle = def.angle;
  b.sweep.localCenter = {0.0, 0.0};
  b.sweep.t0 = 1.0;
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
  b.force = {0.0, 0.0};
  b.torque = 0.0;
  b.sleepTime = 0.0;
  b.type = def.type;
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
  f.shape.set_as_box(def.hx, def.hy);
  f.density = def.density;
  f.friction = def.friction;
  f.restitution = def.restitution;
  f.filter = def.filter;
  f.isSensor = def.isSensor;
  f.proxy = kNull;
  f.present = true;
  if (b.flags & kBodyActive) {
    f.shape.compute_aabb(f.aabb, b.xf);
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
    b.fixture.shape.compute_mass(b.fixture.density, m, c, I);
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
    b.force = {0.0, 0.0};
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
  set_body_rotation(b, angle);
  b.xf.position = p;
  const Mat22& R = b.xf.R;
  const Vec2& lc = b.sweep.localCenter;
  b.sweep.c.x = R.col1.x * lc.x + R.col2.x * lc.y;
  b.sweep.c.y = R.col1.y * lc.x + R.col2.y * lc.y;
  b.sweep.c.x += b.xf.position.x;
  b.sweep.c.y += b.xf.position.y;
  b.sweep.c0 = b.sweep.c;
  b.sweep.a0 = b.sweep.a = angle;
  if (b.fixture.present) synchronize_fixture(bi, b.xf, b.xf);
  find_new_contacts(nullptr);
}

void World::synchronize_fixtures(int32_t bi) {
  Body& b = bodies[bi];
  Transform xf1;
  if (same_bits(b.sweep.a0, b.R0Angle)) {
    xf1.R = b.R0;
  } else {
    xf1.R.set_angle(b.sweep.a0);
  }
  const Vec2& lc = b.sweep.localCenter;
  xf1.position.x = b.sweep.c0.x - (xf1.R.col1.x * lc.x + xf1.R.col2.x * lc.y);
  xf1.position.y = b.sweep.c0.y - (xf1.R.col1.y * lc.x + xf1.R.col2.y * lc.y);
  if (b.fixture.present) synchronize_fixture(bi, xf1, b.xf);
}

void World::synchronize_fixture(int32_t bi, const Transform& xf1, const Transform& xf2) {
  Fixture& f = bodies[bi].fixture;
  if (f.proxy == kNull) return;
  AABB a1, a2;
  f.shape.compute_aabb(a1, xf1);
  f.shape.compute_aabb(a2, xf2);
  aabb_combine(f.aabb, a1, a2);
  const Vec2 d{xf2.position.x - xf1.position.x, xf2.position.y - xf1.position.y};
  move_proxy(f.proxy, f.aabb, d);
}

// ---------------------------------------------------------------- joints (section 3, 14)

int32_t World::create_joint(const RevoluteJointDef& def) {
  int32_t idx = kNull;
  for (int32_t i = 0; i < kMaxJoints; ++i) {
    if (!joints[i].inUse) {
      idx = i;
      break;
    }
  }
  if (idx == kNull) {
    overflow = true;
    return kNull;
  }
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

// ---------------------------------------------------------------- dynamic tree (section 7)

int32_t World::allocate_node() {
  DynamicTree& t = tree;
  if (t.freeList != kNull) {
    const int32_t n = t.freeList;
    t.freeList = t.nodes[n].parent;
    t.nodes[n].parent = kNull;
    t.nodes[n].child1 = kNull;
    t.nodes[n].child2 = kNull;
    return n;
  }
  if (t.nodeCount >= kMaxNodes) {
    overflow = true;
    return 0;
  }
  const int32_t n = t.nodeCount++;
  TreeNode& node = t.nodes[n];
  node.aabb = AABB{{0, 0}, {0, 0}};
  node.userData = kNull;
  node.parent = node.child1 = node.child2 = kNull;
  return n;
}

void World::free_node(int32_t n) {
  tree.nodes[n].parent = tree.freeList;
  tree.freeList = n;
}

void World::insert_leaf(int32_t leaf) {
  DynamicTree& t = tree;
  TreeNode* N = t.nodes;
  if (t.root == kNull) {
    t.root = leaf;
    N[leaf].parent = kNull;
    return;
  }
  const double centerX = (N[leaf].aabb.lower.x + N[leaf].aabb.upper.x) / 2;
  const double centerY = (N[leaf].aabb.lower.y + N[leaf].aabb.upper.y) / 2;
  int32_t sibling = t.root;
  while (!N[sibling].is_leaf()) {
    const int32_t c1 = N[sibling].child1;
    const int32_t c2 = N[sibling].child2;
    const double norm1 = std::fabs((N[c1].aabb.lower.x + N[c1].aabb.upper.x) / 2 - centerX) +
                         std::fabs((N[c1].aabb.lower.y + N[c1].aabb.upper.y) / 2 - centerY);
    const double norm2 = std::fabs((N[c2].aabb.lower.x + N[c2].aabb.upper.x) / 2 - centerX) +
                         std::fabs((N[c2].aabb.lower.y + N[c2].aabb.upper.y) / 2 - centerY);
    sibling = norm1 < norm2 ? c1 : c2;
  }
  int32_t node1 = N[sibling].parent;
  int32_t node2 = allocate_node();
  N = t.nodes;
  N[node2].parent = node1;
  N[node2].userData = kNull;
  aabb_combine(N[node2].aabb, N[leaf].aabb, N[sibling].aabb);
  if (node1 != kNull) {
    if (N[N[sibling].parent].child1 == sibling) {
      N[node1].child1 = node2;
    } else {
      N[node1].child2 = node2;
    }
    N[node2].child1 = sibling;
    N[node2].child2 = leaf;
    N[sibling].parent = node2;
    N[leaf].parent = node2;
    do {
      if (aabb_contains(N[node1].aabb, N[node2].aabb)) break;
      aabb_combine(N[node1].aabb, N[N[node1].child1].aabb, N[N[node1].child2].aabb);
      node2 = node1;
      node1 = N[node1].parent;
    } while (node1 != kNull);
  } else {
    N[node2].child1 = sibling;
    N[node2].child2 = leaf;
    N[sibling].parent = node2;
    N[leaf].parent = node2;
    t.root = node2;
  }
}

void World::remove_leaf(int32_t leaf) {
  DynamicTree& t = tree;
  TreeNode* N = t.nodes;
  if (leaf == t.root) {
    t.root = kNull;
    return;
  }
  const int32_t node2 = N[leaf].parent;
  int32_t node1 = N[node2].parent;
  const int32_t sibling = N[node2].child1 == leaf ? N[node2].child2 : N[node2].child1;
  if (node1 != kNull) {
    if (N[node1].child1 == node2) {
      N[node1].child1 = sibling;
    } else {
      N[node1].child2 = sibling;
    }
    N[sibling].parent = node1;
    free_node(node2);
    while (node1 != kNull) {
      const AABB oldAABB = N[node1].aabb;
      aabb_combine(N[node1].aabb, N[N[node1].child1].aabb, N[N[node1].child2].aabb);
      if (aabb_contains(oldAABB, N[node1].aabb)) break;
      node1 = N[node1].parent;
    }
  } else {
    t.root = sibling;
    N[sibling].parent = kNull;
    free_node(node2);
  }
}

int32_t World::create_proxy(const AABB& aabb, int32_t userData) {
  const int32_t n = allocate_node();
  TreeNode& node = tree.nodes[n];
  node.aabb.lower.x = aabb.lower.x - settings::kAabbExtension;
  node.aabb.lower.y = aabb.lower.y - settings::kAabbExtension;
  node.aabb.upper.x = aabb.upper.x + settings::kAabbExtension;
  node.aabb.upper.y = aabb.upper.y + settings::kAabbExtension;
  node.userData = userData;
  insert_leaf(n);
  buffer_move(n);
  return n;
}

void World::destroy_proxy(int32_t proxy) {
  unbuffer_move(proxy);
  remove_leaf(proxy);
  free_node(proxy);
}

void World::move_proxy(int32_t proxy, const AABB& aabb, Vec2 d) {
  TreeNode& node = tree.nodes[proxy];
  if (aabb_contains(node.aabb, aabb)) return;
  remove_leaf(proxy);
  const double extendX = settings::kAabbExtension + settings::kAabbMultiplier * (d.x > 0 ? d.x : -d.x);
  const double extendY = settings::kAabbExtension + settings::kAabbMultiplier * (d.y > 0 ? d.y : -d.y);
  node.aabb.lower.x = aabb.lower.x - extendX;
  node.aabb.lower.y = aabb.lower.y - extendY;
  node.aabb.upper.x = aabb.upper.x + extendX;
  node.aabb.upper.y = aabb.upper.y + extendY;
  insert_leaf(proxy);
  buffer_move(proxy);
}

void World::buffer_move(int32_t proxy) {
  if (moveCount >= kMaxMoveBuffer) {
    overflow = true;
    return;
  }
  moveBuffer[moveCount++] = proxy;
}

void World::unbuffer_move(int32_t proxy) {
  for (int32_t i = 0; i < moveCount; ++i) {
    if (moveBuffer[i] == proxy) {
      for (int32_t k = i + 1; k < moveCount; ++k) moveBuffer[k - 1] = moveBuffer[k];
      --moveCount;
      return;
    }
  }
}

// Broad-phase pairing with the original's rule: proxy A is the node with the lower id.
void World::find_new_contacts(StepScratch* scratch) {
  Pair local[kMaxPairs];
  Pair* pairs = scratch ? scratch->pairs : local;
  int32_t pairCount = 0;
  int32_t stack[kMaxNodes];
  for (int32_t m = 0; m < moveCount; ++m) {
    const int32_t queryProxy = moveBuffer[m];
    const AABB fat = tree.nodes[queryProxy].aabb;
    if (tree.root == kNull) continue;
    int32_t count = 0;
    stack[count++] = tree.root;
    while (count > 0) {
      const int32_t n = stack[--count];
      const TreeNode& node = tree.nodes[n];
      if (!aabb_overlap(node.aabb, fat)) continue;
      if (node.is_leaf()) {
        if (n == queryProxy) continue;
        if (pairCount >= kMaxPairs) {
          overflow = true;
          continue;
        }
        Pair& p = pairs[pairCount++];
        p.proxyA = n < queryProxy ? n : queryProxy;
        p.proxyB = n < queryProxy ? queryProxy : n;
      } else {
        if (count + 2 > kMaxNodes) {
          overflow = true;
          continue;
        }
        stack[count++] = node.child1;
        stack[count++] = node.child2;
      }
    }
  }
  moveCount = 0;
  for (int32_t i = 0; i < pairCount;) {
    const Pair primary = pairs[i];
    add_pair(tree.nodes[primary.proxyA].userData, tree.nodes[primary.proxyB].userData);
    ++i;
    while (i < pairCount) {
      if (pairs[i].proxyA != primary.proxyA || pairs[i].proxyB != primary.proxyB) break;
      ++i;
    }
  }
}

// ---------------------------------------------------------------- contacts (sections 9, 10)

bool World::should_collide(int32_t bi, int32_t other) const {
  const Body& b = bodies[bi];
  if (b.type != kDynamicBody && bodies[other].type != kDynamicBody) return false;
  for (int32_t e = b.jointList; e != kNull;) {
    const Edge& edge = e & 1 ? joints[e >> 1].edgeB : joints[e >> 1].edgeA;
    if (edge.other == other && !joints[e >> 1].collideConnected) return false;
    e = edge.next;
  }
  return true;
}

namespace {
bool filter_should_collide(const Filter& f1, const Filter& f2) {
  if (f1.groupIndex == f2.groupIndex && f1.groupIndex != 0) return f1.groupIndex > 0;
  return (f1.maskBits & f2.categoryBits) != 0 && (f1.categoryBits & f2.maskBits) != 0;
}
}  // namespace

void World::add_pair(int32_t bA, int32_t bB) {
  if (bA == bB) return;
  for (int32_t e = bodies[bB].contactList; e != kNull; e = contact_edge(e).next) {
    if (contact_edge(e).other == bA) {
      const Contact& c = contacts[e >> 1];
      if (c.bodyA == bA && c.bodyB == bB) return;
      if (c.bodyA == bB && c.bodyB == bA) return;
    }
  }
  if (!should_collide(bB, bA)) return;
  if (!filter_should_collide(bodies[bA].fixture.filter, bodies[bB].fixture.filter)) return;

  int32_t ci = kNull;
  if (contactPoolCount > 0) {
    ci = contactPool[--contactPoolCount];
  } else if (contactSlotsUsed < kMaxContacts) {
    ci = contactSlotsUsed++;
    Contact& fresh = contacts[ci];
    std::memset(static_cast<void*>(&fresh), 0, sizeof(Contact));
    fresh.manifolds[0].type = kManifoldUnset;
    fresh.manifolds[1].type = kManifoldUnset;
    fresh.current = 0;
  } else {
    overflow = true;
    return;
  }
  Contact& c = contacts[ci];
  c.inUse = true;
  c.flags = kContactEnabled;
  if (bodies[bA].fixture.isSensor || bodies[bB].fixture.isSensor) c.flags |= kContactSensor;
  if (bodies[bA].type != kDynamicBody || (bodies[bA].flags & kBodyBullet) ||
      bodies[bB].type != kDynamicBody || (bodies[bB].flags & kBodyBullet)) {
    c.flags |= kContactContinuous;
  }
  c.bodyA = bA;
  c.bodyB = bB;
  c.manifold().pointCount = 0;

  c.prev = kNull;
  c.next = contactList;
  if (contactList != kNull) contacts[contactList].prev = ci;
  contactList = ci;

  const int32_t codeA = ci * 2, codeB = ci * 2 + 1;
  c.nodeA.other = bB;
  c.nodeA.prev = kNull;
  c.nodeA.next = bodies[bA].contactList;
  if (bodies[bA].contactList != kNull) contact_edge(bodies[bA].contactList).prev = codeA;
  bodies[bA].contactList = codeA;
  c.nodeB.other = bA;
  c.nodeB.prev = kNull;
  c.nodeB.next = bodies[bB].contactList;
  if (bodies[bB].contactList != kNull) contact_edge(bodies[bB].contactList).prev = codeB;
  bodies[bB].contactList = codeB;
  ++contactCount;
}

void World::destroy_contact(int32_t ci) {
  Contact& c = contacts[ci];
  // The game's endContact does nothing, so none is fired here.
  if (c.prev != kNull) contacts[c.prev].next = c.next;
  if (c.next != kNull) contacts[c.next].prev = c.prev;
  if (ci == contactList) contactList = c.next;
  const int32_t codeA = ci * 2, codeB = ci * 2 + 1;
  Body& A = bodies[c.bodyA];
  Body& B = bodies[c.bodyB];
  if (c.nodeA.prev != kNull) contact_edge(c.nodeA.prev).next = c.nodeA.next;
  if (c.nodeA.next != kNull) contact_edge(c.nodeA.next).prev = c.nodeA.prev;
  if (codeA == A.contactList) A.contactList = c.nodeA.next;
  if (c.nodeB.prev != kNull) contact_edge(c.nodeB.prev).next = c.nodeB.next;
  if (c.nodeB.next != kNull) contact_edge(c.nodeB.next).prev = c.nodeB.prev;
  if (codeB == B.contactList) B.contactList = c.nodeB.next;
  if (c.manifold().pointCount > 0) {
    set_awake(c.bodyA, true);
    set_awake(c.bodyB, true);
  }
  c.inUse = false;
  contactPool[contactPoolCount++] = ci;
}

void World::collide(ContactListener* listener) {
  int32_t ci = contactList;
  while (ci != kNull) {
    Contact& c = contacts[ci];
    const Body& A = bodies[c.bodyA];
    const Body& B = bodies[c.bodyB];
    if ((A.flags & kBodyAwake) == 0 && (B.flags & kBodyAwake) == 0) {
      ci = c.next;
      continue;
    }
    if (c.flags & kContactFilter) {
      if (!should_collide(c.bodyB, c.bodyA) ||
          !filter_should_collide(A.fixture.filter, B.fixture.filter)) {
        const int32_t nuke = ci;
        ci = c.next;
        destroy_contact(nuke);
        continue;
      }
      c.flags &= ~kContactFilter;
    }
    if (!aabb_overlap(tree.nodes[A.fixture.proxy].aabb, tree.nodes[B.fixture.proxy].aabb)) {
      const int32_t nuke = ci;
      ci = c.next;
      destroy_contact(nuke);
      continue;
    }
    update_contact(ci, listener);
    ci = c.next;
  }
}

void World::update_contact(int32_t ci, ContactListener* listener) {
  Contact& c = contacts[ci];
  c.current ^= 1;  // swap current and old manifolds
  c.flags |= kContactEnabled;
  bool touching = false;
  const bool wasTouching = (c.flags & kContactTouching) != 0;
  Body& A = bodies[c.bodyA];
  Body& B = bodies[c.bodyB];
  const bool aabbOverlap = aabb_overlap(A.fixture.aabb, B.fixture.aabb);
  if (c.flags & kContactSensor) {
    // The game has no sensors.
    touching = false;
  } else {
    if (A.type != kDynamicBody || (A.flags & kBodyBullet) || B.type != kDynamicBody ||
        (B.flags & kBodyBullet)) {
      c.flags |= kContactContinuous;
    } else {
      c.flags &= ~kContactContinuous;
    }
    Manifold& m = c.manifold();
    if (aabbOverlap) {
      collide_polygons(m, A.fixture.shape, A.xf, B.fixture.shape, B.xf);
      touching = m.pointCount > 0;
      const Manifold& old = c.old_manifold();
      for (int32_t i = 0; i < m.pointCount; ++i) {
        ManifoldPoint& mp2 = m.points[i];
        mp2.normalImpulse = 0.0;
        mp2.tangentImpulse = 0.0;
        for (int32_t k = 0; k < old.pointCount; ++k) {
          if (old.points[k].id == mp2.id) {
            mp2.normalImpulse = old.points[k].normalImpulse;
            mp2.tangentImpulse = old.points[k].tangentImpulse;
            break;
          }
        }
      }
    } else {
      m.pointCount = 0;
    }
    if (touching != wasTouching) {
      set_awake(c.bodyA, true);
      set_awake(c.bodyB, true);
    }
  }
  if (touching) {
    c.flags |= kContactTouching;
  } else {
    c.flags &= ~kContactTouching;
  }
  if (!wasTouching && touching && listener) listener->begin_contact(*this, ci);
}

void World::world_manifold(int32_t ci, WorldManifold& out) const {
  const Contact& c = contacts[ci];
  const Manifold& m = c.manifold();
  const Transform& xfA = bodies[c.bodyA].xf;
  const Transform& xfB = bodies[c.bodyB].xf;
  const double radiusA = bodies[c.bodyA].fixture.shape.radius;
  const double radiusB = bodies[c.bodyB].fixture.shape.radius;
  if (m.pointCount == 0) return;
  if (m.type == kManifoldFaceA) {
    const Mat22& RA = xfA.R;
    const double normalX = RA.col1.x * m.localPlaneNormal.x + RA.col2.x * m.localPlaneNormal.y;
    const double normalY = RA.col1.y * m.localPlaneNormal.x + RA.col2.y * m.localPlaneNormal.y;
    const double planePointX = xfA.position.x + RA.col1.x * m.localPoint.x + RA.col2.x * m.localPoint.y;
    const double planePointY = xfA.position.y + RA.col1.y * m.localPoint.x + RA.col2.y * m.localPoint.y;
    out.normal = {normalX, normalY};
    const Mat22& RB = xfB.R;
    for (int32_t i = 0; i < m.pointCount; ++i) {
      const Vec2& lp = m.points[i].localPoint;
      const double clipPointX = xfB.position.x + RB.col1.x * lp.x + RB.col2.x * lp.y;
      const double clipPointY = xfB.position.y + RB.col1.y * lp.x + RB.col2.y * lp.y;
      const double s = radiusA - (clipPointX - planePointX) * normalX - (clipPointY - planePointY) * normalY - radiusB;
      out.points[i].x = clipPointX + 0.5 * s * normalX;
      out.points[i].y = clipPointY + 0.5 * s * normalY;
    }
  } else if (m.type == kManifoldFaceB) {
    const Mat22& RB = xfB.R;
    const double normalX = RB.col1.x * m.localPlaneNormal.x + RB.col2.x * m.localPlaneNormal.y;
    const double normalY = RB.col1.y * m.localPlaneNormal.x + RB.col2.y * m.localPlaneNormal.y;
    const double planePointX = xfB.position.x + RB.col1.x * m.localPoint.x + RB.col2.x * m.localPoint.y;
    const double planePointY = xfB.position.y + RB.col1.y * m.localPoint.x + RB.col2.y * m.localPoint.y;
    out.normal = {-normalX, -normalY};
    const Mat22& RA = xfA.R;
    for (int32_t i = 0; i < m.pointCount; ++i) {
      const Vec2& lp = m.points[i].localPoint;
      const double clipPointX = xfA.position.x + RA.col1.x * lp.x + RA.col2.x * lp.y;
      const double clipPointY = xfA.position.y + RA.col1.y * lp.x + RA.col2.y * lp.y;
      const double s = radiusB - (clipPointX - planePointX) * normalX - (clipPointY - planePointY) * normalY - radiusA;
      out.points[i].x = clipPointX + 0.5 * s * normalX;
      out.points[i].y = clipPointY + 0.5 * s * normalY;
    }
  }
}

// ---------------------------------------------------------------- step (sections 3, 4, 5)

void World::step(double dt, int32_t velocityIterations, int32_t positionIterations,
                 ContactListener* listener, StepScratch& scratch) {
  if (flags & kWorldNewFixture) {
    find_new_contacts(&scratch);
    flags &= ~kWorldNewFixture;
  }
  flags |= kWorldLocked;
  TimeStep step;
  step.dt = dt;
  step.velocityIterations = velocityIterations;
  step.positionIterations = positionIterations;
  step.inv_dt = dt > 0.0 ? 1.0 / dt : 0.0;
  step.dtRatio = inv_dt0 * dt;
  step.warmStarting = warmStarting;
  collide(listener);
  if (step.dt > 0.0) solve(step, scratch);
  if (step.dt > 0.0) inv_dt0 = step.inv_dt;
  flags &= ~kWorldLocked;
}

void World::solve(const TimeStep& step, StepScratch& s) {
  for (int32_t b = bodyList; b != kNull; b = bodies[b].next) bodies[b].flags &= ~kBodyIsland;
  for (int32_t c = contactList; c != kNull; c = contacts[c].next) contacts[c].flags &= ~kContactIsland;
  for (int32_t j = jointList; j != kNull; j = joints[j].next) joints[j].islandFlag = false;

  for (int32_t seed = bodyList; seed != kNull; seed = bodies[seed].next) {
    Body& sb = bodies[seed];
    if (sb.flags & kBodyIsland) continue;
    if ((sb.flags & kBodyAwake) == 0 || (sb.flags & kBodyActive) == 0) continue;
    if (sb.type == kStaticBody) continue;
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
    solve_island(step, s);
    for (int32_t i = 0; i < s.bodyCount; ++i) {
      Body& b = bodies[s.bodies[i]];
      if (b.type == kStaticBody) b.flags &= ~kBodyIsland;
    }
  }

  for (int32_t b = bodyList; b != kNull; b = bodies[b].next) {
    const Body& body = bodies[b];
    if ((body.flags & kBodyAwake) == 0 || (body.flags & kBodyActive) == 0) continue;
    if (body.type == kStaticBody) continue;
    synchronize_fixtures(b);
  }
  find_new_contacts(&s);
}

namespace {

// Contact solver (section 5), over the island's contacts.
void contact_solver_initialize(World& w, StepScratch& s) {
  for (int32_t i = 0; i < s.contactCount; ++i) {
    Contact& contact = w.contacts[s.contacts[i]];
    Body& bodyA = w.bodies[contact.bodyA];
    Body& bodyB = w.bodies[contact.bodyB];
    const double radiusA = bodyA.fixture.shape.radius;
    const double radiusB = bodyB.fixture.shape.radius;
    Manifold& manifold = contact.manifold();
    const double friction = std::sqrt(bodyA.fixture.friction * bodyB.fixture.friction);
    const double restitution = bodyA.fixture.restitution > bodyB.fixture.restitution
                                   ? bodyA.fixture.restitution
                                   : bodyB.fixture.restitution;
    const double vAX = bodyA.linearVelocity.x;
    const double vAY = bodyA.linearVelocity.y;
    const double vBX = bodyB.linearVelocity.x;
    const double vBY = bodyB.linearVelocity.y;
    const double wA = bodyA.angularVelocity;
    const double wB = bodyB.angularVelocity;
    WorldManifold wm;
    w.world_manifold(s.contacts[i], wm);
    const double normalX = wm.normal.x;
    const double normalY = wm.normal.y;
    ContactConstraint& cc = s.constraints[i];
    cc.bodyA = contact.bodyA;
    cc.bodyB = contact.bodyB;
    cc.contact = s.contacts[i];
    cc.normal = {normalX, normalY};
    cc.pointCount = manifold.pointCount;
    cc.friction = friction;
    cc.restitution = restitution;
    cc.localPlaneNormal = manifold.localPlaneNormal;
    cc.localPoint = manifold.localPoint;
    cc.radius = radiusA + radiusB;
    cc.type = manifold.type;
    for (int32_t k = 0; k < cc.pointCount; ++k) {
      const ManifoldPoint& cp = manifold.points[k];
      ContactConstraintPoint& ccp = cc.points[k];
      ccp.normalImpulse = cp.normalImpulse;
      ccp.tangentImpulse = cp.tangentImpulse;
      ccp.localPoint = cp.localPoint;
      const double rAX = ccp.rA.x = wm.points[k].x - bodyA.sweep.c.x;
      const double rAY = ccp.rA.y = wm.points[k].y - bodyA.sweep.c.y;
      const double rBX = ccp.rB.x = wm.points[k].x - bodyB.sweep.c.x;
      const double rBY = ccp.rB.y = wm.points[k].y - bodyB.sweep.c.y;
      double rnA = rAX * normalY - rAY * normalX;
      double rnB = rBX * normalY - rBY * normalX;
      rnA *= rnA;
      rnB *= rnB;
      const double kNormal = bodyA.invMass + bodyB.invMass + bodyA.invI * rnA + bodyB.invI * rnB;
      ccp.normalMass = 1.0 / kNormal;
      double kEqualized = bodyA.mass * bodyA.invMass + bodyB.mass * bodyB.invMass;
      kEqualized += bodyA.mass * bodyA.invI * rnA + bodyB.mass * bodyB.invI * rnB;
      ccp.equalizedMass = 1.0 / kEqualized;
      const double tangentX = normalY;
      const double tangentY = -normalX;
      double rtA = rAX * tangentY - rAY * tangentX;
      double rtB = rBX * tangentY - rBY * tangentX;
      rtA *= rtA;
      rtB *= rtB;
      const double kTangent = bodyA.invMass + bodyB.invMass + bodyA.invI * rtA + bodyB.invI * rtB;
      ccp.tangentMass = 1.0 / kTangent;
      ccp.velocityBias = 0.0;
      const double tX = vBX + (-wB * rBY) - vAX - (-wA * rAY);
      const double tY = vBY + (wB * rBX) - vAY - (wA * rAX);
      const double vRel = cc.normal.x * tX + cc.normal.y * tY;
      if (vRel < -settings::kVelocityThreshold) ccp.velocityBias += -cc.restitution * vRel;
    }
    if (cc.pointCount == 2) {
      const ContactConstraintPoint& ccp1 = cc.points[0];
      const ContactConstraintPoint& ccp2 = cc.points[1];
      const double invMassA = bodyA.invMass;
      const double invIA = bodyA.invI;
      const double invMassB = bodyB.invMass;
      const double invIB = bodyB.invI;
      const double rn1A = ccp1.rA.x * normalY - ccp1.rA.y * normalX;
      const double rn1B = ccp1.rB.x * normalY - ccp1.rB.y * normalX;
      const double rn2A = ccp2.rA.x * normalY - ccp2.rA.y * normalX;
      const double rn2B = ccp2.rB.x * normalY - ccp2.rB.y * normalX;
      const double k11 = invMassA + invMassB + invIA * rn1A * rn1A + invIB * rn1B * rn1B;
      const double k22 = invMassA + invMassB + invIA * rn2A * rn2A + invIB * rn2B * rn2B;
      const double k12 = invMassA + invMassB + invIA * rn1A * rn2A + invIB * rn1B * rn2B;
      const double k_maxConditionNumber = 100.0;
      if (k11 * k11 < k_maxConditionNumber * (k11 * k22 - k12 * k12)) {
        cc.K.col1 = {k11, k12};
        cc.K.col2 = {k12, k22};
        const double a = cc.K.col1.x, b = cc.K.col2.x, c = cc.K.col1.y, d = cc.K.col2.y;
        double det = a * d - b * c;
        if (det != 0.0) det = 1.0 / det;
        cc.normalMass.col1.x = det * d;
        cc.normalMass.col2.x = -det * b;
        cc.normalMass.col1.y = -det * c;
        cc.normalMass.col2.y = det * a;
      } else {
        cc.pointCount = 1;
      }
    }
  }
}

void contact_solver_warm_start(World& w, StepScratch& s, const TimeStep& step) {
  for (int32_t i = 0; i < s.contactCount; ++i) {
    ContactConstraint& c = s.constraints[i];
    Body& bodyA = w.bodies[c.bodyA];
    Body& bodyB = w.bodies[c.bodyB];
    const double invMassA = bodyA.invMass, invIA = bodyA.invI;
    const double invMassB = bodyB.invMass, invIB = bodyB.invI;
    const double normalX = c.normal.x, normalY = c.normal.y;
    const double tangentX = normalY, tangentY = -normalX;
    if (step.warmStarting) {
      for (int32_t j = 0; j < c.pointCount; ++j) {
        ContactConstraintPoint& ccp = c.points[j];
        ccp.normalImpulse *= step.dtRatio;
        ccp.tangentImpulse *= step.dtRatio;
        const double PX = ccp.normalImpulse * normalX + ccp.tangentImpulse * tangentX;
        const double PY = ccp.normalImpulse * normalY + ccp.tangentImpulse * tangentY;
        bodyA.angularVelocity -= invIA * (ccp.rA.x * PY - ccp.rA.y * PX);
        bodyA.linearVelocity.x -= invMassA * PX;
        bodyA.linearVelocity.y -= invMassA * PY;
        bodyB.angularVelocity += invIB * (ccp.rB.x * PY - ccp.rB.y * PX);
        bodyB.linearVelocity.x += invMassB * PX;
        bodyB.linearVelocity.y += invMassB * PY;
      }
    } else {
      for (int32_t j = 0; j < c.pointCount; ++j) {
        c.points[j].normalImpulse = 0.0;
        c.points[j].tangentImpulse = 0.0;
      }
    }
  }
}

void contact_solver_solve_velocity(World& w, StepScratch& s) {
  for (int32_t i = 0; i < s.contactCount; ++i) {
    ContactConstraint& c = s.constraints[i];
    Body& bodyA = w.bodies[c.bodyA];
    Body& bodyB = w.bodies[c.bodyB];
    double wA = bodyA.angularVelocity;
    double wB = bodyB.angularVelocity;
    Vec2& vA = bodyA.linearVelocity;
    Vec2& vB = bodyB.linearVelocity;
    const double invMassA = bodyA.invMass, invIA = bodyA.invI;
    const double invMassB = bodyB.invMass, invIB = bodyB.invI;
    const double normalX = c.normal.x, normalY = c.normal.y;
    const double tangentX = normalY, tangentY = -normalX;
    const double friction = c.friction;
    for (int32_t j = 0; j < c.pointCount; ++j) {
      ContactConstraintPoint& ccp = c.points[j];
      const double dvX = vB.x - wB * ccp.rB.y - vA.x + wA * ccp.rA.y;
      const double dvY = vB.y + wB * ccp.rB.x - vA.y - wA * ccp.rA.x;
      const double vt = dvX * tangentX + dvY * tangentY;
      double lambda = ccp.tangentMass * (-vt);
      const double maxFriction = friction * ccp.normalImpulse;
      const double newImpulse = b2clamp(ccp.tangentImpulse + lambda, -maxFriction, maxFriction);
      lambda = newImpulse - ccp.tangentImpulse;
      const double PX = lambda * tangentX;
      const double PY = lambda * tangentY;
      vA.x -= invMassA * PX;
      vA.y -= invMassA * PY;
      wA -= invIA * (ccp.rA.x * PY - ccp.rA.y * PX);
      vB.x += invMassB * PX;
      vB.y += invMassB * PY;
      wB += invIB * (ccp.rB.x * PY - ccp.rB.y * PX);
      ccp.tangentImpulse = newImpulse;
    }
    if (c.pointCount == 1) {
      ContactConstraintPoint& ccp = c.points[0];
      const double dvX = vB.x + (-wB * ccp.rB.y) - vA.x - (-wA * ccp.rA.y);
      const double dvY = vB.y + (wB * ccp.rB.x) - vA.y - (wA * ccp.rA.x);
      const double vn = dvX * normalX + dvY * normalY;
      double lambda = -ccp.normalMass * (vn - ccp.velocityBias);
      double newImpulse = ccp.normalImpulse + lambda;
      newImpulse = newImpulse > 0 ? newImpulse : 0.0;
      lambda = newImpulse - ccp.normalImpulse;
      const double PX = lambda * normalX;
      const double PY = lambda * normalY;
      vA.x -= invMassA * PX;
      vA.y -= invMassA * PY;
      wA -= invIA * (ccp.rA.x * PY - ccp.rA.y * PX);
      vB.x += invMassB * PX;
      vB.y += invMassB * PY;
      wB += invIB * (ccp.rB.x * PY - ccp.rB.y * PX);
      ccp.normalImpulse = newImpulse;
    } else {
      ContactConstraintPoint& cp1 = c.points[0];
      ContactConstraintPoint& cp2 = c.points[1];
      const double aX = cp1.normalImpulse;
      const double aY = cp2.normalImpulse;
      const double dv1X = vB.x - wB * cp1.rB.y - vA.x + wA * cp1.rA.y;
      const double dv1Y = vB.y + wB * cp1.rB.x - vA.y - wA * cp1.rA.x;
      const double dv2X = vB.x - wB * cp2.rB.y - vA.x + wA * cp2.rA.y;
      const double dv2Y = vB.y + wB * cp2.rB.x - vA.y - wA * cp2.rA.x;
      double vn1 = dv1X * normalX + dv1Y * normalY;
      double vn2 = dv2X * normalX + dv2Y * normalY;
      double bX = vn1 - cp1.velocityBias;
      double bY = vn2 - cp2.velocityBias;
      const Mat22& K = c.K;
      bX -= K.col1.x * aX + K.col2.x * aY;
      bY -= K.col1.y * aX + K.col2.y * aY;
      auto apply = [&](double xX, double xY) {
        const double dX = xX - aX;
        const double dY = xY - aY;
        const double P1X = dX * normalX;
        const double P1Y = dX * normalY;
        const double P2X = dY * normalX;
        const double P2Y = dY * normalY;
        vA.x -= invMassA * (P1X + P2X);
        vA.y -= invMassA * (P1Y + P2Y);
        wA -= invIA * (cp1.rA.x * P1Y - cp1.rA.y * P1X + cp2.rA.x * P2Y - cp2.rA.y * P2X);
        vB.x += invMassB * (P1X + P2X);
        vB.y += invMassB * (P1Y + P2Y);
        wB += invIB * (cp1.rB.x * P1Y - cp1.rB.y * P1X + cp2.rB.x * P2Y - cp2.rB.y * P2X);
        cp1.normalImpulse = xX;
        cp2.normalImpulse = xY;
      };
      for (;;) {
        const Mat22& M = c.normalMass;
        double xX = -(M.col1.x * bX + M.col2.x * bY);
        double xY = -(M.col1.y * bX + M.col2.y * bY);
        if (xX >= 0.0 && xY >= 0.0) {
          apply(xX, xY);
          break;
        }
        xX = -cp1.normalMass * bX;
        xY = 0.0;
        vn1 = 0.0;
        vn2 = K.col1.y * xX + bY;
        if (xX >= 0.0 && vn2 >= 0.0) {
          apply(xX, xY);
          break;
        }
        xX = 0.0;
        xY = -cp2.normalMass * bY;
        vn1 = K.col2.x * xY + bX;
        vn2 = 0.0;
        if (xY >= 0.0 && vn1 >= 0.0) {
          apply(xX, xY);
          break;
        }
        xX = 0.0;
        xY = 0.0;
        vn1 = bX;
        vn2 = bY;
        if (vn1 >= 0.0 && vn2 >= 0.0) {
          apply(xX, xY);
          break;
        }
        break;
      }
    }
    bodyA.angularVelocity = wA;
    bodyB.angularVelocity = wB;
  }
}

void contact_solver_finalize(World& w, StepScratch& s) {
  for (int32_t i = 0; i < s.contactCount; ++i) {
    const ContactConstraint& c = s.constraints[i];
    Manifold& m = w.contacts[c.contact].manifold();
    for (int32_t j = 0; j < c.pointCount; ++j) {
      m.points[j].normalImpulse = c.points[j].normalImpulse;
      m.points[j].tangentImpulse = c.points[j].tangentImpulse;
    }
  }
}

}  // namespace

inline void sync_transform(World& w, int32_t bi) {
  Body& b = w.bodies[bi];
  set_body_rotation(b, b.sweep.a);
  const Mat22& R = b.xf.R;
  const Vec2& lc = b.sweep.localCenter;
  b.xf.position.x = b.sweep.c.x - (R.col1.x * lc.x + R.col2.x * lc.y);
  b.xf.position.y = b.sweep.c.y - (R.col1.y * lc.x + R.col2.y * lc.y);
}

struct ContactPositionSolver {
  static bool solve(World& w, StepScratch& s, double baumgarte) {
    double minSeparation = 0.0;
    for (int32_t i = 0; i < s.contactCount; ++i) {
      ContactConstraint& c = s.constraints[i];
      Body& bodyA = w.bodies[c.bodyA];
      Body& bodyB = w.bodies[c.bodyB];
      const double invMassA = bodyA.mass * bodyA.invMass;
      const double invIA = bodyA.mass * bodyA.invI;
      const double invMassB = bodyB.mass * bodyB.invMass;
      const double invIB = bodyB.mass * bodyB.invI;
      // Position solver manifold, from the current transforms.
      double normalX, normalY;
      Vec2 points[2];
      double separations[2];
      if (c.type == kManifoldFaceA) {
        const Transform& xfA = bodyA.xf;
        const Transform& xfB = bodyB.xf;
        normalX = xfA.R.col1.x * c.localPlaneNormal.x + xfA.R.col2.x * c.localPlaneNormal.y;
        normalY = xfA.R.col1.y * c.localPlaneNormal.x + xfA.R.col2.y * c.localPlaneNormal.y;
        const double planePointX = xfA.position.x + (xfA.R.col1.x * c.localPoint.x + xfA.R.col2.x * c.localPoint.y);
        const double planePointY = xfA.position.y + (xfA.R.col1.y * c.localPoint.x + xfA.R.col2.y * c.localPoint.y);
        for (int32_t k = 0; k < c.pointCount; ++k) {
          const Vec2& lp = c.points[k].localPoint;
          const double clipPointX = xfB.position.x + (xfB.R.col1.x * lp.x + xfB.R.col2.x * lp.y);
          const double clipPointY = xfB.position.y + (xfB.R.col1.y * lp.x + xfB.R.col2.y * lp.y);
          separations[k] = (clipPointX - planePointX) * normalX + (clipPointY - planePointY) * normalY - c.radius;
          points[k] = {clipPointX, clipPointY};
        }
      } else {
        const Transform& xfA = bodyA.xf;
        const Transform& xfB = bodyB.xf;
        normalX = xfB.R.col1.x * c.localPlaneNormal.x + xfB.R.col2.x * c.localPlaneNormal.y;
        normalY = xfB.R.col1.y * c.localPlaneNormal.x + xfB.R.col2.y * c.localPlaneNormal.y;
        const double planePointX = xfB.position.x + (xfB.R.col1.x * c.localPoint.x + xfB.R.col2.x * c.localPoint.y);
        const double planePointY = xfB.position.y + (xfB.R.col1.y * c.localPoint.x + xfB.R.col2.y * c.localPoint.y);
        for (int32_t k = 0; k < c.pointCount; ++k) {
          const Vec2& lp = c.points[k].localPoint;
          const double clipPointX = xfA.position.x + (xfA.R.col1.x * lp.x + xfA.R.col2.x * lp.y);
          const double clipPointY = xfA.position.y + (xfA.R.col1.y * lp.x + xfA.R.col2.y * lp.y);
          separations[k] = (clipPointX - planePointX) * normalX + (clipPointY - planePointY) * normalY - c.radius;
          points[k] = {clipPointX, clipPointY};
        }
        normalX = normalX * -1.0;
        normalY = normalY * -1.0;
      }
      for (int32_t k = 0; k < c.pointCount; ++k) {
        const ContactConstraintPoint& ccp = c.points[k];
        const Vec2& point = points[k];
        const double separation = separations[k];
        const double rAX = point.x - bodyA.sweep.c.x;
        const double rAY = point.y - bodyA.sweep.c.y;
        const double rBX = point.x - bodyB.sweep.c.x;
        const double rBY = point.y - bodyB.sweep.c.y;
        minSeparation = separation > minSeparation ? minSeparation : separation;
        const double C = b2clamp(baumgarte * (separation + settings::kLinearSlop), -settings::kMaxLinearCorrection, 0.0);
        const double impulse = -ccp.equalizedMass * C;
        const double PX = impulse * normalX;
        const double PY = impulse * normalY;
        bodyA.sweep.c.x -= invMassA * PX;
        bodyA.sweep.c.y -= invMassA * PY;
        bodyA.sweep.a -= invIA * (rAX * PY - rAY * PX);
        bodyB.sweep.c.x += invMassB * PX;
        bodyB.sweep.c.y += invMassB * PY;
        bodyB.sweep.a += invIB * (rBX * PY - rBY * PX);
      }
      // The original synchronizes A and B after every point. Nothing reads the transforms
      // between the points of one constraint (points and separations were computed above,
      // lever arms use the sweep centres), so syncing once after the last point gives the
      // same bits with fewer sin/cos calls.
      if (c.pointCount > 0) {
        sync_transform(w, c.bodyA);
        sync_transform(w, c.bodyB);
      }
    }
    return minSeparation > -1.5 * settings::kLinearSlop;
  }
};


void World::solve_island(const TimeStep& step, StepScratch& s) {
  for (int32_t i = 0; i < s.bodyCount; ++i) {
    Body& b = bodies[s.bodies[i]];
    if (b.type != kDynamicBody) continue;
    b.linearVelocity.x += step.dt * (gravity.x + b.invMass * b.force.x);
    b.linearVelocity.y += step.dt * (gravity.y + b.invMass * b.force.y);
    b.angularVelocity += step.dt * b.invI * b.torque;
    const double ld = b2clamp(1.0 - step.dt * b.linearDamping, 0.0, 1.0);
    b.linearVelocity.x *= ld;
    b.linearVelocity.y *= ld;
    b.angularVelocity *= b2clamp(1.0 - step.dt * b.angularDamping, 0.0, 1.0);
  }
  contact_solver_initialize(*this, s);
  contact_solver_warm_start(*this, s, step);
  for (int32_t i = 0; i < s.jointCount; ++i) joint_init_velocity(*this, joints[s.joints[i]], step);
  for (int32_t it = 0; it < step.velocityIterations; ++it) {
    for (int32_t i = 0; i < s.jointCount; ++i) joint_solve_velocity(*this, joints[s.joints[i]], step);
    contact_solver_solve_velocity(*this, s);
  }
  contact_solver_finalize(*this, s);

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
    b.R0 = b.xf.R;
    b.R0Angle = b.xfAngle;
    b.sweep.c.x += step.dt * b.linearVelocity.x;
    b.sweep.c.y += step.dt * b.linearVelocity.y;
    b.sweep.a += step.dt * b.angularVelocity;
    sync_transform(*this, bi);
  }

  for (int32_t it = 0; it < step.positionIterations; ++it) {
    const bool contactsOkay = ContactPositionSolver::solve(*this, s, settings::kContactBaumgarte);
    bool jointsOkay = true;
    for (int32_t i = 0; i < s.jointCount; ++i) {
      const bool jointOkay = joint_solve_position(*this, joints[s.joints[i]]);
      jointsOkay = jointsOkay && jointOkay;
    }
    if (contactsOkay && jointsOkay) break;
  }

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


// ---------------------------------------------------------------- revolute joint (section 14b)

namespace {
inline Vec2 lever(const Body& b, const Vec2& anchor) {
  const double ox = anchor.x - b.sweep.localCenter.x;
  const double oy = anchor.y - b.sweep.localCenter.y;
  const Mat22& R = b.xf.R;
  return {R.col1.x * ox + R.col2.x * oy, R.col1.y * ox + R.col2.y * oy};
}

inline Mat22 joint_k(double mA, double mB, double iA, double iB, const Vec2& rA, const Vec2& rB) {
  Mat22 K1, K2, K3, K;
  K1.col1.x = mA + mB;
  K1.col2.x = 0.0;
  K1.col1.y = 0.0;
  K1.col2.y = mA + mB;
  K2.col1.x = iA * rA.y * rA.y;
  K2.col2.x = -iA * rA.x * rA.y;
  K2.col1.y = -iA * rA.x * rA.y;
  K2.col2.y = iA * rA.x * rA.x;
  K3.col1.x = iB * rB.y * rB.y;
  K3.col2.x = -iB * rB.x * rB.y;
  K3.col1.y = -iB * rB.x * rB.y;
  K3.col2.y = iB * rB.x * rB.x;
  K.col1.x = K1.col1.x + K2.col1.x + K3.col1.x;
  K.col1.y = K1.col1.y + K2.col1.y + K3.col1.y;
  K.col2.x = K1.col2.x + K2.col2.x + K3.col2.x;
  K.col2.y = K1.col2.y + K2.col2.y + K3.col2.y;
  return K;
}
}  // namespace

void joint_init_velocity(World& w, RevoluteJoint& j, const TimeStep& step) {
  Body& A = w.bodies[j.bodyA];
  Body& B = w.bodies[j.bodyB];
  const Vec2 rA = j.rA = lever(A, j.localAnchor1);
  const Vec2 rB = j.rB = lever(B, j.localAnchor2);
  const double mA = A.invMass, mB = B.invMass, iA = A.invI, iB = B.invI;
  const Mat22 K = joint_k(mA, mB, iA, iB, rA, rB);
  {
    double det = K.col1.x * K.col2.y - K.col2.x * K.col1.y;
    if (det != 0.0) det = 1.0 / det;
    j.pivotMass.col1.x = det * K.col2.y;
    j.pivotMass.col2.x = -det * K.col2.x;
    j.pivotMass.col1.y = -det * K.col1.y;
    j.pivotMass.col2.y = det * K.col1.x;
  }
  j.motorMass = 1.0 / (iA + iB);
  if (!j.enableMotor) j.motorForce = 0.0;
  if (j.enableLimit) {
    const double jointAngle = (B.sweep.a - A.sweep.a) - j.referenceAngle;
    if (b2abs(j.upperAngle - j.lowerAngle) < 2.0 * settings::kAngularSlop) {
      j.limitState = kEqualLimits;
    } else if (jointAngle <= j.lowerAngle) {
      if (j.limitState != kAtLowerLimit) j.limitForce = 0.0;
      j.limitState = kAtLowerLimit;
    } else if (jointAngle >= j.upperAngle) {
      if (j.limitState != kAtUpperLimit) j.limitForce = 0.0;
      j.limitState = kAtUpperLimit;
    } else {
      j.limitState = kInactiveLimit;
      j.limitForce = 0.0;
    }
  } else {
    j.limitForce = 0.0;
  }
  if (step.warmStarting) {
    const Vec2 F = j.pivotForce;
    A.linearVelocity.x -= (step.dt * mA) * F.x;
    A.linearVelocity.y -= (step.dt * mA) * F.y;
    A.angularVelocity -= (step.dt * iA) * ((rA.x * F.y - rA.y * F.x + j.motorForce) + j.limitForce);
    B.linearVelocity.x += (step.dt * mB) * F.x;
    B.linearVelocity.y += (step.dt * mB) * F.y;
    B.angularVelocity += (step.dt * iB) * ((rB.x * F.y - rB.y * F.x + j.motorForce) + j.limitForce);
  } else {
    j.pivotForce = {0.0, 0.0};
    j.motorForce = 0.0;
    j.limitForce = 0.0;
  }
  j.limitPositionImpulse = 0.0;
}

void joint_solve_velocity(World& w, RevoluteJoint& j, const TimeStep& step) {
  Body& A = w.bodies[j.bodyA];
  Body& B = w.bodies[j.bodyB];
  const Vec2 rA = j.rA;
  const Vec2 rB = j.rB;
  const double mA = A.invMass, mB = B.invMass, iA = A.invI, iB = B.invI;
  Vec2& vA = A.linearVelocity;
  Vec2& vB = B.linearVelocity;
  const double cdotX = ((vB.x + (-B.angularVelocity) * rB.y) - vA.x) - (-A.angularVelocity) * rA.y;
  const double cdotY = ((vB.y + B.angularVelocity * rB.x) - vA.y) - A.angularVelocity * rA.x;
  const double fX = (-step.inv_dt) * (j.pivotMass.col1.x * cdotX + j.pivotMass.col2.x * cdotY);
  const double fY = (-step.inv_dt) * (j.pivotMass.col1.y * cdotX + j.pivotMass.col2.y * cdotY);
  j.pivotForce.x += fX;
  j.pivotForce.y += fY;
  const double PX = step.dt * fX;
  const double PY = step.dt * fY;
  vA.x -= mA * PX;
  vA.y -= mA * PY;
  A.angularVelocity -= iA * (rA.x * PY - rA.y * PX);
  vB.x += mB * PX;
  vB.y += mB * PY;
  B.angularVelocity += iB * (rB.x * PY - rB.y * PX);

  if (j.enableMotor && j.limitState != kEqualLimits) {
    const double motorCdot = (B.angularVelocity - A.angularVelocity) - j.motorSpeed;
    double motorForce = ((-step.inv_dt) * j.motorMass) * motorCdot;
    const double oldMotorForce = j.motorForce;
    j.motorForce = b2clamp(j.motorForce + motorForce, -j.maxMotorTorque, j.maxMotorTorque);
    motorForce = j.motorForce - oldMotorForce;
    A.angularVelocity -= (iA * step.dt) * motorForce;
    B.angularVelocity += (iB * step.dt) * motorForce;
  }
  if (j.enableLimit && j.limitState != kInactiveLimit) {
    const double limitCdot = B.angularVelocity - A.angularVelocity;
    double limitForce = ((-step.inv_dt) * j.motorMass) * limitCdot;
    if (j.limitState == kEqualLimits) {
      j.limitForce += limitForce;
    } else if (j.limitState == kAtLowerLimit) {
      const double oldLimitForce = j.limitForce;
      j.limitForce = b2max(j.limitForce + limitForce, 0.0);
      limitForce = j.limitForce - oldLimitForce;
    } else if (j.limitState == kAtUpperLimit) {
      const double oldLimitForce = j.limitForce;
      j.limitForce = b2min(j.limitForce + limitForce, 0.0);
      limitForce = j.limitForce - oldLimitForce;
    }
    A.angularVelocity -= (iA * step.dt) * limitForce;
    B.angularVelocity += (iB * step.dt) * limitForce;
  }
}

bool joint_solve_position(World& w, RevoluteJoint& j) {
  Body& A = w.bodies[j.bodyA];
  Body& B = w.bodies[j.bodyB];
  const double mA = A.invMass, mB = B.invMass, iA = A.invI, iB = B.invI;
  Vec2 rA = lever(A, j.localAnchor1);
  Vec2 rB = lever(B, j.localAnchor2);
  const double p1X = A.sweep.c.x + rA.x;
  const double p1Y = A.sweep.c.y + rA.y;
  const double p2X = B.sweep.c.x + rB.x;
  const double p2Y = B.sweep.c.y + rB.y;
  const double ptpCX = p2X - p1X;
  const double ptpCY = p2Y - p1Y;
  const double positionError = std::sqrt(ptpCX * ptpCX + ptpCY * ptpCY);
  const Mat22 K = joint_k(mA, mB, iA, iB, rA, rB);
  double det = K.col1.x * K.col2.y - K.col2.x * K.col1.y;
  if (det != 0.0) det = 1.0 / det;
  const double bx = -ptpCX, by = -ptpCY;
  const double impulseX = det * (K.col2.y * bx - K.col2.x * by);
  const double impulseY = det * (K.col1.x * by - K.col1.y * bx);
  A.sweep.c.x -= mA * impulseX;
  A.sweep.c.y -= mA * impulseY;
  A.sweep.a -= iA * (rA.x * impulseY - rA.y * impulseX);
  B.sweep.c.x += mB * impulseX;
  B.sweep.c.y += mB * impulseY;
  B.sweep.a += iB * (rB.x * impulseY - rB.y * impulseX);

  double angularError = 0.0;
  // The original synchronizes both bodies here and again after the limit correction;
  // the limit correction reads only sweep angles, so with an active limit the first
  // synchronization is overwritten unread and is skipped (same bits, fewer sin/cos).
  if (!(j.enableLimit && j.limitState != kInactiveLimit)) {
    sync_transform(w, j.bodyA);
    sync_transform(w, j.bodyB);
  } else {
    const double angle = (B.sweep.a - A.sweep.a) - j.referenceAngle;
    double limitImpulse = 0.0;
    if (j.limitState == kEqualLimits) {
      const double limitC = b2clamp(angle, -settings::kMaxAngularCorrection, settings::kMaxAngularCorrection);
      limitImpulse = (-j.motorMass) * limitC;
      angularError = b2abs(limitC);
    } else if (j.limitState == kAtLowerLimit) {
      double limitC = angle - j.lowerAngle;
      angularError = b2max(0.0, -limitC);
      limitC = b2clamp(limitC + settings::kAngularSlop, -settings::kMaxAngularCorrection, 0.0);
      limitImpulse = (-j.motorMass) * limitC;
      const double oldLimitImpulse = j.limitPositionImpulse;
      j.limitPositionImpulse = b2max(j.limitPositionImpulse + limitImpulse, 0.0);
      limitImpulse = j.limitPositionImpulse - oldLimitImpulse;
    } else if (j.limitState == kAtUpperLimit) {
      double limitC = angle - j.upperAngle;
      angularError = b2max(0.0, limitC);
      limitC = b2clamp(limitC - settings::kAngularSlop, 0.0, settings::kMaxAngularCorrection);
      limitImpulse = (-j.motorMass) * limitC;
      const double oldLimitImpulse = j.limitPositionImpulse;
      j.limitPositionImpulse = b2min(j.limitPositionImpulse + limitImpulse, 0.0);
      limitImpulse = j.limitPositionImpulse - oldLimitImpulse;
    }
    A.sweep.a -= iA * limitImpulse;
    B.sweep.a += iB * limitImpulse;
    sync_transform(w, j.bodyA);
    sync_transform(w, j.bodyB);
  }
  return positionError <= settings::kLinearSlop && angularError <= settings::kAngularSlop;
}

}  // namespace qwop
