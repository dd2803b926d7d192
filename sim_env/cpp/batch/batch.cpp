// Thread-pool batch of games. See batch.h.
#include "batch.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace qwop {

BatchSim::BatchSim(int num_envs, int num_threads, const EpisodeOptions& options, trig::Variant variant,
                   bool lockstep)
    : n_(num_envs), threads_(num_threads), lockstep_(lockstep && lockstep_available()), options_(options) {
  if (n_ < 1) throw std::invalid_argument("num_envs must be at least 1");
  if (threads_ < 1) throw std::invalid_argument("num_threads must be at least 1");
  if (n_ > kMaxEnvs) throw std::invalid_argument("num_envs must be at most " + std::to_string(kMaxEnvs));
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
  // Each thread's share is whole groups of lanes, so that its envs step in lock step.
  chunk_ = lockstep_ ? kLanes : 2;
  shares_ = std::make_unique<Share[]>(static_cast<size_t>(threads_));
  const int groups = (n_ + chunk_ - 1) / chunk_;
  for (int t = 0; t < threads_; ++t) {
    shares_[t].begin = std::min(n_, groups * t / threads_ * chunk_);
    shares_[t].end = std::min(n_, groups * (t + 1) / threads_ * chunk_);
  }
  for (int t = 1; t < threads_; ++t) pool_.emplace_back(&BatchSim::worker, this, t);
}

BatchSim::~BatchSim() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true);
    generation_.fetch_add(1);
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
  // The env (game and episode, with its observation frames, and the contacts its game holds
  // now) plus this env's share of every buffer and of the threads' scratch space.
  const BatchBuffers& b = buf_;
  size_t buffers = 0;
  auto add = [&buffers](const auto& v) { buffers += v.size() * sizeof(v[0]); };
  add(b.state), add(b.final_state), add(b.reward), add(b.score), add(b.score_time), add(b.distance);
  add(b.final_score), add(b.final_time), add(b.terminated), add(b.truncated), add(b.fallen), add(b.jump_landed);
  add(b.finished), add(b.episode_updates), add(b.step_updates), add(b.keys), add(b.late), add(b.obs);
  add(b.final_obs), add(b.terms);
  size_t shared = buffers;
  for (const auto& s : scratch_) shared += sizeof(StepScratch) + s->constraints.capacity() * sizeof(ContactConstraint);
  for (const Env& e : envs_) shared += e.game().world.contacts.bytes();
  return sizeof(Env) + obs_size() * sizeof(float) + shared / static_cast<size_t>(n_);
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

void BatchSim::start_env(int i, const std::string& snapshot, int updates) {
  envs_[i].start(snapshot, updates);
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
    // (about +20% on 256 games here). They are the next group this thread is likely to claim.
    for (int l = i + lanes; l < std::min(n_, i + 2 * lanes); ++l) envs_[l].game().world.prefetch();
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

namespace {

// A share's work word: a generation tag, then the first unclaimed env and the end of the
// unclaimed envs. A thread claims only with the tag of the generation it was woken for; the
// caller starts a generation only when no thread is claiming, so a stale tag is at most one
// generation old and never matches.
constexpr int kIndexBits = 20;
constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;
constexpr uint64_t kTagMask = (uint64_t{1} << (64 - 2 * kIndexBits)) - 1;
uint64_t work_word(uint64_t gen, uint64_t front, uint64_t back) {
  return (gen & kTagMask) << (2 * kIndexBits) | front << kIndexBits | back;
}

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// How long a thread that finished a step keeps watching for the next before it sleeps: a
// woken thread starts tens of microseconds late on a busy VM, longer than a small batch's step.
constexpr int kSpinRounds = 4000;

// Waits until done(): spinning first (what the caller waits for is short), then giving up the
// core on each check (a thread it waits for may have been descheduled).
template <class Done>
void wait_until(Done done) {
  for (int spin = 0; !done(); ++spin) {
    if (spin < kSpinRounds) {
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
}

}  // namespace

bool BatchSim::claim(Share& sh, uint64_t gen, bool from_end, int& begin, int& end) {
  uint64_t cur = sh.work.load(std::memory_order_acquire);
  for (;;) {
    const uint64_t front = cur >> kIndexBits & kIndexMask, back = cur & kIndexMask;
    if ((cur >> (2 * kIndexBits)) != (gen & kTagMask) || front >= back) return false;
    uint64_t next;
    if (from_end) {
      const uint64_t b = back - std::min<uint64_t>(back - front, static_cast<uint64_t>(chunk_));
      next = work_word(gen, front, b);
      begin = static_cast<int>(b), end = static_cast<int>(back);
    } else {
      const uint64_t f = std::min<uint64_t>(back, front + static_cast<uint64_t>(chunk_));
      next = work_word(gen, f, back);
      begin = static_cast<int>(front), end = static_cast<int>(f);
    }
    if (sh.work.compare_exchange_weak(cur, next, std::memory_order_acq_rel, std::memory_order_acquire)) return true;
  }
}

void BatchSim::run_shares(uint64_t gen, int thread) {
  int begin, end;
  for (int k = 0; k < threads_; ++k) {
    Share& sh = shares_[(thread + k) % threads_];
    while (claim(sh, gen, k != 0, begin, end)) {
      run_range(begin, end, thread);
      done_.fetch_add(end - begin, std::memory_order_acq_rel);
    }
  }
}

void BatchSim::step() {
  if (threads_ == 1) {
    run_range(0, n_, 0);
    return;
  }
  // A thread that woke late for the last step may still be claiming (and finding nothing).
  wait_until([this] { return active_.load(std::memory_order_acquire) == 0; });
  const uint64_t gen = generation_.load(std::memory_order_relaxed) + 1;
  done_.store(0, std::memory_order_relaxed);
  for (int t = 0; t < threads_; ++t) {
    shares_[t].work.store(work_word(gen, static_cast<uint64_t>(shares_[t].begin), static_cast<uint64_t>(shares_[t].end)),
                          std::memory_order_relaxed);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    generation_.store(gen, std::memory_order_release);
  }
  cv_start_.notify_all();
  run_shares(gen, 0);  // the calling thread works too
  // What is left is being stepped by threads that are running, so this wait is short.
  wait_until([this] { return done_.load(std::memory_order_acquire) >= n_; });
}

void BatchSim::worker(int index) {
  // Generation 0 is the batch's making: a thread that starts after the first step was
  // posted (or after the batch was dropped) still sees that generation change.
  uint64_t seen = 0;
  for (;;) {
    uint64_t gen = generation_.load(std::memory_order_acquire);
    for (int spin = 0; gen == seen && spin < kSpinRounds; ++spin) {
      cpu_relax();
      gen = generation_.load(std::memory_order_acquire);
    }
    if (gen == seen) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_start_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen; });
      gen = generation_.load(std::memory_order_acquire);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    seen = gen;
    active_.fetch_add(1, std::memory_order_acq_rel);
    if (generation_.load(std::memory_order_acquire) == gen) run_shares(gen, index);
    active_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

}  // namespace qwop
