// Boxes (the only shape QWOP makes), collision filters and fixtures (shape.cpp).
#pragma once

#include <cstdint>

#include "constants.h"
#include "math_types.h"

namespace qwop {

// A box centred on its body, the only shape QWOP makes. Fixtures store only the half
// extents and build this when collision or mass code needs it (it is 152 bytes, and a
// game has 18 of them): the same values setAsBox gives, fewer bytes per game.
struct PolygonShape {
  Vec2 vertices[4];
  Vec2 normals[4];
  Vec2 centroid;
  double radius;
  static PolygonShape box(double hx, double hy);
  void compute_aabb(AABB& out, const Transform& xf) const;
  void compute_mass(double density, double& mass, Vec2& center, double& inertia) const;
};

// PolygonShape::box(hx, hy).compute_aabb(out, xf), the same bits, from the box's symmetry (shape.cpp).
void box_aabb(AABB& out, double hx, double hy, const Transform& xf);

struct Filter {
  uint16_t categoryBits;
  uint16_t maskBits;
  int16_t groupIndex;
};

// The game gives every body at most one fixture, so the fixture lives inside its body.
struct Fixture {
  double hx, hy;  // setAsBox half extents
  // The box's AABB (tight + radius) at the body's transform xf, when aabbAtXf: set by the
  // synchronizes, cleared when the step's integration moves xf on. The next step's swept
  // AABB starts at that transform, so it reuses this instead of computing it again.
  AABB aabb;
  double density, friction, restitution;
  Filter filter;
  int32_t proxy;  // tree node index (== node id), or kNull
  bool present;
  bool isSensor;
  bool aabbAtXf;
  PolygonShape shape() const { return PolygonShape::box(hx, hy); }
  static constexpr double radius = settings::kLinearSlop;  // every box's (setAsBox)
};

struct FixtureDef {
  double hx = 0, hy = 0;  // setAsBox half extents
  double friction = 0.2;
  double restitution = 0;
  double density = 0;
  Filter filter{1, 0xFFFF, 0};
  bool isSensor = false;
};

}  // namespace qwop
