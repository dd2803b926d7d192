// Episode and Env. See episode.h.
#include "episode.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "snapshot.h"

namespace qwop {

int max_updates_for(double time_limit_s) {
  if (!(time_limit_s > kMinTimeLimitS) || !std::isfinite(time_limit_s)) {
    char got[32];
    std::snprintf(got, sizeof(got), "%g", time_limit_s);
    throw std::invalid_argument("time_limit must be a finite number of game seconds above " +
                                std::to_string(static_cast<int>(kMinTimeLimitS)) + ", got " + got);
  }
  return static_cast<int>(std::ceil(time_limit_s * kUpdatesPerSecond - 1e-9));
}

void check_options(const EpisodeOptions& o) {
  if (o.frame_skip < kMinFrameSkip) {
    throw std::invalid_argument("frame_skip must be at least " + std::to_string(kMinFrameSkip));
  }
  if (o.max_updates < 1) throw std::invalid_argument("time_limit must allow at least one update (1/30 s)");
  if (o.frame_stack < kMinFrameStack) {
    throw std::invalid_argument("frame_stack must be at least " + std::to_string(kMinFrameStack));
  }
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
  game_ = *initial_;
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

void Env::start(const std::string& snapshot, int updates) {
  restore_snapshot(game_, snapshot);
  double s[kNumParts * kStateColumns];
  game_.body_state(s);
  episode_.begin(s, updates);
}

StepOutcome Env::step(int32_t keys, StepScratch& scratch, int late_updates) {
  Env* const e[kLanes] = {this, nullptr, nullptr, nullptr};
  const int32_t k[kLanes] = {keys, 0, 0, 0};
  const int late[kLanes] = {late_updates, 0, 0, 0};
  StepScratch* const s[kLanes] = {&scratch, nullptr, nullptr, nullptr};
  StepOutcome out[kLanes];
  step_envs(e, k, late, s, out);
  return out[0];
}

int step_envs(Env* const e[kLanes], const int32_t keys[kLanes], const int late[kLanes],
               StepScratch* const s[kLanes], StepOutcome out[kLanes]) {
  int total[kLanes], n[kLanes], in_lanes = 0;
  int32_t before[kLanes];
  double t0[kLanes];
  for (int i = 0; i < kLanes; ++i) {
    n[i] = 0;
    total[i] = 0;
    if (e[i] == nullptr) continue;
    const Game& g = e[i]->game_;
    t0[i] = g.scoreTime;
    before[i] = g.keys;
    // As in real time: the page runs the late updates with the keys it still holds, then the
    // step's own updates with the new keys.
    total[i] = e[i]->episode_.updates_for_step() + late[i];
  }
  for (;;) {
    int running = 0;
    int32_t k[kLanes];
    for (int i = 0; i < kLanes; ++i) {
      if (n[i] < total[i]) running |= 1 << i;
      k[i] = n[i] < late[i] ? before[i] : keys[i];
    }
    if (running == 0) break;
    if (running == (1 << kLanes) - 1) {
      Game* const g[kLanes] = {&e[0]->game_, &e[1]->game_, &e[2]->game_, &e[3]->game_};
      if (update_games_lockstep(g, k, s)) in_lanes += kLanes;
    } else {
      for (int i = 0; i < kLanes; ++i) {
        if ((running >> i) & 1) e[i]->game_.update(k[i], *s[i]);
      }
    }
    for (int i = 0; i < kLanes; ++i) {
      if (!((running >> i) & 1)) continue;
      ++n[i];
      if (e[i]->game_.flags.gameEnded) total[i] = n[i];
    }
  }
  for (int i = 0; i < kLanes; ++i) {
    if (e[i] == nullptr) continue;
    Game& g = e[i]->game_;
    double st[kNumParts * kStateColumns];
    g.body_state(st);
    e[i]->episode_.end_step(st, g.scoreTime - t0[i], g.scoreTime, n[i], g.flags.gameEnded, g.flags.fallen,
                            g.finished(), &out[i]);
  }
  return in_lanes;
}

}  // namespace qwop
