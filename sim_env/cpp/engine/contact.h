// Contacts, their manifolds and the store that holds a world's contacts (contact_manager.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "body.h"

namespace qwop {

enum ContactFlags : uint32_t {
  kContactSensor = 0x0001,
  kContactContinuous = 0x0002,
  kContactIsland = 0x0004,
  kContactToi = 0x0008,
  kContactTouching = 0x0010,
  kContactEnabled = 0x0020,
  kContactFilter = 0x0040,
};

enum ManifoldType : int32_t { kManifoldUnset = -1, kManifoldCircles = 0, kManifoldFaceA = 1, kManifoldFaceB = 2 };

struct ManifoldPoint {
  Vec2 localPoint;
  double normalImpulse, tangentImpulse;
};

struct Manifold {
  ManifoldPoint points[2];
  Vec2 localPlaneNormal;
  Vec2 localPoint;
  // points[i]'s contact id: referenceEdge | incidentEdge<<8 | incidentVertex<<16 | flip<<24
  // (beside the points rather than in them, which would pad each point by 4 bytes).
  uint32_t ids[2];
  int8_t type;  // ManifoldType
  int8_t pointCount;
};

struct WorldManifold {
  Vec2 normal;
  Vec2 points[2];
};

// The fields of a manifold that collide_polygons can return without writing. The original
// keeps two manifolds per contact and swaps them on every update, so where collision leaves
// them, they are those of two updates before (the detail traces show them); a contact keeps
// them for its second manifold, whose points are never read again once it is swapped in
// (collision writes its point count first, and the points below it).
struct ManifoldHeader {
  Vec2 localPlaneNormal;
  Vec2 localPoint;
};

struct Contact {
  Manifold current;      // this update's manifold (the previous update's until collide runs)
  ManifoldHeader other;  // the other manifold's fields that can outlive a swap (its type below)
  uint32_t flags;
  Edge nodeA, nodeB;
  int8_t bodyA, bodyB;  // each body owns exactly one fixture
  int8_t prev, next;    // world contact list
  int8_t otherType;     // the other manifold's type
  bool inUse;
  const Edge& edge(int side) const { return side ? nodeB : nodeA; }  // side 0 = A, 1 = B
  Manifold& manifold() { return current; }
  const Manifold& manifold() const { return current; }
};

// A world's contacts. Slots are taken in order (a new slot is zeroed) and reused through the
// world's pool, so the slots below used() are all a world has ever held; they are stored
// outside the world's block and the store grows as the game needs them (13 is the most ever
// seen at once), so a game costs the memory of the contacts it holds, not of kMaxContacts.
// Copies copy the used slots; the capacity is not part of the game's state.
class ContactStore {
 public:
  ContactStore() = default;
  ContactStore(const ContactStore& o) { *this = o; }
  ContactStore& operator=(const ContactStore& o) {
    if (this != &o) assign(o.slots_.get(), o.used_);
    return *this;
  }
  ContactStore(ContactStore&&) noexcept = default;
  ContactStore& operator=(ContactStore&&) noexcept = default;

  Contact& operator[](int32_t i) { return slots_[i]; }
  const Contact& operator[](int32_t i) const { return slots_[i]; }
  const Contact* data() const { return slots_.get(); }
  int32_t used() const { return used_; }
  int32_t capacity() const { return capacity_; }
  size_t bytes() const { return static_cast<size_t>(capacity_) * sizeof(Contact); }
  // A new zeroed slot, or kNull when kMaxContacts are taken.
  int32_t take() {
    if (used_ == kMaxContacts) return kNull;
    if (used_ == capacity_) grow(used_ + 1);
    std::memset(static_cast<void*>(&slots_[used_]), 0, sizeof(Contact));
    return used_++;
  }
  void clear() { used_ = 0; }
  // The slots become the `n` contacts whose bytes start at `slots` (any alignment: a snapshot's).
  void assign(const void* slots, int32_t n) {
    if (n > capacity_) grow(n);
    if (n > 0) std::memcpy(static_cast<void*>(slots_.get()), slots, static_cast<size_t>(n) * sizeof(Contact));
    used_ = n;
  }

 private:
  // Room for exactly n slots: a game grows a slot at a time, a handful of times in its life.
  void grow(int32_t n) {
    std::unique_ptr<Contact[]> more(new Contact[static_cast<size_t>(n)]);
    if (used_ > 0) std::memcpy(static_cast<void*>(more.get()), slots_.get(), static_cast<size_t>(used_) * sizeof(Contact));
    slots_ = std::move(more);
    capacity_ = n;
  }
  std::unique_ptr<Contact[]> slots_;
  int32_t capacity_ = 0, used_ = 0;
};

// Receives contact begin events (fired inside step, before solving).
class ContactListener {
 public:
  virtual void begin_contact(class World& world, int32_t contact) = 0;

 protected:
  ~ContactListener() = default;
};

}  // namespace qwop
