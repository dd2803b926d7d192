// Episode and Env. See episode.h.
#include "episode.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace qwop {

int max_updates_for(double time_limit_s) {
  if (!(time_limit_s > 0) || !std::isfinite(time_limit_s)) {
    throw std::invalid_argument("time_limit must be a positive number of game seconds");
  }
  return static_cast<int>(std::ceil(time_limit_s * kUpdatesPerSecond - 1e-9));
}

void check_options(const EpisodeOptions& o) {
  if (o.frame_skip < 1) throw std::invalid_argument("frame_skip must be at least 1");
  if (o.max_updates < 1) throw std::invalid_argument("the time limit must allow at least one update");
  if (o.frame_stack < 1) throw std::invalid_argument("frame_stack must be at least 1");
}

Episode::Episode(const EpisodeOptions& options) : opt_(options) {
  check_options(opt_);
  frames_.assign(static_cast<size_t>(opt_.frame_stack) * kObsSize, 0.0f);
}

void Episode::begin(const double* state, int updates) {
  updates_ = updates;
  std::memcpy(state_, state, sizeof(state_));
  write_observation(state_, frames_.data());
  for (int k = 1; k < opt_.frame_stack; ++k) {
    std::memcpy(&frames_[static_cast<size_t>(k) * kObsSize], frames_.data(), kObsSize * sizeof(float));
  }
}

int Episode::updates_for_step() const { return std::max(1, std::min(opt_.frame_skip, opt_.max_updates - updates_)); }

void Episode::end_step(const double* after, double dt, double time_after, int n, bool ended, bool fallen, bool finished,
                       StepOutcome* out) {
  updates_ += n;
  out->updates = n;
  out->terminated = ended;
  out->finished = ended && finished;
  out->fell = ended && fallen && !out->finished;
  out->truncated = !ended && updates_ >= opt_.max_updates;
  write_reward_terms(state_, after, dt, time_after, out->fell, out->finished, out->terms);
  double r = 0.0;
  for (int t = 0; t < kNumRewardTerms; ++t) r += out->terms[t] * opt_.weights[t];
  out->reward = r;
  std::memcpy(state_, after, sizeof(state_));
  if (opt_.frame_stack > 1) {
    std::memmove(frames_.data(), frames_.data() + kObsSize, (frames_.size() - kObsSize) * sizeof(float));
  }
  write_observation(state_, &frames_[frames_.size() - kObsSize]);
}

Env::Env(const EpisodeOptions& options, const Game* initial) : episode_(options), initial_(initial) { reset(); }

void Env::reset() {
  std::memcpy(static_cast<void*>(&game_), initial_, sizeof(Game));
  double s[kNumParts * kStateColumns];
  game_.body_state(s);
  episode_.begin(s, 0);
}

void Env::advance(const int8_t* keys, int n, StepScratch& scratch) {
  for (int t = 0; t < n; ++t) game_.update(keys[t], scratch);
  double s[kNumParts * kStateColumns];
  game_.body_state(s);
  episode_.begin(s, episode_.updates() + n);
}

StepOutcome Env::step(int32_t keys, StepScratch& scratch, int late_updates) {
  const int want = episode_.updates_for_step();
  const double t0 = game_.scoreTime;
  const int32_t before = game_.keys;
  int n = 0;
  // As in real time: the page runs the late updates with the keys it still holds, then the
  // step's own updates with the new keys.
  const int total = want + late_updates;
  while (n < total) {
    game_.update(n < late_updates ? before : keys, scratch);
    ++n;
    if (game_.flags.gameEnded) break;
  }
  double s[kNumParts * kStateColumns];
  game_.body_state(s);
  StepOutcome out;
  episode_.end_step(s, game_.scoreTime - t0, game_.scoreTime, n, game_.flags.gameEnded, game_.flags.fallen,
                    game_.finished(), &out);
  return out;
}

}  // namespace qwop
