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
    for (size_t c = begin; c < end;) {
      const int lanes = lockstep && end - c >= kLanes ? kLanes : 1;
      Game* g[kLanes];
      const int8_t* k[kLanes];
      int t[kLanes];
      for (int l = 0; l < lanes; ++l) {
        g[l] = keep ? &keep->games_[c + l] : scratch.own[l].get();
        *g[l] = games_[parent[c + l]];
        k[l] = keys + (c + l) * static_cast<size_t>(horizon);
      }
      run_lanes(g, k, lanes, horizon, scratch.s, t);
      for (int l = 0; l < lanes; ++l) summarise(*g[l], t[l], out[c + l]);
      c += static_cast<size_t>(lanes);
    }
  });
}

}  // namespace qwop
