// Structural checks of a restored game (snapshot_check.h). Each check names the field at
// fault, so a refused snapshot says where it was damaged.
#include "snapshot_check.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace qwop {

namespace {

struct Fault {
  std::string why;
};

void require(bool ok, const char* what) {
  if (!ok) throw Fault{what};
}

// A bool read from raw bytes: any value but 0 and 1 is undefined behaviour to use.
void require_bool(const bool& b, const char* what) {
  unsigned char v;
  std::memcpy(&v, &b, 1);
  require(v <= 1, what);
}

bool in(int32_t i, int32_t n) { return i >= 0 && i < n; }

// A world list (bodies, joints, contacts) of `slots` slots from `head`: each entry in use,
// once, its back link the entry before; `seen[i]` marks the entries; returns their number.
template <class Slots>
int32_t walk_list(const Slots& at, int32_t slots, int32_t head, bool* seen, const char* what) {
  require(head == kNull || in(head, slots), what);
  int32_t n = 0, prev = kNull;
  for (int32_t i = head; i != kNull; i = at[i].next) {
    require(at[i].inUse && !seen[i] && at[i].prev == prev, what);
    seen[i] = true;
    prev = i;
    ++n;
  }
  return n;
}

// Each body's edge list of one kind (joints or contacts, `head` of a body): side A of owner i
// (code 2i) lies in its body A's list, side B (2i + 1) in body B's, each once, linked both
// ways; every owner in use among the first `owners` has both.
template <class Owners, class Head>
void walk_edges(const World& w, const Owners& at, int32_t owners, Head head, const char* what) {
  bool seen[2 * std::max(kMaxContacts, kMaxJoints)] = {};
  for (int32_t b = 0; b < kMaxBodies; ++b) {
    if (!w.bodies[b].inUse) continue;
    int32_t p = kNull;
    for (int32_t e = head(w.bodies[b]); e != kNull;) {
      require(in(e, 2 * owners) && !seen[e], what);
      const auto& o = at[e >> 1];
      const Edge& edge = o.edge(e & 1);
      require(o.inUse && (e & 1 ? o.bodyB : o.bodyA) == b && edge.prev == p, what);
      seen[e] = true;
      p = e;
      e = edge.next;
    }
  }
  for (int32_t i = 0; i < owners; ++i) {
    if (at[i].inUse) require(seen[2 * i] && seen[2 * i + 1], what);
  }
}

void check_bodies(const World& w, bool seen_body[kMaxBodies]) {
  for (int32_t b = 0; b < kMaxBodies; ++b) {
    const Body& body = w.bodies[b];
    require_bool(body.inUse, "a body's in-use flag");
    if (!body.inUse) continue;
    require(body.type >= kStaticBody && body.type <= kDynamicBody, "a body's type");
    require(body.prev == kNull || in(body.prev, kMaxBodies), "a body's list link");
    require(body.next == kNull || in(body.next, kMaxBodies), "a body's list link");
    require(body.jointList == kNull || in(body.jointList, 2 * kMaxJoints), "a body's joint edge");
    require(body.contactList == kNull || in(body.contactList, 2 * w.contacts.used()), "a body's contact edge");
    require(body.islandIndex >= 0 && body.islandIndex < kMaxBodies, "a body's island index");
    require_bool(body.fixture.present, "a fixture's flag");
    require_bool(body.fixture.isSensor, "a fixture's flag");
    require_bool(body.fixture.aabbAtXf, "a fixture's flag");
    require(body.fixture.present ? in(body.fixture.proxy, w.tree.nodeCount) : body.fixture.proxy == kNull,
            "a fixture's tree proxy");
  }
  require(walk_list(w.bodies, kMaxBodies, w.bodyList, seen_body, "the body list") == w.bodyCount, "the body count");
  for (int32_t b = 0; b < kMaxBodies; ++b) require(seen_body[b] == w.bodies[b].inUse, "the body list");
}

void check_joints(const World& w) {
  bool listed[kMaxJoints] = {};
  for (int32_t j = 0; j < kMaxJoints; ++j) {
    const RevoluteJoint& jt = w.joints[j];
    require_bool(jt.inUse, "a joint's in-use flag");
    if (!jt.inUse) continue;
    for (const bool* f : {&jt.enableLimit, &jt.enableMotor, &jt.collideConnected, &jt.islandFlag}) {
      require_bool(*f, "a joint's flag");
    }
    require(in(jt.bodyA, kMaxBodies) && w.bodies[jt.bodyA].inUse, "a joint's body");
    require(in(jt.bodyB, kMaxBodies) && w.bodies[jt.bodyB].inUse, "a joint's body");
    require(jt.edgeA.other == jt.bodyB && jt.edgeB.other == jt.bodyA, "a joint's edges");
    require(jt.limitState >= kInactiveLimit && jt.limitState <= kEqualLimits, "a joint's limit state");
    require(jt.prev == kNull || in(jt.prev, kMaxJoints), "a joint's list link");
    require(jt.next == kNull || in(jt.next, kMaxJoints), "a joint's list link");
  }
  require(walk_list(w.joints, kMaxJoints, w.jointList, listed, "the joint list") == w.jointCount, "the joint count");
  for (int32_t j = 0; j < kMaxJoints; ++j) require(listed[j] == w.joints[j].inUse, "the joint list");
  walk_edges(w, w.joints, kMaxJoints, [](const Body& b) { return b.jointList; }, "a body's joint edges");
}

void check_contacts(const World& w) {
  const int32_t used = w.contacts.used();
  require(used >= 0 && used <= kMaxContacts, "the contact slots");
  require(w.contactPoolCount >= 0 && w.contactPoolCount <= used, "the contact pool");
  bool pooled[kMaxContacts] = {};
  for (int32_t i = 0; i < w.contactPoolCount; ++i) {
    const int32_t c = w.contactPool[i];
    require(in(c, used) && !pooled[c], "the contact pool");
    pooled[c] = true;
  }
  for (int32_t c = 0; c < used; ++c) {
    const Contact& k = w.contacts[c];
    require_bool(k.inUse, "a contact's in-use flag");
    require(k.inUse != pooled[c], "a contact slot neither in use nor pooled");
    require(k.current.pointCount >= 0 && k.current.pointCount <= 2, "a manifold's point count");
    require(k.current.type >= kManifoldUnset && k.current.type <= kManifoldFaceB, "a manifold's type");
    require(k.otherType >= kManifoldUnset && k.otherType <= kManifoldFaceB, "a manifold's type");
    if (!k.inUse) continue;
    require(in(k.bodyA, kMaxBodies) && w.bodies[k.bodyA].inUse, "a contact's body");
    require(in(k.bodyB, kMaxBodies) && w.bodies[k.bodyB].inUse, "a contact's body");
    require(k.nodeA.other == k.bodyB && k.nodeB.other == k.bodyA, "a contact's edges");
    require(k.prev == kNull || in(k.prev, used), "a contact's list link");
    require(k.next == kNull || in(k.next, used), "a contact's list link");
  }
  bool listed[kMaxContacts] = {};
  const int32_t n = walk_list(w.contacts, used, w.contactList, listed, "the contact list");
  require(w.contactCount >= n, "the contact count");  // contacts ever made, as the original counts them
  for (int32_t c = 0; c < used; ++c) require(listed[c] == w.contacts[c].inUse, "the contact list");
  walk_edges(w, w.contacts, used, [](const Body& b) { return b.contactList; }, "a body's contact edges");
}

// The broad phase's tree: a proper binary tree from its root, each leaf a fixture's proxy,
// and every other allocated node on the free list, each node once.
void check_tree(const World& w) {
  const DynamicTree& t = w.tree;
  require(t.nodeCount >= 0 && t.nodeCount <= kMaxNodes, "the tree's node count");
  require(t.root == kNull || in(t.root, t.nodeCount), "the tree's root");
  require(t.freeList == kNull || in(t.freeList, t.nodeCount), "the tree's free list");
  bool seen[kMaxNodes] = {};
  int32_t stack[kMaxNodes], top = 0;
  if (t.root != kNull) {
    require(t.nodes[t.root].parent == kNull, "the tree's root");
    stack[top++] = t.root;
    seen[t.root] = true;
  }
  while (top > 0) {
    const int32_t n = stack[--top];
    const TreeNode& node = t.nodes[n];
    if (node.child1 == kNull) {
      require(node.child2 == kNull, "a tree leaf");
      require(in(node.userData, kMaxBodies), "a tree leaf's body");
      const Body& b = w.bodies[node.userData];
      require(b.inUse && b.fixture.present && b.fixture.proxy == n, "a tree leaf's body");
      continue;
    }
    for (int32_t c : {static_cast<int32_t>(node.child1), static_cast<int32_t>(node.child2)}) {
      require(in(c, t.nodeCount) && !seen[c] && t.nodes[c].parent == n, "the tree's links");
      seen[c] = true;
      stack[top++] = c;  // each node is pushed once, so the stack never holds more than kMaxNodes
    }
  }
  bool in_tree[kMaxNodes];
  std::memcpy(in_tree, seen, sizeof(seen));
  for (int32_t n = t.freeList; n != kNull; n = t.nodes[n].parent) {
    require(in(n, t.nodeCount) && !seen[n], "the tree's free list");
    seen[n] = true;
  }
  for (int32_t n = 0; n < t.nodeCount; ++n) require(seen[n], "a tree node neither in the tree nor free");
  // Every fixture is a leaf of the tree (the broad phase walks from leaves to the root).
  for (int32_t b = 0; b < kMaxBodies; ++b) {
    const Body& body = w.bodies[b];
    if (body.inUse && body.fixture.present) {
      const TreeNode& leaf = t.nodes[body.fixture.proxy];
      require(in_tree[body.fixture.proxy] && leaf.child1 == kNull && leaf.userData == b, "a fixture's tree proxy");
    }
  }
  require(w.moveCount >= 0 && w.moveCount <= kMaxMoveBuffer, "the move buffer's count");
  for (int32_t i = 0; i < w.moveCount; ++i) {
    const int32_t p = w.moveBuffer[i];
    require(in(p, t.nodeCount) && in_tree[p] && t.nodes[p].child1 == kNull, "the move buffer");
  }
}

void check_world(const World& w) {
  require_bool(w.allowSleep, "the world's flags");
  require_bool(w.warmStarting, "the world's flags");
  require_bool(w.overflow, "the world's flags");
  require(!w.overflow, "the world's overflow flag (a state past the engine's capacity)");
  require((w.flags & ~(World::kWorldNewFixture | World::kWorldLocked)) == 0 && (w.flags & World::kWorldLocked) == 0,
          "the world's flags");
  require(w.trigVariant == trig::kFma || w.trigVariant == trig::kGeneric, "the sin/cos variant");
  bool seen_body[kMaxBodies] = {};
  check_bodies(w, seen_body);
  check_joints(w);
  check_contacts(w);
  check_tree(w);
}

// The game's bodies and joints: each its own, and all the world holds but the engine's ground
// body, so that a reset finds the free slots it rebuilds the runner in.
void check_game(const Game& g) {
  const World& w = g.world;
  bool owned[kMaxBodies] = {};
  auto body = [&](int32_t b, const char* what) {
    require(in(b, kMaxBodies) && w.bodies[b].inUse && !owned[b], what);
    owned[b] = true;
  };
  bool owned_joint[kMaxJoints] = {};
  auto joint = [&](int32_t j, const char* what) {
    require(in(j, kMaxJoints) && w.joints[j].inUse && !owned_joint[j], what);
    owned_joint[j] = true;
  };
  for (int32_t p = 0; p < kNumParts; ++p) body(g.partBody[p], "a runner part's body");
  for (int32_t j = 0; j < kNumJoints; ++j) joint(g.joint[j], "a runner joint");
  for (int32_t i = 0; i < kNumTiles; ++i) body(g.tile[i], "a track tile's body");
  body(g.block, "the block's body");
  body(g.hurdleBase, "the hurdle's body");
  body(g.hurdleTop, "the hurdle's body");
  joint(g.hurdleJoint, "the hurdle's joint");
  require(w.bodyCount == kMaxBodies && w.jointCount == kMaxJoints, "the world's body and joint counts");
  for (int32_t b = 0; b < kMaxBodies; ++b) {
    if (!owned[b]) require(!w.bodies[b].fixture.present && w.bodies[b].jointList == kNull, "the ground body");
  }
  require(g.keys >= 0 && g.keys <= (kKeyQ | kKeyW | kKeyO | kKeyP), "the key mask");
  require(g.updates >= 0 && g.resets >= 0, "the update counts");
  for (const bool* f : {&g.flags.fallen, &g.flags.gameEnded, &g.flags.jumped, &g.flags.jumpLanded, &g.flags.pause,
                        &g.flags.firstClick, &g.runnerExists}) {
    require_bool(*f, "the game's flags");
  }
  require(g.runnerExists, "the runner");
}

}  // namespace

std::string check_game_structure(const Game& g) {
  try {
    check_world(g.world);
    check_game(g);
  } catch (const Fault& f) {
    return f.why;
  }
  return {};
}

}  // namespace qwop
