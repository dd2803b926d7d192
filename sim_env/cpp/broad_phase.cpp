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
// The original walks the tree once per moved proxy (children pushed first then second,
// pruning subtrees whose box misses the query). Every internal node's box contains its
// children's (insert_leaf and remove_leaf keep that), so a leaf that overlaps the query is
// never pruned, and the walk reports exactly the overlapping leaves in the order a full
// walk reaches them. That order is taken once, and each query tests the leaves directly:
// the same pairs in the same order, without the walk. A pair whose fixtures' filters
// refuse it is not sent: add_pair would only turn it down (its first test), and leaving out
// every copy of a pair that changes nothing leaves the others' effects as they were.
void World::find_new_contacts(StepScratch* scratch) {
  static_assert(kMaxNodes <= 64, "one bit per leaf in a 64-bit word");
  Pair local[kMaxPairs];
  Pair* pairs = scratch ? scratch->pairs : local;
  int32_t pairCount = 0;
  int32_t leaf[kMaxNodes];
  Filter filter[kMaxNodes];
  double lowerX[kMaxNodes], lowerY[kMaxNodes], upperX[kMaxNodes], upperY[kMaxNodes];
  int32_t leafCount = 0;
  if (tree.root != kNull && moveCount > 0) {
    int32_t stack[kMaxNodes];
    int32_t count = 0;
    stack[count++] = tree.root;
    while (count > 0) {
      const int32_t n = stack[--count];
      const TreeNode& node = tree.nodes[n];
      if (node.is_leaf()) {
        leaf[leafCount] = n;
        filter[leafCount] = bodies[node.userData].fixture.filter;
        lowerX[leafCount] = node.aabb.lower.x;
        lowerY[leafCount] = node.aabb.lower.y;
        upperX[leafCount] = node.aabb.upper.x;
        upperY[leafCount] = node.aabb.upper.y;
        ++leafCount;
      } else if (count + 2 > kMaxNodes) {
        overflow = true;
      } else {
        stack[count++] = node.child1;
        stack[count++] = node.child2;
      }
    }
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
    for (; hits != 0; hits &= hits - 1) {
      const int32_t hit = lowest_bit(hits);
      const int32_t n = leaf[hit];
      if (n == queryProxy || !filter_should_collide(filter[hit], queryFilter)) continue;
      if (pairCount >= kMaxPairs) {
        overflow = true;
        continue;
      }
      Pair& p = pairs[pairCount++];
      p.proxyA = n < queryProxy ? n : queryProxy;
      p.proxyB = n < queryProxy ? queryProxy : n;
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

}  // namespace qwop
