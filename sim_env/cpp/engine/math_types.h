// The engine's vector, rotation, transform, sweep and box types.
#pragma once

#include "trig.h"

namespace qwop {

struct Vec2 {
  double x, y;
};

// 2x2 matrix stored by columns.
struct Mat22 {
  Vec2 col1, col2;
  // R(angle), with sin and cos as the world's variant of glibc computes them (trig.h).
  void set_angle(double angle, trig::Variant v) {
    const trig::SinCos r = trig::sincos(v, angle);
    col1.x = r.c;
    col2.x = -r.s;
    col1.y = r.s;
    col2.y = r.c;
  }
};

struct Transform {
  Vec2 position;
  Mat22 R;
};

// The original's sweep also has a time t0, read only by continuous collision (TOI), which
// the game's world never runs (continuousPhysics is off: ENGINE.md).
struct Sweep {
  Vec2 localCenter, c0, c;
  double a0, a;
};

struct AABB {
  Vec2 lower, upper;
};

}  // namespace qwop
