// QWOP game rules: construction, update, reset, contact rules. See game.h.
#include "game.h"

#include <cmath>
#include <initializer_list>

#include "game_def.h"

namespace qwop {

namespace {

constexpr double kTileY = 10.74275;
constexpr int kFirstPlayerBody = 4;  // kBodies index of hurdleBase
constexpr int kNumDefBodies = sizeof(def::kBodies) / sizeof(def::kBodies[0]);
constexpr int kNumDefJoints = sizeof(def::kJoints) / sizeof(def::kJoints[0]);
static_assert(kNumDefJoints == kNumJoints + 1, "hurdle joint + runner joints");

// Destruction order of reset() (README "Building and resetting the runner").
constexpr JointId kJointDestroyOrder[kNumJoints] = {
    kNeck, kLeftShoulder, kLeftElbow, kLeftHip, kLeftKnee, kLeftAnkle,
    kRightShoulder, kRightElbow, kRightHip, kRightKnee, kRightAnkle,
};
constexpr Part kPartDestroyOrder[kNumParts] = {
    kTorso, kHead, kLeftArm, kLeftForearm, kLeftThigh, kLeftCalf, kLeftFoot,
    kRightArm, kRightForearm, kRightThigh, kRightCalf, kRightFoot,
};

int32_t create_box_body(World& w, const def::BoxBodyDef& d, int32_t userData) {
  BodyDef bd;
  bd.type = d.type;
  bd.position = {d.createX, d.createY};
  bd.angle = 0.0;
  bd.userData = userData;
  const int32_t b = w.create_body(bd);
  FixtureDef fd;
  fd.hx = d.hx;
  fd.hy = d.hy;
  fd.density = d.density;
  fd.friction = d.friction;
  fd.restitution = 0.0;
  fd.filter = {static_cast<uint16_t>(d.category), static_cast<uint16_t>(d.mask), 0};
  w.create_fixture(b, fd);
  w.set_bullet(b, false);
  w.set_awake(b, d.awake);
  if (d.placed) {
    w.set_position(b, {d.x, d.y});
    w.set_angle(b, d.angle);
  }
  return b;
}

// Every joint of the game has its limit on and starts with motor speed 0.
RevoluteJointDef joint_def(const def::JointDef& jd, const int32_t* defBody) {
  RevoluteJointDef rd;
  rd.bodyA = defBody[jd.bodyA];
  rd.bodyB = defBody[jd.bodyB];
  rd.localAnchorA = {jd.anchorAx, jd.anchorAy};
  rd.localAnchorB = {jd.anchorBx, jd.anchorBy};
  rd.referenceAngle = jd.referenceAngle;
  rd.enableLimit = true;
  rd.lowerAngle = jd.lower;
  rd.upperAngle = jd.upper;
  rd.enableMotor = jd.enableMotor;
  rd.maxMotorTorque = jd.maxMotorTorque;
  rd.motorSpeed = 0.0;
  return rd;
}

bool is_fall_part(int32_t userData) {
  return userData == kHead || userData == kLeftArm || userData == kRightArm ||
         userData == kLeftForearm || userData == kRightForearm;
}

}  // namespace

double js_round(double x) {
  if (!std::isfinite(x)) return x;
  double r = std::floor(x);
  if (x - r >= 0.5) r += 1.0;
  if (r == 0.0 && (x < 0.0 || std::signbit(x))) return -0.0;
  return r;
}

// Contact rules, checked when touching begins (README "Contact rules").
struct GameListener final : ContactListener {
  Game* g;
  explicit GameListener(Game* game) : g(game) {}
  void begin_contact(World& w, int32_t ci) override {
    const Contact& c = w.contacts[ci];
    const int32_t a = w.bodies[c.bodyA].userData;
    const int32_t b = w.bodies[c.bodyB].userData;
    if (a != kUserTrack) return;
    WorldManifold wm{};
    w.world_manifold(ci, wm);
    const double x = wm.points[0].x > wm.points[1].x ? wm.points[0].x : wm.points[1].x;
    GameFlags& f = g->flags;
    if (is_fall_part(b) && !f.fallen) {
      f.fallen = true;
      if (f.jumped && !f.jumpLanded) {
        f.jumpLanded = true;
        g->score = js_round(x) / 10.0;
      }
    }
    // The original tests (B is leftFoot or A is rightFoot) and A is a tile; A is a tile
    // here, so only the left foot as B can count.
    if (b == kLeftFoot && !f.fallen && !f.gameEnded) {
      if (!f.jumped && x > 989.0) f.jumped = true;
      if (f.jumped && !f.jumpLanded) {
        if (x > 1000.0) f.jumpLanded = true;
        g->score = js_round(x) / 10.0;
      }
    }
  }
};

void Game::load(bool firstClick, trig::Variant variant) {
  zero_block<GameState>(*this);
  world.init({0.0, 10.0}, true, variant);
  for (int i = 0; i < kNumTiles; ++i) tile[i] = create_box_body(world, def::kBodies[i], kUserTrack);
  block = create_box_body(world, def::kBodies[3], kUserBlock);
  cameraX = -200.0;
  create_player();
  flags = GameFlags{false, false, false, false, false, firstClick};
  scoreTime = 0.0;
  score = 0.0;
  keys = 0;
  updates = 0;
  resets = 0;
}

void Game::create_player() {
  int32_t defBody[kNumDefBodies];
  for (int i = kFirstPlayerBody; i < kNumDefBodies; ++i) {
    const def::BoxBodyDef& d = def::kBodies[i];
    int32_t userData = d.part;
    if (i == kFirstPlayerBody) userData = kUserHurdleBase;
    if (i == kFirstPlayerBody + 1) userData = kUserHurdleTop;
    defBody[i] = create_box_body(world, d, userData);
    if (d.part >= 0) partBody[d.part] = defBody[i];
    // The hurdle joint is created right after the two hurdle bodies.
    if (i == kFirstPlayerBody + 1) {
      const def::JointDef& jd = def::kJoints[0];
      hurdleJoint = world.create_joint(joint_def(jd, defBody));
    }
  }
  hurdleBase = defBody[kFirstPlayerBody];
  hurdleTop = defBody[kFirstPlayerBody + 1];
  for (int k = 1; k < kNumDefJoints; ++k) {
    joint[k - 1] = world.create_joint(joint_def(def::kJoints[k], defBody));
  }
  runnerExists = true;
}

void Game::click() {
  if (flags.firstClick) return;
  flags.firstClick = true;
  scoreTime = 0.0;
}

void Game::apply_event(int32_t event, StepScratch& scratch) {
  if (event == kClickEvent) {
    click();
  } else if (event >= kResetEventBase) {
    reset(event - kResetEventBase, scratch);
  } else {
    update(event, scratch);
  }
}

void Game::end_game() {
  flags.gameEnded = true;
  RevoluteJoint* J = world.joints;
  for (JointId h : {kLeftHip, kRightHip}) {
    J[joint[h]].enableMotor = false;
    J[joint[h]].motorSpeed = 0.0;
  }
  for (JointId k : {kLeftKnee, kRightKnee, kLeftShoulder, kRightShoulder}) {
    J[joint[k]].enableMotor = false;
    J[joint[k]].enableLimit = false;
  }
}

void Game::update(int32_t k, StepScratch& scratch) {
  if (begin_update(k)) step_world(scratch);
  end_update();
}

void Game::step_world(StepScratch& scratch) {
  GameListener listener(this);
  world.step(kStepDt, kVelocityIterations, kPositionIterations, &listener, scratch);
}

bool update_games_lockstep(Game* const g[kLanes], const int32_t keys[kLanes], StepScratch* const s[kLanes]) {
  bool all = true, lanes = false;
  for (int i = 0; i < kLanes; ++i) all = g[i]->begin_update(keys[i]) && all;
  if (all) {
    GameListener l0(g[0]), l1(g[1]), l2(g[2]), l3(g[3]);
    ContactListener* const listeners[kLanes] = {&l0, &l1, &l2, &l3};
    World* const worlds[kLanes] = {&g[0]->world, &g[1]->world, &g[2]->world, &g[3]->world};
    lanes = step_worlds_lockstep(worlds, listeners, s, kStepDt, kVelocityIterations, kPositionIterations);
  } else {
    for (int i = 0; i < kLanes; ++i) {
      if (g[i]->steps_world()) g[i]->step_world(*s[i]);
    }
  }
  for (int i = 0; i < kLanes; ++i) g[i]->end_update();
  return lanes;
}

bool Game::begin_update(int32_t k) {
  keys = k;
  ++updates;
  if (!flags.pause && !flags.gameEnded) scoreTime += kUpdateDt;

  const double cell = std::floor(cameraX / 640.0);
  for (int i = 0; i < kNumTiles; ++i) {
    const double x = (cell + i) * 32.0;
    if (x != world.bodies[tile[i]].xf.position.x) world.set_position(tile[i], {x, kTileY});
  }

  if (runnerExists && !flags.fallen) {
    const int32_t head = partBody[kHead];
    world.apply_torque(head, -4.0 * (world.bodies[head].sweep.a + 0.2));
  }

  RevoluteJoint* J = world.joints;
  RevoluteJoint& leftHip = J[joint[kLeftHip]];
  RevoluteJoint& rightHip = J[joint[kRightHip]];
  if (k & kKeyQ) {
    rightHip.motorSpeed = 2.5;
    leftHip.motorSpeed = -2.5;
    J[joint[kRightShoulder]].motorSpeed = -2.0;
    J[joint[kLeftShoulder]].motorSpeed = 2.0;
    J[joint[kLeftElbow]].motorSpeed = -10.0;
    J[joint[kRightElbow]].motorSpeed = -10.0;
  } else if (k & kKeyW) {
    rightHip.motorSpeed = -2.5;
    leftHip.motorSpeed = 2.5;
    J[joint[kRightShoulder]].motorSpeed = 2.0;
    J[joint[kLeftShoulder]].motorSpeed = -2.0;
    J[joint[kLeftElbow]].motorSpeed = 10.0;
    J[joint[kRightElbow]].motorSpeed = 10.0;
  } else {
    rightHip.motorSpeed = 0.0;
    leftHip.motorSpeed = 0.0;
    J[joint[kRightShoulder]].motorSpeed = 0.0;
    J[joint[kLeftShoulder]].motorSpeed = 0.0;
  }
  if (k & kKeyO) {
    J[joint[kRightKnee]].motorSpeed = 2.5;
    J[joint[kLeftKnee]].motorSpeed = -2.5;
    leftHip.lowerAngle = -1.0;
    leftHip.upperAngle = 1.0;
    rightHip.lowerAngle = -1.3;
    rightHip.upperAngle = 0.7;
  } else if (k & kKeyP) {
    J[joint[kRightKnee]].motorSpeed = -2.5;
    J[joint[kLeftKnee]].motorSpeed = 2.5;
    leftHip.lowerAngle = -1.5;
    leftHip.upperAngle = 0.5;
    rightHip.lowerAngle = -0.8;
    rightHip.upperAngle = 1.2;
  } else {
    J[joint[kRightKnee]].motorSpeed = 0.0;
    J[joint[kLeftKnee]].motorSpeed = 0.0;
  }

  return steps_world();
}

void Game::end_update() {
  if (flags.firstClick) {
    const Vec2 c = part(kTorso).sweep.c;
    if (c.y < -5.0) {
      // only the camera's y follows, which does not affect the game
    } else if (!flags.fallen) {
      cameraX = (c.x - 14.0) * 20.0;
    }
    if (cameraX < -1200.0) cameraX = -1200.0;
    if (cameraX > 20933.0) cameraX = 20933.0;
  }

  if (!flags.jumpLanded) score = js_round(part(kTorso).sweep.c.x) / 10.0;

  if (flags.jumpLanded && !flags.gameEnded) {
    flags.pause = true;
    end_game();
  } else if (flags.fallen && !flags.gameEnded) {
    end_game();
  }
}

void Game::reset(int32_t k, StepScratch& scratch) {
  ++resets;
  score = 0.0;
  scoreTime = 0.0;
  for (JointId j : kJointDestroyOrder) world.destroy_joint(joint[j]);
  world.destroy_joint(hurdleJoint);
  world.destroy_body(hurdleBase);
  world.destroy_body(hurdleTop);
  for (Part p : kPartDestroyOrder) world.destroy_body(partBody[p]);
  cameraX = -280.0;
  world.set_gravity({0.0, 10.0});
  create_player();
  flags.fallen = false;
  flags.gameEnded = false;
  flags.jumped = false;
  flags.jumpLanded = false;
  flags.pause = false;
  update(k, scratch);
  --updates;  // the update inside reset() belongs to the reset event
}

void Game::body_state(double* out) const {
  for (int p = 0; p < kNumParts; ++p) {
    const Body& b = part(p);
    double* row = out + p * kStateColumns;
    row[0] = b.xf.position.x;
    row[1] = b.xf.position.y;
    row[2] = b.sweep.a;
    row[3] = b.linearVelocity.x;
    row[4] = b.linearVelocity.y;
    row[5] = b.angularVelocity;
  }
}

}  // namespace qwop
