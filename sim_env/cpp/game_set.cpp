// GameSet. See game_set.h.
#include "game_set.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <thread>

namespace qwop {

GameSet::GameSet(trig::Variant variant) : games_(1) { games_[0].load(true, variant); }

GameSet GameSet::select(const int32_t* indices, size_t n) const {
  GameSet out;
  out.games_.resize(n);
  for (size_t i = 0; i < n; ++i) out.games_[i] = games_[indices[i]];
  return out;
}

namespace {

void summarise(const Game& game, int updates, RunSummary& s) {
  game.body_state(s.state);
  s.scoreTime = game.scoreTime;
  s.score = game.score;
  s.updates = updates;
  s.ended = game.flags.gameEnded;
  s.fallen = game.flags.fallen;
  s.landed = game.flags.jumpLanded;
}

}  // namespace

void GameSet::expand(const int32_t* parent, const int8_t* keys, size_t n, int horizon, int threads, RunSummary* out,
                     GameSet* keep, bool lockstep) const {
  if (keep) keep->games_.resize(n);
  lockstep = lockstep && lockstep_available();
  std::atomic<size_t> next{0};
  constexpr size_t kChunk = 16;  // whole groups of lanes
  static_assert(kChunk % kLanes == 0, "chunks hold whole groups");
  auto work = [&]() {
    std::unique_ptr<Game> own[kLanes];
    std::unique_ptr<StepScratch> scratch[kLanes];
    for (int l = 0; l < kLanes; ++l) {
      own[l] = std::make_unique<Game>();
      scratch[l] = std::make_unique<StepScratch>();
    }
    StepScratch* const s[kLanes] = {scratch[0].get(), scratch[1].get(), scratch[2].get(), scratch[3].get()};
    for (;;) {
      const size_t begin = next.fetch_add(kChunk);
      if (begin >= n) return;
      const size_t end = std::min(n, begin + kChunk);
      for (size_t c = begin; c < end;) {
        const int lanes = lockstep && end - c >= kLanes ? kLanes : 1;
        Game* g[kLanes];
        const int8_t* k[kLanes];
        int t[kLanes];
        for (int l = 0; l < lanes; ++l) {
          g[l] = keep ? &keep->games_[c + l] : own[l].get();
          *g[l] = games_[parent[c + l]];
          k[l] = keys + (c + l) * static_cast<size_t>(horizon);
          t[l] = 0;
        }
        // Until the update that ends a game, or the horizon: together while all run.
        for (;;) {
          int running = 0;
          for (int l = 0; l < lanes; ++l) {
            if (t[l] < horizon && !(t[l] > 0 && g[l]->flags.gameEnded)) running |= 1 << l;
          }
          if (running == 0) break;
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
        for (int l = 0; l < lanes; ++l) summarise(*g[l], t[l], out[c + l]);
        c += static_cast<size_t>(lanes);
      }
    }
  };
  const int extra = std::max(0, std::min(threads, static_cast<int>((n + kChunk - 1) / kChunk)) - 1);
  std::vector<std::thread> pool;
  for (int i = 0; i < extra; ++i) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

}  // namespace qwop
