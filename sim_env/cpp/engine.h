// Rigid-body engine that reproduces the physics engine inside the original QWOP
// (a Box2D 2.1a-lineage port with a Box2D 2.0 force-based revolute joint).
//
// Written from ../shared/qwop-reference/ENGINE.md. Every formula keeps the operation
// order of the original because the game is chaotic: one changed rounding grows to a
// different run within a few hundred updates. Build with -ffp-contract=off and without
// fast-math.
//
// Layout: state lives in arrays addressed by int indices. Bodies, joints and the tree are
// fixed-capacity arrays in one trivially copyable block (WorldState); contacts live in a
// ContactStore beside it, which grows with what the game holds (most of kMaxContacts is
// never used, and memory per game decides how many games a batch keeps in the cache). Linked
// lists (bodies, joints, contacts, edges) are kept exactly as the original keeps them
// (prepend order), because list order decides island order, solver order and contact order.
//
// One concept per file: shape.cpp (boxes, AABBs, mass), world.cpp (bodies, fixtures,
// joint and body lifecycle), broad_phase.cpp (dynamic tree, pairs), contact_manager.cpp
// (contacts and their manifold pool), collision.cpp (box-box manifolds), contact_solver.cpp
// (velocity and position solver), revolute_joint.cpp, world_step.cpp (step, islands,
// sleep); engine_util.h holds the small helpers they share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "trig.h"

namespace qwop {

// Capacities of a world's pools (bodies, joints and tree nodes are in every game's block, so
// every slot costs memory in every game; contact slots are allocated as a game needs them).
// QWOP has 18 bodies (3 track tiles, the block, the hurdle's two and the runner's 12) plus
// the engine's ground body, and 12 joints; a reset destroys the runner before it builds the
// new one, so these are never exceeded. 18 proxies make at most 35 tree nodes; a step moves
// each proxy at most twice. The most contacts seen at once over every trace and thousands of
// random runs is 13, so 48 leaves a wide margin. Exceeding a capacity sets World::overflow, which the bindings
// report as an error instead of a wrong state.
constexpr int kMaxBodies = 19;
constexpr int kMaxJoints = 12;
constexpr int kMaxContacts = 48;
constexpr int kMaxNodes = 36;
constexpr int kMaxMoveBuffer = 48;
constexpr int kNull = -1;
// Body, contact, joint and node indices and edge codes (slot * 2 + side) are stored in int8_t.
static_assert(kMaxBodies <= 127 && 2 * kMaxContacts <= 127 && 2 * kMaxJoints <= 127 && kMaxNodes <= 127,
              "a world's indices must fit the int8_t fields that store them");

// ---- settings (ENGINE.md section 1) ----
namespace settings {
constexpr double kPi = 3.141592653589793;
constexpr double kAabbExtension = 0.1;
constexpr double kAabbMultiplier = 2.0;
constexpr double kLinearSlop = 0.005;
constexpr double kVelocityThreshold = 1.0;
constexpr double kMaxLinearCorrection = 0.2;
constexpr double kMaxTranslation = 2.0;
constexpr double kMaxTranslationSquared = 4.0;
constexpr double kContactBaumgarte = 1.0;
constexpr double kTimeToSleep = 0.5;
constexpr double kLinearSleepTolerance = 0.01;
// Evaluated at run time in the same expression order as the original.
extern const double kAngularSlop;
extern const double kMaxAngularCorrection;
extern const double kMaxRotation;
extern const double kMaxRotationSquared;
extern const double kAngularSleepTolerance;
}  // namespace settings

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

struct FixtureDef {
  double hx = 0, hy = 0;  // setAsBox half extents
  double friction = 0.2;
  double restitution = 0;
  double density = 0;
  Filter filter{1, 0xFFFF, 0};
  bool isSensor = false;
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

struct RevoluteJointDef {
  int32_t bodyA = kNull, bodyB = kNull;
  Vec2 localAnchorA{0, 0}, localAnchorB{0, 0};
  double referenceAngle = 0;
  bool enableLimit = false;
  double lowerAngle = 0, upperAngle = 0;
  bool enableMotor = false;
  double maxMotorTorque = 0, motorSpeed = 0;
  bool collideConnected = false;
};

enum LimitState : int32_t { kInactiveLimit = 0, kAtLowerLimit = 1, kAtUpperLimit = 2, kEqualLimits = 3 };

// Box2D 2.0 force-based revolute joint (ENGINE.md section 14b).
struct RevoluteJoint {
  Vec2 localAnchor1, localAnchor2;
  Vec2 pivotForce;
  double referenceAngle;
  double motorForce, limitForce, limitPositionImpulse;
  double lowerAngle, upperAngle;
  double maxMotorTorque, motorSpeed;
  double motorMass;
  Edge edgeA, edgeB;
  int8_t bodyA, bodyB;
  int8_t prev, next;  // world joint list
  int8_t limitState;  // LimitState
  bool enableLimit, enableMotor;
  bool collideConnected;
  bool islandFlag;
  bool inUse;
};

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

// Receives contact begin events (fired inside step, before solving).
class ContactListener {
 public:
  virtual void begin_contact(class World& world, int32_t contact) = 0;

