// Thread-pool batch of games. See batch.h.
#include "batch.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace qwop {

BatchSim::BatchSim(int num_envs, int num_threads, const EpisodeOptions& options, trig::Variant variant,
                   bool lockstep)
    : n_(num_envs), threads_(num_threads), lockstep_(lockstep && lockstep_available()), options_(options) {
  if (n_ < 1) throw std::invalid_argument("num_envs must be at least 1");
  if (threads_ < 1) throw std::invalid_argument("num_threads must be at least 1");
  check_options(options_);
  threads_ = std::min(threads_, n_);
  initial_ = std::make_unique<Game>();
  initial_->load(true, variant);
  envs_.reserve(static_cast<size_t>(n_));
  for (int i = 0; i < n_; ++i) envs_.emplace_back(options_, initial_.get());
  for (int t = 0; t < threads_ * kLanes; ++t) scratch_.push_back(std::make_unique<StepScratch>());
  lane_updates_.assign(static_cast<size_t>(threads_) * kCounterStride, 0);
  const size_t N = static_cast<size_t>(n_), S = static_cast<size_t>(kNumParts * kStateColumns);
  buf_.state.assign(N * S, 0.0);
  buf_.final_state.assign(N * S, 0.0);
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
  buf_.finished.assign(N, 0);
  buf_.episode_updates.assign(N, 0);
  buf_.step_updates.assign(N, 0);
  buf_.keys.assign(N, 0);
  buf_.late.assign(N, 0);
  buf_.obs.assign(N * obs_size(), 0.0f);
  buf_.final_obs.assign(N * obs_size(), 0.0f);
  buf_.terms.assign(N * kNumRewardTerms, 0.0);
  reset_all();
  // Small chunks balance the load when some envs fall (cheaper) and others run; whole
  // groups of lanes, so that each group's envs step in lock step.
  chunk_ = std::max(1, n_ / (threads_ * 4));
  if (lockstep_) chunk_ = std::max(kLanes, chunk_ / kLanes * kLanes);
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

uint64_t BatchSim::lane_updates() const {
  uint64_t n = 0;
  for (size_t t = 0; t < lane_updates_.size(); t += kCounterStride) n += lane_updates_[t];
  return n;
}

size_t BatchSim::bytes_per_env() const {
  // The env (game and episode, with its observation frames) plus this env's share of every buffer.
  const BatchBuffers& b = buf_;
  size_t buffers = 0;
  auto add = [&buffers](const auto& v) { buffers += v.size() * sizeof(v[0]); };
  add(b.state), add(b.final_state), add(b.reward), add(b.score), add(b.score_time), add(b.distance);
  add(b.final_score), add(b.final_time), add(b.terminated), add(b.truncated), add(b.fallen), add(b.jump_landed);
  add(b.finished), add(b.episode_updates), add(b.step_updates), add(b.keys), add(b.late), add(b.obs);
  add(b.final_obs), add(b.terms);
  return sizeof(Env) + obs_size() * sizeof(float) + buffers / static_cast<size_t>(n_);
}

void BatchSim::write_state(int i) {
  const Env& e = envs_[i];
  const Game& g = e.game();
  const size_t S = kNumParts * kStateColumns;
  std::memcpy(&buf_.state[i * S], e.episode().state(), S * sizeof(double));
  buf_.score[i] = g.score;
  buf_.score_time[i] = g.scoreTime;
  buf_.distance[i] = g.distance_m();
  buf_.fallen[i] = g.flags.fallen;
  buf_.jump_landed[i] = g.flags.jumpLanded;
  buf_.episode_updates[i] = e.episode().updates();
  std::memcpy(&buf_.obs[static_cast<size_t>(i) * obs_size()], e.episode().obs(), obs_size() * sizeof(float));
}

void BatchSim::reset_env(int i) {
  envs_[i].reset();
  write_state(i);
}

void BatchSim::advance_env(int i, const int8_t* keys, int n) {
  envs_[i].advance(keys, n, *scratch_[0]);
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

void BatchSim::run_range(int begin, int end, int thread) {
  StepScratch* const scratch[kLanes] = {scratch_[thread * kLanes].get(), scratch_[thread * kLanes + 1].get(),
                                        scratch_[thread * kLanes + 2].get(), scratch_[thread * kLanes + 3].get()};
  for (int i = begin; i < end;) {
    const int lanes = lockstep_ && end - i >= kLanes ? kLanes : 1;
    Env* e[kLanes] = {nullptr, nullptr, nullptr, nullptr};
    int32_t keys[kLanes] = {0, 0, 0, 0};
    int late[kLanes] = {0, 0, 0, 0};
    for (int l = 0; l < lanes; ++l) {
      e[l] = &envs_[i + l];
      keys[l] = buf_.keys[i + l];
      late[l] = buf_.late[i + l];
    }
    StepOutcome out[kLanes];
    // A batch's games do not fit in the cache: while these step, the next ones load
    // (about +20% on 256 games here).
    for (int l = i + lanes; l < std::min(end, i + 2 * lanes); ++l) envs_[l].game().world.prefetch();
    lane_updates_[static_cast<size_t>(thread) * kCounterStride] += static_cast<uint64_t>(step_envs(e, keys, late, scratch, out));
    for (int l = 0; l < lanes; ++l) record_step(i + l, out[l]);
    i += lanes;
  }
}

void BatchSim::record_step(int i, const StepOutcome& out) {
  const size_t S = kNumParts * kStateColumns, O = static_cast<size_t>(obs_size());
  buf_.reward[i] = out.reward;
  buf_.step_updates[i] = out.updates;
  buf_.terminated[i] = out.terminated;
  buf_.finished[i] = out.finished;
  buf_.truncated[i] = out.truncated;
  std::memcpy(&buf_.terms[static_cast<size_t>(i) * kNumRewardTerms], out.terms, sizeof(out.terms));
  write_state(i);
  if (out.terminated || out.truncated) {
    std::memcpy(&buf_.final_state[i * S], &buf_.state[i * S], S * sizeof(double));
    std::memcpy(&buf_.final_obs[i * O], &buf_.obs[i * O], O * sizeof(float));
    buf_.final_score[i] = buf_.score[i];
    buf_.final_time[i] = buf_.score_time[i];
    const uint8_t fallen = buf_.fallen[i], landed = buf_.jump_landed[i];
    reset_env(i);
    // Flags describe the step that just ended, not the fresh episode.
    buf_.fallen[i] = fallen;
    buf_.jump_landed[i] = landed;
  }
}

void BatchSim::step() {
  if (threads_ == 1) {
    run_range(0, n_, 0);
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
    run_range(begin, std::min(n_, begin + chunk_), 0);
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
      run_range(begin, std::min(n_, begin + chunk_), index);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      --pending_;
    }
    cv_done_.notify_one();
  }
}

}  // namespace qwop
