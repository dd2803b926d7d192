// How a set of games is run on worker threads: rows in chunks taken from a shared counter,
// and inside a chunk groups of four games in lock step (lockstep.h) where the CPU can. Used by
// GameSet::expand and the policy rollouts; results never depend on the thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "game.h"

namespace qwop {

// Rows per chunk a thread takes at a time: whole groups of lanes.
constexpr size_t kChunk = 16;
static_assert(kChunk % kLanes == 0, "chunks hold whole groups");

// One thread's step scratch, one per lane.
struct LaneScratch {
  LaneScratch() {
    for (int l = 0; l < kLanes; ++l) {
      owned[l] = std::make_unique<StepScratch>();
      s[l] = owned[l].get();
    }
  }
  std::unique_ptr<StepScratch> owned[kLanes];
  StepScratch* s[kLanes];
};

// Runs games g[0..lanes) (lanes is 1 or kLanes), game l on keys k[l][0..horizon), stopping a
// game after the update that ends it (its first update always runs); t[l] = updates run.
// The games run together while all four run.
void run_lanes(Game* const g[kLanes], const int8_t* const k[kLanes], int lanes, int horizon,
               StepScratch* const s[kLanes], int t[kLanes]);

// Runs rows [begin, end) for up to `horizon` updates each, kLanes rows at a time in lock step
// while that many are left (with `lockstep`), else one at a time: setup(row, lane, game, keys)
// names a row's game and keys, done(row, lane, updates) follows its run.
template <typename Setup, typename Done>
void run_rows(size_t begin, size_t end, bool lockstep, int horizon, StepScratch* const s[kLanes], Setup&& setup,
              Done&& done) {
  for (size_t r = begin; r < end;) {
    const int lanes = lockstep && end - r >= kLanes ? kLanes : 1;
    Game* g[kLanes];
    const int8_t* k[kLanes];
    int t[kLanes];
    for (int l = 0; l < lanes; ++l) setup(r + l, l, g[l], k[l]);
    run_lanes(g, k, lanes, horizon, s, t);
    for (int l = 0; l < lanes; ++l) done(r + l, l, t[l]);
    r += static_cast<size_t>(lanes);
  }
}

// Calls chunk(begin, end, scratch) over [0, n) in chunks of `rows` rows (a multiple of
// kLanes), on up to `threads` threads (the caller's among them); each thread has its own
// `Scratch`.
template <typename Scratch, typename Fn>
void parallel_chunks(size_t n, int threads, size_t rows, Fn&& chunk) {
  std::atomic<size_t> next{0};
  auto work = [&]() {
    Scratch scratch;
    for (;;) {
      const size_t begin = next.fetch_add(rows);
      if (begin >= n) return;
      chunk(begin, std::min(n, begin + rows), scratch);
    }
  };
  const int extra = std::max(0, std::min(threads, static_cast<int>((n + rows - 1) / rows)) - 1);
  std::vector<std::thread> pool;
  for (int i = 0; i < extra; ++i) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

}  // namespace qwop
