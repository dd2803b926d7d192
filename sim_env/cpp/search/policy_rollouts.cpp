// Policy rollouts. See policy_rollouts.h.
#include "policy_rollouts.h"

#include <chrono>
#include <vector>

#include "parallel_lanes.h"

namespace qwop {

namespace {

// A thread's step scratch and the policy's.
struct RolloutScratch : LaneScratch {
  std::vector<double> policy;
};

// Rows a thread takes at a time: one group of lanes, so that a stage's few dozen rows spread
// over the threads evenly.
constexpr size_t kRolloutChunk = kLanes;

// Where a row's rollout stands with its game at `g`: how it ended (if it did), the torso's x
// in metres (its position, as sim_env reads the body state), the game time, the body state.
void where(const Game& g, RolloutSummary& r) {
  r.end = g.finished() ? kFinished : g.flags.gameEnded ? kFell : kRunning;
  r.x = g.part(kTorso).xf.position.x / kUnitsPerMetre;
  r.time = g.scoreTime;
  g.body_state(r.state);
}

}  // namespace

RolloutTotals policy_rollouts(const GameSet& games, const int32_t* parent, const int8_t* keys, size_t n, int horizon,
                              const GuidePolicy& policy, int lookahead, int threads, double seconds,
                              RolloutSummary* out, int8_t* rollout_keys) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  const bool lockstep = lockstep_available();  // as GameSet::expand
  const int fs = policy.frame_skip();
  const size_t stride = static_cast<size_t>(lookahead) * fs;
  // The first decision of every row: the children kept.
  GameSet child;
  std::vector<RunSummary> first(n);
  games.expand(parent, keys, n, horizon, threads, first.data(), &child);
  RolloutTotals totals;
  std::vector<size_t> live;
  for (size_t c = 0; c < n; ++c) {
    out[c].first = first[c];
    totals.updates += first[c].updates;
    const Game& g = child.at(c);
    out[c].length = 0;
    where(g, out[c]);
    if (out[c].end == kRunning) live.push_back(c);
  }

  // Then the policy's decisions, one depth at a time across the live rows.
  std::vector<int32_t> used(n, 0);
  for (int d = 0; d < lookahead && !live.empty(); ++d) {
    if (seconds >= 0.0 && Clock::now() > deadline) break;
    ++totals.depth;
    const size_t m = live.size();
    parallel_chunks<RolloutScratch>(m, threads, kRolloutChunk, [&](size_t begin, size_t end, RolloutScratch& scratch) {
      if (scratch.policy.empty()) scratch.policy.resize(policy.scratch_size());
      // The chunk's decisions first, in passes of the network over kGuideGroup rows.
      static_assert(kRolloutChunk % kGuideGroup == 0, "a chunk holds whole passes of the network");
      double state[kRolloutChunk][kNumParts * kStateColumns];
      const double* rows[kRolloutChunk];
      int32_t action[kRolloutChunk];
      for (size_t i = begin; i < end; ++i) {
        child.at(live[i]).body_state(state[i - begin]);
        rows[i - begin] = state[i - begin];
      }
      policy.act_rows(rows, end - begin, action, scratch.policy.data());
      run_rows(
          begin, end, lockstep, fs, scratch.s,
          [&](size_t i, int, Game*& g, const int8_t*& k) {
            const size_t c = live[i];
            g = &child.at(c);
            const int8_t mask = policy.mask(action[i - begin]);
            int8_t* row = rollout_keys + c * stride + static_cast<size_t>(out[c].length);
            for (int u = 0; u < fs; ++u) row[u] = mask;
            k = row;
          },
          [&](size_t i, int, int updates) { used[live[i]] = updates; });
    });
    size_t kept = 0;
    for (size_t i = 0; i < m; ++i) {
      const size_t c = live[i];
      const Game& g = child.at(c);
      totals.updates += used[c];
      // keys past the game's end were written but not run: clear them
      for (int u = used[c]; u < fs; ++u) rollout_keys[c * stride + static_cast<size_t>(out[c].length) + u] = 0;
      out[c].length += used[c];
      where(g, out[c]);
      if (out[c].end == kRunning) live[kept++] = c;
    }
    live.resize(kept);
  }

  return totals;
}

}  // namespace qwop
