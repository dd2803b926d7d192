// Whole runs recorded update by update, shaped like the reference traces: `replay` (key
// masks from the initial state until they end or the game ends) and `replay_session`
// (session events from page load: updates, resets, the click).
#pragma once

#include <cstdint>
#include <vector>

#include "game.h"

namespace qwop {

struct Trace {
  std::vector<double> initial;  // 12 x 6 body state before the first update
  std::vector<double> state;    // n x 12 x 6 after each update
  std::vector<int8_t> fallen, game_ended, jump_landed;
  std::vector<double> score_time, score;
  int64_t n = 0;                // updates (or events) recorded

  void reserve(int64_t n);
  void record(const Game& g);
};

// Runs keys[0..n) (each 0..15) from the traces' initial state; stops after the update
// that ends the game.
Trace replay_keys(const int8_t* keys, int64_t n, Game& game, StepScratch& scratch, trig::Variant variant = trig::kFma);
// Runs session events (spec.h) from page load; a session with a click starts on the intro
// screen with game time `initial_score_time` (what the page counted before its runner existed).
Trace replay_events(const int8_t* events, int64_t n, double initial_score_time, Game& game, StepScratch& scratch,
                    trig::Variant variant = trig::kFma);

}  // namespace qwop
