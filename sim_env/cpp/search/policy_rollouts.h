// The planner's tries: from a set of games, each row takes its first decision's keys and then
// a guide policy (guide_policy.h) acts greedily for up to `lookahead` decisions; every row is
// summarised where its first decision ended and where its rollout ended. All in C++ on worker
// threads, decision by decision across the rows, so a deadline stops every row at the same
// depth. Results do not depend on the thread count.
#pragma once

#include <cstdint>
#include <vector>

#include "game_set.h"
#include "guide_policy.h"

namespace qwop {

// How a rollout ended.
enum RolloutEnd : int8_t { kRunning = 0, kFinished = 1, kFell = 2 };

struct RolloutSummary {
  RunSummary first;  // after the first decision's keys
  int8_t end;        // RolloutEnd where the rollout stopped
  double x;          // torso x in metres where it stopped
  double state[kNumParts * kStateColumns];  // body state where it stopped
  double time;       // the finish time if it finished, else the game time where it stopped
  int32_t length;    // updates the policy ran after the first decision
};

struct RolloutTotals {
  int64_t updates = 0;  // every update run, first decisions included
  int32_t depth = 0;    // decisions of the policy every live row got (all, without a deadline)
};

// For each row c < n: copy games[parent[c]], run keys[c * horizon ..] (stopping when the game
// ends), then let `policy` choose for up to `lookahead` decisions of frame_skip updates each,
// stopping when the game ends. The policy's keys go to rollout_keys[c * lookahead * frame_skip ..].
// `seconds` >= 0: start no new decision after that much wall time (all rows stop at the same
// depth); < 0: no limit.
RolloutTotals policy_rollouts(const GameSet& games, const int32_t* parent, const int8_t* keys, size_t n, int horizon,
                              const GuidePolicy& policy, int lookahead, int threads, double seconds,
                              RolloutSummary* out, int8_t* rollout_keys);

}  // namespace qwop
