// A set of games stored side by side, expanded on worker threads: what a planner searches
// from. Expanding copies a parent game, runs a key sequence on the copy and summarises
// where it ended (optionally keeping the new games), so the search needs no Python per
// update and no snapshot bytes in flight. Results do not depend on the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "game.h"

namespace qwop {

struct RunSummary {
  double state[kNumParts * kStateColumns];  // body state after the last update run
  double scoreTime;
  double score;
  int32_t updates;  // updates run (fewer than asked when the game ended)
  uint8_t ended, fallen, landed;
};

// Where `game` is after `updates` updates of a run: its body state, score and flags.
void summarise(const Game& game, int updates, RunSummary& s);

class GameSet {
 public:
  GameSet() = default;
  // One freshly loaded game (the traces' initial state).
  explicit GameSet(trig::Variant variant);

  size_t size() const { return games_.size(); }
  Game& at(size_t i) { return games_[i]; }
  const Game& at(size_t i) const { return games_[i]; }
  void push_back(const Game& g) { games_.push_back(g); }
  // The games at `indices`, in that order.
  GameSet select(const int32_t* indices, size_t n) const;

  // For each child c < n: copy games[parent[c]], run keys[c * horizon + t] for t < horizon
  // (stopping after the update that ends the game), write out[c]; with `keep`, the
  // children's games are stored in keep (in child order). With `lockstep`, groups of four
  // children run in lock step where the CPU can (lockstep.h): the same results.
  void expand(const int32_t* parent, const int8_t* keys, size_t n, int horizon, int threads, RunSummary* out,
              GameSet* keep, bool lockstep = true) const;

 private:
  std::vector<Game> games_;
};

}  // namespace qwop
