// The broad phase's dynamic AABB tree (broad_phase.cpp).
#pragma once

#include <cstdint>

#include "constants.h"
#include "math_types.h"

namespace qwop {

struct TreeNode {
  AABB aabb;
  int8_t userData;  // body index for leaves, kNull for internal nodes
  int8_t parent;    // doubles as the free-list link
  int8_t child1, child2;
  bool is_leaf() const { return child1 == kNull; }
};

// Node index == node id: a new node takes the next id, a recycled one keeps its id.
struct DynamicTree {
  TreeNode nodes[kMaxNodes];
  int32_t root;
  int32_t freeList;
  int32_t nodeCount;  // nodes ever allocated (the id counter)
};

}  // namespace qwop
