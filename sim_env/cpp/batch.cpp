// Thread-pool batch of games. See batch.h.
#include "batch.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace qwop {

BatchSim::BatchSim(int num_envs, int num_threads, int frame_skip, double time_limit_s)
    : n_(num_envs), threads_(num_threads), frame_skip_(frame_skip), time_limit_(time_limit_s) {
  if (n_ < 1) throw std::invalid_argument("num_envs must be at least 1");
  if (threads_ < 1) throw std::invalid_argument("num_threads must be at least 1");
  if (frame_skip_ < 1) throw std::invalid_argument("frame_skip must be at least 1");
  if (!(time_limit_ > 0)) throw std::invalid_argument("time_limit must be positive");
  threads_ = std::min(threads_, n_);
  // Game time advances 1/30 s per update; the limit counts updates so it is exact.
  max_updates_ = static_cast<int>(std::ceil(time_limit_ * 30.0 - 1e-9));
  initial_ = std::make_unique<Game>();
  initial_->load();
  games_ = std::unique_ptr<Game[]>(new Game[n_]);
  for (int t = 0; t < threads_; ++t) scratch_.push_back(std::make_unique<StepScratch>());
  const size_t N = static_cast<size_t>(n_);
  buf_.state.assign(N * kNumParts * kStateColumns, 0.0);
  buf_.final_state.assign(N * kNumParts * kStateColumns, 0.0);
  buf_.reward.assign(N, 0.0);
  buf_.score.assign(N, 0.0);
  buf_.score_time.assign(N, 0.0);
  buf_.distance.assign(N, 0.0);
  buf_.final_score.assign(N, 0.0);
  buf_.final_time.assign(N, 0.0);
  buf_.terminated.assign(N, 0);
  buf_.truncated.assign(N, 0);
  buf_.fallen.assign(N, 0);
  buf_.jump_landed.assign(N, 0);
  buf_.episode_updates.assign(N, 0);
  buf_.keys.assign(N, 0);
  buf_.obs.assign(N * kObsSize, 0.0f);
  buf_.final_obs.assign(N * kObsSize, 0.0f);
  buf_.terms.assign(N * kNumRewardTerms, 0.0);
  reset_all();
  // Small chunks balance the load when some envs fall (cheaper) and others run.
  chunk_ = std::max(1, n_ / (threads_ * 4));
  for (int t = 1; t < threads_; ++t) pool_.emplace_back(&BatchSim::worker, this, t);
}

BatchSim::~BatchSim() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    ++generation_;
  }
  cv_start_.notify_all();
  for (std::thread& t : pool_) t.join();
}

size_t BatchSim::bytes_per_env() const {
  // The game itself plus this env's share of every buffer.
  return sizeof(Game) + 2 * kNumParts * kStateColumns * sizeof(double) + 8 * sizeof(double) +
         4 * sizeof(uint8_t) + 2 * sizeof(int32_t) + 2 * kObsSize * sizeof(float) + kNumRewardTerms * sizeof(double);
}

void BatchSim::write_state(int i) {
  const Game& g = games_[i];
  g.body_state(&buf_.state[static_cast<size_t>(i) * kNumParts * kStateColumns]);
  buf_.score[i] = g.score;
  buf_.score_time[i] = g.scoreTime;
  buf_.distance[i] = g.distance_m();
  buf_.fallen[i] = g.flags.fallen;
  buf_.jump_landed[i] = g.flags.jumpLanded;
  write_observation(&buf_.state[static_cast<size_t>(i) * kNumParts * kStateColumns],
                    &buf_.obs[static_cast<size_t>(i) * kObsSize]);
}

void BatchSim::reset_env(int i) {
  std::memcpy(static_cast<void*>(&games_[i]), initial_.get(), sizeof(Game));
  buf_.episode_updates[i] = 0;
  write_state(i);
}

void BatchSim::advance_env(int i, const int8_t* keys, int n) {
  for (int t = 0; t < n; ++t) {
    games_[i].update(keys[t], *scratch_[0]);
    ++buf_.episode_updates[i];
  }
  write_state(i);
}

void BatchSim::reset_all() {
  for (int i = 0; i < n_; ++i) {
    reset_env(i);
    buf_.reward[i] = 0.0;
    buf_.terminated[i] = 0;
    buf_.truncated[i] = 0;
  }
}

void BatchSim::run_range(int begin, int end, StepScratch& scratch) {
  const size_t stride = kNumParts * kStateColumns;
  for (int i = begin; i < end; ++i) {
    Game& g = games_[i];
    const double before = g.distance_m();
    double beforeState[kNumParts * kStateColumns];
    std::memcpy(beforeState, &buf_.state[i * stride], sizeof(beforeState));
    const double t0 = g.scoreTime;
    const int32_t keys = buf_.keys[i];
    bool ended = false, truncated = false;
    for (int k = 0; k < frame_skip_; ++k) {
      g.update(keys, scratch);
      ++buf_.episode_updates[i];
      if (g.flags.gameEnded) {
        ended = true;
        break;
      }
      if (buf_.episode_updates[i] >= max_updates_) {
        truncated = true;
        break;
      }
    }
    buf_.reward[i] = g.distance_m() - before;
    buf_.terminated[i] = ended;
    buf_.truncated[i] = truncated;
    write_state(i);
    const bool finished = ended && g.flags.jumpLanded;
    const bool fell = ended && g.flags.fallen && !finished;
    write_reward_terms(beforeState, &buf_.state[i * stride], g.scoreTime - t0, g.scoreTime, fell, finished,
                       &buf_.terms[static_cast<size_t>(i) * kNumRewardTerms]);
    if (ended || truncated) {
      std::memcpy(&buf_.final_state[i * stride], &buf_.state[i * stride], stride * sizeof(double));
      std::memcpy(&buf_.final_obs[static_cast<size_t>(i) * kObsSize], &buf_.obs[static_cast<size_t>(i) * kObsSize],
                  kObsSize * sizeof(float));
      buf_.final_score[i] = g.score;
      buf_.final_time[i] = g.scoreTime;
      const uint8_t fallen = buf_.fallen[i], landed = buf_.jump_landed[i];
      reset_env(i);
      // Flags describe the step that just ended, not the fresh episode.
      buf_.fallen[i] = fallen;
      buf_.jump_landed[i] = landed;
    }
  }
}

void BatchSim::step() {
  if (threads_ == 1) {
    run_range(0, n_, *scratch_[0]);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    next_chunk_.store(0);
    pending_ = threads_ - 1;
    ++generation_;
  }
  cv_start_.notify_all();
  // The calling thread works too.
  for (;;) {
    const int begin = next_chunk_.fetch_add(chunk_);
    if (begin >= n_) break;
    run_range(begin, std::min(n_, begin + chunk_), *scratch_[0]);
  }
  std::unique_lock<std::mutex> lock(mu_);
  cv_done_.wait(lock, [this] { return pending_ == 0; });
}

void BatchSim::worker(int index) {
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_start_.wait(lock, [&] { return generation_ != seen; });
      seen = generation_;
      if (stop_) return;
    }
    for (;;) {
      const int begin = next_chunk_.fetch_add(chunk_);
      if (begin >= n_) break;
      run_range(begin, std::min(n_, begin + chunk_), *scratch_[index]);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      --pending_;
    }
    cv_done_.notify_one();
  }
}

}  // namespace qwop
