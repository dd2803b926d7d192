// Contacts and their manifold pool: filtering, creation, destruction, the narrow phase
// update with begin-contact callbacks, world manifolds (ENGINE.md sections 9 and 10).
#include <cstring>
#include <utility>

#include "engine.h"
#include "engine_util.h"

namespace qwop {

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

bool World::has_contact(int32_t bA, int32_t bB) const {
  for (int32_t e = bodies[bB].contactList; e != kNull; e = contact_edge(e).next) {
    if (contact_edge(e).other == bA) {
      const Contact& c = contacts[e >> 1];
      if (c.bodyA == bA && c.bodyB == bB) return true;
      if (c.bodyA == bB && c.bodyB == bA) return true;
    }
  }
  return false;
}

void World::add_pair(int32_t bA, int32_t bB) {
  if (bA == bB) return;
  // The original tests for an existing contact, then joints, then the filter. All three
  // only decide whether to go on, so the cheapest (and most often failing: the runner's
  // parts never collide with each other) goes first.
  if (!filter_should_collide(bodies[bA].fixture.filter, bodies[bB].fixture.filter)) return;
  if (has_contact(bA, bB)) return;
  if (!should_collide(bB, bA)) return;

  int32_t ci = kNull;
  if (contactPoolCount > 0) {
    ci = contactPool[--contactPoolCount];
  } else if ((ci = contacts.take()) != kNull) {
    Contact& fresh = contacts[ci];
    fresh.current.type = kManifoldUnset;
    fresh.otherType = kManifoldUnset;
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
  // The original swaps its two manifolds here: the one computed now starts from the other's
  // fields, the previous update's are kept as the other and as the warm start's source.
  Manifold& m = c.manifold();
  std::swap(m.localPlaneNormal, c.other.localPlaneNormal);
  std::swap(m.localPoint, c.other.localPoint);
  std::swap(m.type, c.otherType);
  const int32_t oldCount = m.pointCount;
  ManifoldPoint oldPoints[2];
  std::memcpy(static_cast<void*>(oldPoints), m.points, sizeof(oldPoints));
  const uint32_t oldIds[2] = {m.ids[0], m.ids[1]};
  c.flags |= kContactEnabled;
  bool touching = false;
  const bool wasTouching = (c.flags & kContactTouching) != 0;
  Body& A = bodies[c.bodyA];
  Body& B = bodies[c.bodyB];
  const bool aabbOverlap = aabb_overlap(A.fixture.aabb, B.fixture.aabb);
  if (c.flags & kContactSensor) {
    // The game has no sensors. (A sensor's manifold here would keep the previous update's
    // points where the original's shows those of two updates before.)
    touching = false;
  } else {
    if (A.type != kDynamicBody || (A.flags & kBodyBullet) || B.type != kDynamicBody ||
        (B.flags & kBodyBullet)) {
      c.flags |= kContactContinuous;
    } else {
      c.flags &= ~kContactContinuous;
    }
    if (aabbOverlap) {
      collide_polygons(m, A.fixture.shape(), A.xf, B.fixture.shape(), B.xf);
      touching = m.pointCount > 0;
      for (int32_t i = 0; i < m.pointCount; ++i) {
        ManifoldPoint& mp2 = m.points[i];
        mp2.normalImpulse = 0.0;
        mp2.tangentImpulse = 0.0;
        for (int32_t k = 0; k < oldCount; ++k) {
          if (oldIds[k] == m.ids[i]) {
            mp2.normalImpulse = oldPoints[k].normalImpulse;
            mp2.tangentImpulse = oldPoints[k].tangentImpulse;
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
  const double radiusA = Fixture::radius;
  const double radiusB = Fixture::radius;
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

}  // namespace qwop
