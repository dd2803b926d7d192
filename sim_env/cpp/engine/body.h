// Bodies: their types and flags, their definition, and the edges that link them to joints and contacts.
#pragma once

#include <cstdint>

#include "shape.h"

namespace qwop {

enum BodyType : int32_t { kStaticBody = 0, kKinematicBody = 1, kDynamicBody = 2 };

// Body flags as the original numbers them (visible in the detail traces).
enum BodyFlags : uint32_t {
  kBodyIsland = 0x0001,
  kBodyAwake = 0x0002,
  kBodyAllowSleep = 0x0004,
  kBodyBullet = 0x0008,
  kBodyFixedRotation = 0x0010,
  kBodyActive = 0x0020,
};

struct BodyDef {
  int32_t type = kStaticBody;
  Vec2 position{0, 0};
  double angle = 0;
  bool awake = true;
  bool allowSleep = true;
  bool fixedRotation = false;
  bool bullet = false;
  bool active = true;
  double linearDamping = 0;
  double angularDamping = 0;
  double inertiaScale = 1;
  int32_t userData = kNull;
};

// Edges are addressed as owner*2 + side (side 0 = A, 1 = B).
// Indices inside a world's slots fit a signed byte (asserted with the capacities above), and
// the narrow fields keep a game's contacts, joints and tree small (memory per game decides
// how many games a batch keeps in the cache).
struct Edge {
  int8_t other;  // body index
  int8_t prev, next;  // edge codes
};

struct Body {
  Transform xf;
  // xf.R is R(xfAngle). sin/cos are pure functions, so when the angle's bits have not
  // changed the rotation is reused instead of recomputed: same bits, less time.
  double xfAngle;
  Sweep sweep;
  Vec2 linearVelocity;
  double angularVelocity;
  // The original's force vector is always zero here: the game applies none (only the head's
  // torque), and the engine offers no way to. Integration adds invMass * 0.0, as it does.
  double torque;
  double sleepTime;
  double mass, invMass, I, invI;
  double inertiaScale, linearDamping, angularDamping;
  Fixture fixture;
  uint32_t flags;
  int32_t userData;
  int8_t prev, next;  // world body list
  int8_t jointList;   // joint edge code or kNull
  int8_t contactList; // contact edge code or kNull
  int8_t islandIndex;
  int8_t type;  // BodyType
  bool inUse;
};

}  // namespace qwop
