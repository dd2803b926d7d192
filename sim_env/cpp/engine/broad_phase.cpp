// The broad phase: the dynamic AABB tree with node reuse, proxies, the move buffer and
// new-pair discovery in node-id order (ENGINE.md section 7).
#include "engine.h"
#include "engine_util.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace qwop {

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

namespace {
// A child link, or `self` where there is none (kNull), without a branch.
inline int32_t or_self(int32_t child, int32_t self) {
  static_assert(kNull == -1, "kNull has every bit set");
  return child + ((child >> 31) & (self - child));
}
}  // namespace

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
  // The original's descent: at each internal node, the child whose box centre is nearer
  // the leaf's (Manhattan distance; the second child on a tie). Each choice depends on the
  // last, and which child wins is as good as random to the branch predictor, so the
  // descent is taken two levels per round: both children's choices of the next level are
  // computed alongside this level's (a leaf child stands in for its own children), and
  // both choices are selections, not branches. The choices are the original's.
  const auto norm = [&](int32_t c) {
    return std::fabs((N[c].aabb.lower.x + N[c].aabb.upper.x) / 2 - centerX) +
           std::fabs((N[c].aabb.lower.y + N[c].aabb.upper.y) / 2 - centerY);
  };
  int32_t sibling = t.root;
  while (!N[sibling].is_leaf()) {
    const int32_t c1 = N[sibling].child1;
    const int32_t c2 = N[sibling].child2;
    const int32_t g11 = or_self(N[c1].child1, c1), g12 = or_self(N[c1].child2, c1);
    const int32_t g21 = or_self(N[c2].child1, c2), g22 = or_self(N[c2].child2, c2);
    const bool first = norm(c1) < norm(c2);
    const int32_t next1 = norm(g11) < norm(g12) ? g11 : g12;
    const int32_t next2 = norm(g21) < norm(g22) ? g21 : g22;
    sibling = first ? next1 : next2;
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

namespace {
// A proxy's fat AABB: the fixture's grown by (ex, ey) on every side.
inline void fatten(AABB& out, const AABB& aabb, double ex, double ey) {
#if defined(__SSE2__)
  const __m128d e = _mm_set_pd(ey, ex);
  store_aabb(out, _mm_sub_pd(load_lower(aabb), e), _mm_add_pd(load_upper(aabb), e));
#else
  out.lower.x = aabb.lower.x - ex;
  out.lower.y = aabb.lower.y - ey;
  out.upper.x = aabb.upper.x + ex;
  out.upper.y = aabb.upper.y + ey;
#endif
}
}  // namespace

int32_t World::create_proxy(const AABB& aabb, int32_t userData) {
  const int32_t n = allocate_node();
  TreeNode& node = tree.nodes[n];
  fatten(node.aabb, aabb, settings::kAabbExtension, settings::kAabbExtension);
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
  fatten(node.aabb, aabb, extendX, extendY);
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
//
// The original walks the tree once per moved proxy (children pushed first then second, so
// the second child's subtree is reported first), pruning subtrees whose box misses the
// query, and buffers every overlapping leaf as a pair; then it calls addPair on the pairs
// in that order. Every internal node's box contains its children's (insert_leaf and
// remove_leaf keep that), so the walk reports exactly the leaves that overlap the query.
// addPair changes nothing for a pair whose filters refuse it or whose contact exists, and a
// new contact changes no later pair's outcome but its own copies'. So only the order of the
// new pairs found by one query matters, and the query's overlapping leaves are found by
// testing every leaf directly. Where one query finds two or more new pairs (the filters let
// them through and the bodies have no contact yet), they go in the walk's order
// (walk_reaches_first). The same contacts are created in the same order as the original's,
// without the walk.
bool World::walk_reaches_first(int32_t x, int32_t y) const {
  const TreeNode* N = tree.nodes;
  int32_t dx = 0, dy = 0;
  for (int32_t n = x; N[n].parent != kNull; n = N[n].parent) ++dx;
  for (int32_t n = y; N[n].parent != kNull; n = N[n].parent) ++dy;
  int32_t a = x, b = y;
  for (; dx > dy; --dx) a = N[a].parent;
  for (; dy > dx; --dy) b = N[b].parent;
  // Two distinct leaves: neither is the other's ancestor, so a != b from here on.
  while (N[a].parent != N[b].parent) {
    a = N[a].parent;
    b = N[b].parent;
  }
  return N[N[a].parent].child2 == a;
}

void World::find_new_contacts() {
  static_assert(kMaxBodies <= 64, "one bit per leaf in a 64-bit word");
  if (moveCount == 0) return;
  int32_t leaf[kMaxBodies];
  Filter filter[kMaxBodies];
  double lowerX[kMaxBodies], lowerY[kMaxBodies], upperX[kMaxBodies], upperY[kMaxBodies];
  int32_t leafCount = 0;
  for (int32_t bi = 0; bi < kMaxBodies; ++bi) {
    const Body& b = bodies[bi];
    if (!b.inUse || !b.fixture.present || b.fixture.proxy == kNull) continue;
    const TreeNode& node = tree.nodes[b.fixture.proxy];
    leaf[leafCount] = b.fixture.proxy;
    filter[leafCount] = b.fixture.filter;
    lowerX[leafCount] = node.aabb.lower.x;
    lowerY[leafCount] = node.aabb.lower.y;
    upperX[leafCount] = node.aabb.upper.x;
    upperY[leafCount] = node.aabb.upper.y;
    ++leafCount;
  }
  for (int32_t m = 0; m < moveCount; ++m) {
    const int32_t queryProxy = moveBuffer[m];
    const AABB fat = tree.nodes[queryProxy].aabb;
    const Filter queryFilter = bodies[tree.nodes[queryProxy].userData].fixture.filter;
    uint64_t hits = 0;  // bit k: leaf k overlaps (aabb_overlap on the copied bounds)
    int32_t k = 0;
#if defined(__SSE2__)
    // Two leaves at a time: the same differences and ordered comparisons (a NaN difference
    // is no miss, as in the scalar test).
    const __m128d flx = _mm_set1_pd(fat.lower.x), fly = _mm_set1_pd(fat.lower.y);
    const __m128d fux = _mm_set1_pd(fat.upper.x), fuy = _mm_set1_pd(fat.upper.y);
    const __m128d zero = _mm_setzero_pd();
    for (; k + 2 <= leafCount; k += 2) {
      const __m128d miss = _mm_or_pd(
          _mm_or_pd(_mm_cmpgt_pd(_mm_sub_pd(flx, _mm_loadu_pd(upperX + k)), zero),
                    _mm_cmpgt_pd(_mm_sub_pd(fly, _mm_loadu_pd(upperY + k)), zero)),
          _mm_or_pd(_mm_cmpgt_pd(_mm_sub_pd(_mm_loadu_pd(lowerX + k), fux), zero),
                    _mm_cmpgt_pd(_mm_sub_pd(_mm_loadu_pd(lowerY + k), fuy), zero)));
      hits |= static_cast<uint64_t>(~_mm_movemask_pd(miss) & 3) << k;
    }
#endif
    for (; k < leafCount; ++k) {
      const bool miss = (fat.lower.x - upperX[k] > 0) | (fat.lower.y - upperY[k] > 0) |
                        (lowerX[k] - fat.upper.x > 0) | (lowerY[k] - fat.upper.y > 0);
      hits |= static_cast<uint64_t>(!miss) << k;
    }
    int32_t found[kMaxBodies];
    int32_t count = 0;
    for (; hits != 0; hits &= hits - 1) {
      const int32_t hit = lowest_bit(hits);
      const int32_t n = leaf[hit];
      if (n == queryProxy || !filter_should_collide(filter[hit], queryFilter)) continue;
      if (has_contact(tree.nodes[n].userData, tree.nodes[queryProxy].userData)) continue;
      // Insertion into the walk's order (rarely more than one new pair).
      int32_t at = count++;
      for (; at > 0 && walk_reaches_first(n, found[at - 1]); --at) found[at] = found[at - 1];
      found[at] = n;
    }
    for (int32_t i = 0; i < count; ++i) {
      const int32_t n = found[i];
      const int32_t a = n < queryProxy ? n : queryProxy;
      const int32_t b = n < queryProxy ? queryProxy : n;
      add_pair(tree.nodes[a].userData, tree.nodes[b].userData);
    }
  }
  moveCount = 0;
}

}  // namespace qwop
