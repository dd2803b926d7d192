// A trained policy's greedy choice, evaluated in C++: the guide of the planner's rollouts
// (policy_rollouts.h). The network is a multilayer perceptron in IEEE double whose output
// for one body state does not depend on any other row, thread or batch, so a search gives
// the same run on any number of threads or machines.
#pragma once

#include <cstdint>
#include <vector>

#include "env_features.h"

namespace qwop {

// Rows one pass of the network computes together: each weight is loaded once for all of
// them (the rollouts' groups of kLanes games, lockstep.h, are one such pass).
constexpr int kGuideGroup = 4;

enum class Activation : int32_t { kNone = 0, kRelu = 1, kTanh = 2 };

struct DenseLayer {
  int32_t in, out;
  std::vector<double> weight;  // (in, out), row-major: weight[j * out + k] links input j to output k
  std::vector<double> bias;    // (out,)
  Activation activation;
};

class GuidePolicy {
 public:
  // `layers` end in (heads * n_actions) outputs; an action's value is the sum over heads of
  // head_weights[h] * output[h * n_actions + a]. masks[a]: the key mask of action a.
  GuidePolicy(std::vector<DenseLayer> layers, int32_t n_actions, std::vector<double> head_weights,
              std::vector<int8_t> masks, int32_t frame_skip);

  int32_t n_actions() const { return nActions_; }
  int32_t frame_skip() const { return frameSkip_; }
  int8_t mask(int32_t action) const { return masks_[action]; }
  // Doubles of scratch that values(), act() and the group forms need.
  size_t scratch_size() const {
    return kGuideGroup * (2 * static_cast<size_t>(widest_) + static_cast<size_t>(nActions_));
  }

  // The action values of one observation (kObsSize floats) into values[n_actions].
  void values(const float* obs, double* values, double* scratch) const;
  // The greedy action (the first of equal values, as numpy's argmax) of a body state (12 x 6).
  int32_t act(const double* state, double* scratch) const;

  // values() and act() of n rows, kGuideGroup per pass, the same bits row by row (every
  // output is the same products summed in the same order; with AVX2 a pass's rows share each
  // weight load and four outputs are computed side by side). values: n x n_actions.
  void values_rows(const float* const obs[], size_t n, double* values, double* scratch) const;
  void act_rows(const double* const states[], size_t n, int32_t* actions, double* scratch) const;

 private:
  // One pass: values_rows of n <= kGuideGroup rows.
  void values_pass(const float* const obs[], int n, double* values, double* scratch) const;

  std::vector<DenseLayer> layers_;
  int32_t nActions_;
  std::vector<double> headWeights_;
  std::vector<int8_t> masks_;
  int32_t frameSkip_;
  int32_t widest_;
};

}  // namespace qwop