 protected:
  ~ContactListener() = default;
};

// Scratch space for solving one island; not part of the world state.
struct ContactConstraintPoint {
  Vec2 localPoint, rA, rB;
  double normalImpulse, tangentImpulse;
  double normalMass, tangentMass, equalizedMass, velocityBias;
};

struct ContactConstraint {
  ContactConstraintPoint points[2];
  Vec2 localPlaneNormal, localPoint, normal;
  Mat22 normalMass, K;
  double radius, friction, restitution;
  int32_t bodyA, bodyB;
  int32_t contact;
  int32_t type;
  int32_t pointCount;
};

// What a joint's velocity set-up computes for its velocity iterations: scratch of one step
// (the next step computes it again before any use), so it is kept with the island, not in
// every game.
struct JointVelocityData {
  Mat22 pivotMass;
  Vec2 rA, rB;  // lever arms; rotations do not change during velocity iterations
  Vec2 rAperp, rBperp;  // (-r.y, r.x) of each: the arms' part in the pivot's velocity
};

struct StepScratch {
  int32_t bodies[kMaxBodies];
  int32_t contacts[kMaxContacts];
  int32_t joints[kMaxJoints];
  JointVelocityData jointData[kMaxJoints];  // of joints[i]
  // Each integrated body's rotation at the start of the step, R(R0Angle[b]) (bit b of
  // r0Valid says it is of this step): the broad phase's swept AABBs reuse it instead of
  // computing sin and cos again.
  Mat22 R0[kMaxBodies];
  double R0Angle[kMaxBodies];
  uint32_t r0Valid;
  static_assert(kMaxBodies <= 32, "r0Valid has a bit per body");
  // Each integrated body's position at the start of the step, where bit b of aabb0Valid
  // says its fixture's AABB was of that transform (Fixture::aabbAtXf).
  Vec2 P0[kMaxBodies];
  uint32_t aabb0Valid;
  int32_t stack[kMaxBodies];
  // The island's joints in waves (World::plan_joint_waves): wave w is
  // waveJoints[waveStart[w] .. waveStart[w + 1]), joints that share no body.
  RevoluteJoint* waveJoints[kMaxJoints];
  const JointVelocityData* waveData[kMaxJoints];
  Body* waveBodies[2 * kMaxJoints];  // of waveJoints[k]: its body A at 2k, B at 2k + 1
  int32_t waveStart[kMaxJoints + 1];
  int32_t waveCount;
  // Of contacts[i]; grown to the largest island's contacts (scratch of every thread and lane).
  std::vector<ContactConstraint> constraints;
  int32_t bodyCount, contactCount, jointCount;
  // The lock step's split of the island's joints (world_lockstep.cpp): indices into
  // joints[] of the ones solved in the lanes and of the others, each in island order.
  int32_t laneJoints[kMaxJoints], otherJoints[kMaxJoints];
  int32_t laneJointCount, otherJointCount;
};

struct TimeStep {
  double dt, inv_dt, dtRatio;
  int32_t velocityIterations, positionIterations;
  bool warmStarting;
};

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

void collide_polygons(Manifold& manifold, const PolygonShape& polyA, const Transform& xfA,
                      const PolygonShape& polyB, const Transform& xfB);

// Revolute joint steps (ENGINE.md 14b).
// The largest squared pivot error whose square root is within kLinearSlop (revolute_joint.cpp).
extern const double kJointSquaredErrorBound;
void joint_init_velocity(World& w, RevoluteJoint& j, JointVelocityData& d, const TimeStep& step);
// The motor and limit bookkeeping of joint_init_velocity (motor force, limit state and force),
// from the two bodies' sweep angles.
void joint_init_limits(RevoluteJoint& j, double angleA, double angleB);
// A sweep over the joints gives the same bits in any order that keeps, for every body, the
// order of the joints on it (a joint reads and writes only its two bodies and itself). Each
// of the n joints (world joint ids) goes in the wave after the latest wave holding one of its
// bodies: order[start[v] .. start[v + 1]) are wave v's joints (indices into `joints`, in
// their order), joints that share no body. Returns the number of waves (the runner's 11
// joints make 6: 1, 2, 1, 2, 3 and 2 joints; the torso's five joints set the length).
int32_t joint_waves(const World& w, const int32_t* joints, int32_t n, int32_t* order, int32_t* start);
// One velocity and one position sweep over the island's joints, wave after wave of the
// plan in `s` (World::plan_joint_waves), each wave's joints side by side; the position
// sweep returns whether every joint is within tolerance.
void joints_solve_velocity(const StepScratch& s, const TimeStep& step);
bool joints_solve_position(World& w, const StepScratch& s);
// One joint's velocity and position solve on its own (d from its joint_init_velocity); the
// position solve returns whether it is within tolerance.
void joint_solve_velocity(World& w, RevoluteJoint& j, const JointVelocityData& d, const TimeStep& step);
bool joint_solve_position(World& w, RevoluteJoint& j);

}  // namespace qwop
