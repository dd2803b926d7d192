// GameSet. See game_set.h.
#include "game_set.h"

#include <memory>

#include "parallel_lanes.h"

namespace qwop {

GameSet::GameSet(trig::Variant variant) : games_(1) { games_[0].load(true, variant); }

GameSet GameSet::select(const int32_t* indices, size_t n) const {
  GameSet out;
  out.games_.resize(n);
  for (size_t i = 0; i < n; ++i) out.games_[i] = games_[indices[i]];
  return out;
}

void summarise(const Game& game, int updates, RunSummary& s) {
  game.body_state(s.state);
  s.scoreTime = game.scoreTime;
  s.score = game.score;
  s.updates = updates;
  s.ended = game.flags.gameEnded;
  s.fallen = game.flags.fallen;
  s.landed = game.flags.jumpLanded;
}


void run_lanes(Game* const g[kLanes], const int8_t* const k[kLanes], int lanes, int horizon,
               StepScratch* const s[kLanes], int t[kLanes]) {
  for (int l = 0; l < lanes; ++l) t[l] = 0;
  for (;;) {
    int running = 0;
    for (int l = 0; l < lanes; ++l) {
      if (t[l] < horizon && !(t[l] > 0 && g[l]->flags.gameEnded)) running |= 1 << l;
    }
    if (running == 0) return;
    if (running == (1 << kLanes) - 1) {
      const int32_t now[kLanes] = {k[0][t[0]], k[1][t[1]], k[2][t[2]], k[3][t[3]]};
      update_games_lockstep(g, now, s);
    } else {
      for (int l = 0; l < lanes; ++l) {
        if ((running >> l) & 1) g[l]->update(k[l][t[l]], *s[l]);
      }
    }
    for (int l = 0; l < lanes; ++l) t[l] += (running >> l) & 1;
  }
}

namespace {

// A thread's own games (when the children are not kept) and step scratch.
struct ExpandScratch : LaneScratch {
  ExpandScratch() {
    for (int l = 0; l < kLanes; ++l) own[l] = std::make_unique<Game>();
  }
  std::unique_ptr<Game> own[kLanes];
};

}  // namespace

void GameSet::expand(const int32_t* parent, const int8_t* keys, size_t n, int horizon, int threads, RunSummary* out,
                     GameSet* keep, bool lockstep) const {
  if (keep) keep->games_.resize(n);
  lockstep = lockstep && lockstep_available();
  parallel_chunks<ExpandScratch>(n, threads, kChunk, [&](size_t begin, size_t end, ExpandScratch& scratch) {
    run_rows(
        begin, end, lockstep, horizon, scratch.s,
        [&](size_t c, int lane, Game*& g, const int8_t*& k) {
          g = keep ? &keep->games_[c] : scratch.own[lane].get();
          *g = games_[parent[c]];
          k = keys + c * static_cast<size_t>(horizon);
        },
        [&](size_t c, int lane, int updates) {
          summarise(keep ? keep->games_[c] : *scratch.own[lane], updates, out[c]);
        });
  });
}

}  // namespace qwop
