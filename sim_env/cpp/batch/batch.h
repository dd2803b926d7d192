// A pool of N envs (episode.h) stepped on a persistent thread pool, writing into
// caller-visible buffers (EnvPool-style): state, rewards and flags live in arrays that Python
// sees as numpy views, so a step copies nothing across the language boundary. The step itself
// is Env::step; the batch only schedules it and auto-resets.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "env_features.h"
#include "episode.h"
#include "game.h"

namespace qwop {

// The most envs one batch holds.
inline constexpr int kMaxEnvs = (1 << 20) - 1;

struct BatchBuffers {
  std::vector<double> state;        // (N, 12, 6) state after the step (after auto-reset)
  std::vector<double> final_state;  // (N, 12, 6) state at the end of an episode that ended
  std::vector<double> reward;       // (N,) weighted sum of the step's reward terms
  std::vector<double> score;        // (N,) game score (m) after the step
  std::vector<double> score_time;   // (N,) game time (s) after the step
  std::vector<double> distance;     // (N,) torso centre x / 10 (m) after the step
  std::vector<double> final_score;  // (N,) score at the end of an episode that ended
  std::vector<double> final_time;   // (N,) game time at the end of an episode that ended
  std::vector<uint8_t> terminated;  // (N,) game ended (fall or finish) in this step
  std::vector<uint8_t> truncated;   // (N,) time limit reached in this step
  std::vector<uint8_t> fallen;      // (N,) flags of the episode's last update
  std::vector<uint8_t> jump_landed;
  std::vector<uint8_t> finished;    // (N,) the step ended the episode with a finish (finished_100m, game.h)
  std::vector<int32_t> episode_updates;  // (N,) updates in the current episode
  std::vector<int32_t> step_updates;     // (N,) updates the last step ran (fewer at a game's end)
  std::vector<int32_t> keys;        // (N,) key masks for the next step (input)
  std::vector<uint8_t> late;        // (N,) late updates of the next step, with the previous keys (input; Env::step)
  std::vector<float> obs;           // (N, obs_size) stacked observation after the step (after auto-reset)
  std::vector<float> final_obs;     // (N, obs_size) last observation of an episode that ended
  std::vector<double> terms;        // (N, kNumRewardTerms) reward terms of the step
};

class BatchSim {
 public:
  // `lockstep`: step groups of four envs in lock step (lockstep.h) where the CPU can; the
  // results are the same either way.
  BatchSim(int num_envs, int num_threads, const EpisodeOptions& options, trig::Variant variant = trig::kFma,
           bool lockstep = true);
  ~BatchSim();
  BatchSim(const BatchSim&) = delete;
  BatchSim& operator=(const BatchSim&) = delete;

  // Steps every env with buffers.keys (validated by the caller), then auto-resets the
  // envs whose episode ended, writing the final state into final_state first.
  void step();
  void reset_all();
  void reset_env(int i);
  // Runs updates on one env outside step(); they count toward its episode.
  void advance_env(int i, const int8_t* keys, int n);
  // Starts one env's episode from a snapshot (Env::start).
  void start_env(int i, const std::string& snapshot, int updates);

  int num_envs() const { return n_; }
  int num_threads() const { return threads_; }
  bool lockstep() const { return lockstep_; }
  // Game updates whose joints were solved in the lanes since the batch was made.
  uint64_t lane_updates() const;
  const EpisodeOptions& options() const { return options_; }
  int obs_size() const { return options_.frame_stack * kObsSize; }
  Game& game(int i) { return envs_[i].game(); }
  BatchBuffers& buffers() { return buf_; }
  size_t bytes_per_env() const;

 private:
  void run_range(int begin, int end, int thread);
  void record_step(int i, const StepOutcome& out);
  void worker(int index);
  void write_state(int i);

  int n_, threads_;
  bool lockstep_;
  EpisodeOptions options_;
  std::unique_ptr<Game> initial_;
  std::vector<Env> envs_;
  std::vector<std::unique_ptr<StepScratch>> scratch_;  // kLanes per thread
  static constexpr size_t kCounterStride = 8;  // one cache line per thread's counter
  std::vector<uint64_t> lane_updates_;
  BatchBuffers buf_;

  // The pool. Each thread owns a fixed share of the envs, so a game stays in the cache of
  // the core that stepped it last time; a thread that finishes its share early takes
  // groups from the end of the others'. A claim is one atomic on the owner's counter,
  // tagged with the step's generation, so a thread that wakes late cannot take work of a
  // step that is over, and the caller waits only for groups that are being stepped.
  struct alignas(64) Share {
    std::atomic<uint64_t> work{0};  // generation tag | first unclaimed env | end of the unclaimed envs
    int begin = 0, end = 0;
  };
  // Takes a group of envs of `gen` from the front of a share (its owner) or from its end
  // (another thread); false when the share has none left for that generation.
  bool claim(Share& sh, uint64_t gen, bool from_end, int& begin, int& end);
  void run_shares(uint64_t gen, int thread);

  std::vector<std::thread> pool_;
  std::unique_ptr<Share[]> shares_;
  std::mutex mu_;
  std::condition_variable cv_start_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> active_{0};  // threads claiming work right now
  std::atomic<int> done_{0};    // envs stepped in this generation
  std::atomic<bool> stop_{false};
  int chunk_ = 1;
};

}  // namespace qwop
