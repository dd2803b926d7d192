// The QWOP game layer on top of the engine: building and resetting the runner, one game
// update (tiles, head torque, keys to motors, step, camera, score, fall/jump rules, end).
// Rules from ../shared/qwop-reference/README.md ("One game update, in order").
#pragma once

#include <cstdint>

#include "engine.h"
#include "lockstep.h"
#include "spec.h"

namespace qwop {

constexpr int kNumTiles = 3;

// Game constants (README of the reference): one update is 1/30 s of game time and one
// physics step of 0.04; the parts, joints, keys, units and rates are in spec.h.
constexpr double kUpdateDt = 1.0 / kUpdatesPerSecond;
constexpr double kStepDt = 0.04;
constexpr int kVelocityIterations = 5;
constexpr int kPositionIterations = 5;
constexpr double kTrackTopY = 9.14275;  // top surface of the floor tiles

// userData codes for the engine bodies (runner parts use their Part value).
enum UserData : int32_t { kUserTrack = 100, kUserHurdleBase = 101, kUserHurdleTop = 102, kUserBlock = 103, kUserGround = -1 };


// The one finish rule: the run is over, the final jump landed, and the score is 100 m. The
// original also counts a fall after the jump as the landing, at the fall's x, so a dive over
// the line that lands short (99.x m) ends the game landed but is not a finish.
inline bool finished_100m(bool ended, bool landed, double score) { return ended && landed && score >= kFinishM; }

struct GameFlags {
  bool fallen, gameEnded, jumped, jumpLanded, pause, firstClick;
};

// A game's own fields, beside its world: one trivially copyable block.
struct GameState {
  int32_t partBody[kNumParts];
  int32_t joint[kNumJoints];
  int32_t tile[kNumTiles];
  int32_t block;
  int32_t hurdleBase, hurdleTop, hurdleJoint;
  double cameraX;
  double scoreTime;
  double score;
  GameFlags flags;
  int32_t keys;  // key mask held during the last update
  bool runnerExists;
  int64_t updates;  // updates since page load
  int64_t resets;   // resets since page load
};

// One whole game (one browser page). Copies are exact: its blocks as bytes, its world's
// contacts slot by slot; a snapshot is the same (snapshot.h).
struct Game : GameState {
  Game() = default;
  Game(const Game& o) : GameState(), world(o.world) { copy_block<GameState>(*this, o); }
  Game& operator=(const Game& o) {
    if (this != &o) {
      copy_block<GameState>(*this, o);
      world = o.world;
    }
    return *this;
  }

  World world;

  // Page loaded, no update run; with firstClick the click to begin has been made (the
  // traces' initial state), without it the game is on its intro screen.
  // `variant`: whose sin/cos the world computes (trig.h); the reference traces' is kFma.
  void load(bool firstClick = true, trig::Variant variant = trig::kFma);
  // The click to begin: the world starts stepping and the game time restarts at 0.
  void click();
  // One game update with the given key mask held (0..15).
  void update(int32_t keys, StepScratch& scratch);
  // update() in two halves around the world's step, for games updated in lock step:
  // begin_update returns whether the world steps (steps_world()).
  bool begin_update(int32_t keys);
  void end_update();
  bool steps_world() const { return flags.firstClick && !flags.pause; }
  // The world's step of one update, with the game's contact rules listening.
  void step_world(StepScratch& scratch);
  // R released while `keys` are held: the original's reset(), including its own update.
  void reset(int32_t keys, StepScratch& scratch);
  // One session event (spec.h): a key mask is one update, kResetEventBase + mask is R
  // released with mask held, kClickEvent is the click to begin.
  void apply_event(int32_t event, StepScratch& scratch);

  const Body& part(int p) const { return world.bodies[partBody[p]]; }
  // x, y, angle, vx, vy, omega per part in trace order, into out[12*6].
  void body_state(double* out) const;
  double distance_m() const { return part(kTorso).sweep.c.x / kUnitsPerMetre; }
  bool finished() const { return finished_100m(flags.gameEnded, flags.jumpLanded, score); }

 private:
  void create_player();
  void end_game();
  friend struct GameListener;
};

double js_round(double x);

// update() of four games, their worlds stepped in lock step when all four step (lockstep.h);
// returns whether the joints were solved in the lanes.
bool update_games_lockstep(Game* const g[kLanes], const int32_t keys[kLanes], StepScratch* const s[kLanes]);

}  // namespace qwop
