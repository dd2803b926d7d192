// The world: its state as one block of bytes, its contacts beside it, and every operation on it (world.cpp, world_step.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "contact.h"
#include "dynamic_tree.h"
#include "joint.h"
#include "step.h"

namespace qwop {

// Blocks of state (WorldState, GameState) are copied and cleared as bytes, padding included,
// so that equal states have equal bytes (snapshots are compared byte for byte).
template <class Block>
inline void copy_block(Block& dst, const Block& src) {
  static_assert(std::is_trivially_copyable_v<Block> && std::is_standard_layout_v<Block>, "a block of bytes");
  std::memcpy(static_cast<void*>(&dst), &src, sizeof(Block));
}
template <class Block>
inline void zero_block(Block& b) {
  static_assert(std::is_trivially_copyable_v<Block> && std::is_standard_layout_v<Block>, "a block of bytes");
  std::memset(static_cast<void*>(&b), 0, sizeof(Block));
}

// Everything a world holds except its contacts: one trivially copyable block.
struct WorldState {
  Body bodies[kMaxBodies];
  RevoluteJoint joints[kMaxJoints];
  // Destroyed contacts are pooled and reused last-destroyed-first with their stale
  // manifolds, as the original's factory does (only visible in diagnostics).
  int32_t contactPool[kMaxContacts];
  int32_t contactPoolCount;
  DynamicTree tree;
  int32_t moveBuffer[kMaxMoveBuffer];
  int32_t moveCount;
  Vec2 gravity;
  double inv_dt0;
  int32_t bodyList, jointList, contactList;
  int32_t bodyCount, jointCount, contactCount;
  uint32_t flags;  // kWorldNewFixture | kWorldLocked
  bool allowSleep;
  bool warmStarting;
  bool overflow;  // a capacity was exceeded; the state is no longer trustworthy
  trig::Variant trigVariant;  // whose sin/cos the world computes; set before the first body
};

// The last wave plan of an island of at least kMinJoints joints (World::plan_joint_waves):
// the runner's island mostly has the same joints in the same order from step to step. A
// cache outside the world's state (snapshots neither hold nor compare it); count -1: none.
struct WavePlan {
  static constexpr int32_t kMinJoints = 4;  // smaller islands (the hurdle's) plan every time
  int8_t joints[kMaxJoints];
  int8_t order[kMaxJoints];
  int8_t start[kMaxJoints + 1];
  int8_t count = -1, waves = 0;
};

class World : public WorldState {
 public:
  World() = default;
  // The block is copied as bytes, the contacts slot by slot.
  World(const World& o) : WorldState(), contacts(o.contacts), plan(o.plan) { copy_block<WorldState>(*this, o); }
  World& operator=(const World& o) {
    if (this != &o) {
      copy_block<WorldState>(*this, o);
      contacts = o.contacts;
      plan = o.plan;
    }
    return *this;
  }

  ContactStore contacts;
  WavePlan plan;

  void init(Vec2 gravity, bool allowSleep, trig::Variant variant = trig::kFma);

  int32_t create_body(const BodyDef& def);
  void destroy_body(int32_t b);
  void create_fixture(int32_t b, const FixtureDef& def);
  int32_t create_joint(const RevoluteJointDef& def);
  void destroy_joint(int32_t j);

  void set_position_and_angle(int32_t b, Vec2 p, double angle);
  void set_position(int32_t b, Vec2 p) { set_position_and_angle(b, p, bodies[b].sweep.a); }
  void set_angle(int32_t b, double angle) { set_position_and_angle(b, bodies[b].xf.position, angle); }
  void set_awake(int32_t b, bool flag);
  void set_bullet(int32_t b, bool flag);
  void apply_torque(int32_t b, double torque);
  void set_gravity(Vec2 g) { gravity = g; }

  void step(double dt, int32_t velocityIterations, int32_t positionIterations,
            ContactListener* listener, StepScratch& scratch);

  // step() in phases, for stepping several worlds in lock step (world_lockstep.cpp):
  // begin_step, clear_island_flags, then every island (next_island_seed, build_island,
  // island_prepare, the velocity iterations, island_integrate, the position iterations,
  // island_sleep, release_island), end_solve, end_step. solve_islands does the islands in turn.
  TimeStep begin_step(double dt, int32_t velocityIterations, int32_t positionIterations, ContactListener* listener,
                      StepScratch& scratch);
  void clear_island_flags();
  int32_t next_island_seed() const;  // kNull when every awake body is in an island
  void build_island(int32_t seed, StepScratch& s);
  void solve_island(const TimeStep& step, StepScratch& s);  // prepare, iterations, integrate, sleep
  void plan_joint_waves(StepScratch& s);
  void island_prepare(const TimeStep& step, StepScratch& s, bool with_joints = true);
  void island_integrate(const TimeStep& step, StepScratch& s);
  void island_sleep(const TimeStep& step, StepScratch& s);
  void release_island(const StepScratch& s);
  void solve_islands(const TimeStep& step, StepScratch& s);
  void end_solve(StepScratch& s);
  void end_step(const TimeStep& step);
  // Asks the CPU to start loading what a step reads first (bodies, joints, tree): a batch
  // calls it for the next games while it steps these (batch.cpp).
  void prefetch() const;

  void world_manifold(int32_t contact, WorldManifold& out) const;

  // Walk helpers for diagnostics.
  int32_t body_list() const { return bodyList; }
  int32_t contact_list() const { return contactList; }
  int32_t joint_list() const { return jointList; }

  static constexpr uint32_t kWorldNewFixture = 0x0001;
  static constexpr uint32_t kWorldLocked = 0x0002;

 private:
  // broad phase
  int32_t allocate_node();
  void free_node(int32_t n);
  void insert_leaf(int32_t leaf);
  void remove_leaf(int32_t leaf);
  int32_t create_proxy(const AABB& aabb, int32_t userData);
  void destroy_proxy(int32_t proxy);
  void move_proxy(int32_t proxy, const AABB& aabb, Vec2 displacement);
  void buffer_move(int32_t proxy);
  void unbuffer_move(int32_t proxy);
  void find_new_contacts();
  bool walk_reaches_first(int32_t x, int32_t y) const;
  void synchronize_fixture(int32_t b, const Transform& xf1, bool aabb1Known);
  void synchronize_fixtures(int32_t b, const StepScratch& s);
  void reset_mass_data(int32_t b);

  // contacts
  void add_pair(int32_t bodyA, int32_t bodyB);
  bool has_contact(int32_t bodyA, int32_t bodyB) const;
  void destroy_contact(int32_t c);
  void collide(ContactListener* listener);
  void update_contact(int32_t c, ContactListener* listener);
  bool should_collide(int32_t b, int32_t other) const;
  void flag_contacts_for_filtering(int32_t bodyA, int32_t bodyB);


  Edge& joint_edge(int32_t code) { return code & 1 ? joints[code >> 1].edgeB : joints[code >> 1].edgeA; }
  Edge& contact_edge(int32_t code) { return code & 1 ? contacts[code >> 1].nodeB : contacts[code >> 1].nodeA; }
  const Edge& contact_edge(int32_t code) const {
    return code & 1 ? contacts[code >> 1].nodeB : contacts[code >> 1].nodeA;
  }
};

}  // namespace qwop
