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
  for (size_t i = 0; i < n; ++i) std::memcpy(static_cast<void*>(&out.games_[i]), &games_[indices[i]], sizeof(Game));
  return out;
}

void GameSet::expand(const int32_t* parent, const int8_t* keys, size_t n, int horizon, int threads, RunSummary* out,
                     GameSet* keep) const {
  if (keep) keep->games_.resize(n);
  std::atomic<size_t> next{0};
  constexpr size_t kChunk = 16;
  auto work = [&]() {
    auto g = std::make_unique<Game>();
    StepScratch scratch;
    for (;;) {
      const size_t begin = next.fetch_add(kChunk);
      if (begin >= n) return;
      for (size_t c = begin; c < std::min(n, begin + kChunk); ++c) {
        Game& game = keep ? keep->games_[c] : *g;
        std::memcpy(static_cast<void*>(&game), &games_[parent[c]], sizeof(Game));
        int t = 0;
        const int8_t* k = keys + c * static_cast<size_t>(horizon);
        while (t < horizon) {
          game.update(k[t], scratch);
          ++t;
          if (game.flags.gameEnded) break;
        }
        RunSummary& s = out[c];
        game.body_state(s.state);
        s.scoreTime = game.scoreTime;
        s.score = game.score;
        s.updates = t;
        s.ended = game.flags.gameEnded;
        s.fallen = game.flags.fallen;
        s.landed = game.flags.jumpLanded;
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
