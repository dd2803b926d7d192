// The rules that turn game updates into env steps, written once: frame skip, time limit,
// fell/finished, reward terms and their weighted sum, the stacked observation. The batched
// engine and the single simulator env step an `Env` (a game plus its episode); the browser
// env and demo conversion drive an `Episode` from Python with states the page or the
// recording produced (sim_env/stepper.py), so every env's step means the same thing.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "env_features.h"
#include "game.h"

namespace qwop {

// Game time to whole updates: the limit counts updates so that it is exact (1 update is
// exactly 1/30 s of game time; the small slack keeps 1.0 s at 30 updates, not 31).
int max_updates_for(double time_limit_s);

struct EpisodeOptions {
  int frame_skip = kDefaultFrameSkip;  // updates per step (defaults and least values: spec.h, from spec.json)
  int max_updates = max_updates_for(kDefaultTimeLimitS);  // truncation: updates per episode, from time_limit_s
  double time_limit_s = kDefaultTimeLimitS;  // the time limit it was made from (game seconds)
  int frame_stack = kDefaultFrameStack;  // observations per step, oldest first
  // reward = terms . weights; the default profile's (spec.h)
  std::array<double, kNumRewardTerms> weights = kDefaultRewardWeights;
};

// Throws std::invalid_argument naming the option that is out of range.
void check_options(const EpisodeOptions& o);

struct StepOutcome {
  double terms[kNumRewardTerms];
  double reward;
  int updates;      // updates this step ran
  bool terminated;  // the game ended (a fall or the finish)
  bool truncated;   // the time limit, and the game did not end
  bool fell, finished;
};

class Episode {
 public:
  explicit Episode(const EpisodeOptions& options);

  // The episode starts at `state` (12 x 6), `updates` into it (the random start's updates).
  void begin(const double* state, int updates = 0);
  // How many updates the next step runs: frame_skip, fewer at the time limit, at least 1.
  int updates_for_step() const;
  // The step ran `n` updates, ending in `after` with game time `time_after`, `dt` game
  // seconds after it began; `ended` and `fallen` are the game's flags then, `finished` its
  // finish (finished_100m, game.h).
  void end_step(const double* after, double dt, double time_after, int n, bool ended, bool fallen, bool finished,
                StepOutcome* out);

  const EpisodeOptions& options() const { return opt_; }
  int updates() const { return updates_; }
  const double* state() const { return state_; }
  // The stacked observation: frame_stack * kObsSize floats, oldest first.
  const float* obs() const { return frames_.data(); }
  int obs_size() const { return opt_.frame_stack * kObsSize; }

 private:
  EpisodeOptions opt_;
  int updates_ = 0;
  double state_[kNumParts * kStateColumns] = {};
  std::vector<float> frames_;
};

// One simulated env: a game and its episode. Reset copies the initial game (copies are exact).
class Env {
 public:
  Env(const EpisodeOptions& options, const Game* initial);

  void reset();
  // Updates before the first step (a random start): they count toward the episode, and
  // the episode's observation starts after them.
  void advance(const int8_t* keys, int n, StepScratch& scratch);
  // Starts the episode from a snapshot's game (a real-time page's after its click), `updates`
  // into the episode. Throws std::invalid_argument, the env unchanged, if the bytes are not a
  // snapshot of this build.
  void start(const std::string& snapshot, int updates);
  // One step with `keys` held. A late decision (as in real-time play in the browser) first
  // runs `late_updates` more updates with the keys held before the step.
  StepOutcome step(int32_t keys, StepScratch& scratch, int late_updates = 0);

  Game& game() { return game_; }
  const Game& game() const { return game_; }
  const Episode& episode() const { return episode_; }

 private:
  friend int step_envs(Env* const e[kLanes], const int32_t keys[kLanes], const int late[kLanes],
                        StepScratch* const s[kLanes], StepOutcome out[kLanes]);

  Game game_;
  Episode episode_;
  const Game* initial_;
};

// Env::step of up to four envs (null entries are skipped), their games updated in lock step
// while all four run (lockstep.h); each env's outcome is what its own step() gives. Returns
// how many game updates had their joints solved in the lanes.
int step_envs(Env* const e[kLanes], const int32_t keys[kLanes], const int late[kLanes],
               StepScratch* const s[kLanes], StepOutcome out[kLanes]);

}  // namespace qwop
