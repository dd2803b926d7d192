// GuidePolicy. See guide_policy.h.
#include "guide_policy.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace qwop {

GuidePolicy::GuidePolicy(std::vector<DenseLayer> layers, int32_t n_actions, std::vector<double> head_weights,
                         std::vector<int8_t> masks, int32_t frame_skip)
    : layers_(std::move(layers)),
      nActions_(n_actions),
      headWeights_(std::move(head_weights)),
      masks_(std::move(masks)),
      frameSkip_(frame_skip),
      widest_(kObsSize) {
  if (layers_.empty()) throw std::invalid_argument("the policy has no layers");
  if (n_actions < 1 || static_cast<int32_t>(masks_.size()) != n_actions) {
    throw std::invalid_argument("the policy needs one key mask per action");
  }
  if (frame_skip < 1) throw std::invalid_argument("frame_skip must be at least 1");
  int32_t width = kObsSize;
  for (const DenseLayer& l : layers_) {
    if (l.in != width) throw std::invalid_argument("the layers' sizes do not chain (the first takes the observation)");
    if (l.weight.size() != static_cast<size_t>(l.in) * l.out || l.bias.size() != static_cast<size_t>(l.out)) {
      throw std::invalid_argument("a layer's weight or bias has the wrong size");
    }
    width = l.out;
    widest_ = std::max(widest_, width);
  }
  if (width != static_cast<int32_t>(headWeights_.size()) * n_actions) {
    throw std::invalid_argument("the last layer must have heads x actions outputs");
  }
}

void GuidePolicy::values(const float* obs, double* values, double* scratch) const {
  double* h = scratch;
  double* next = scratch + widest_;
  for (int j = 0; j < kObsSize; ++j) h[j] = static_cast<double>(obs[j]);
  for (const DenseLayer& l : layers_) {
    // Output k sums its inputs in order j = 0, 1, ... (the loop over k vectorises without
    // reordering any sum), then adds its bias.
    std::fill(next, next + l.out, 0.0);
    for (int32_t j = 0; j < l.in; ++j) {
      const double hj = h[j];
      const double* w = l.weight.data() + static_cast<size_t>(j) * l.out;
      for (int32_t k = 0; k < l.out; ++k) next[k] += hj * w[k];
    }
    for (int32_t k = 0; k < l.out; ++k) {
      double v = next[k] + l.bias[k];
      if (l.activation == Activation::kRelu) {
        v = v > 0.0 ? v : 0.0;
      } else if (l.activation == Activation::kTanh) {
        v = std::tanh(v);
      }
      next[k] = v;
    }
    std::swap(h, next);
  }
  for (int32_t a = 0; a < nActions_; ++a) {
    double v = 0.0;
    for (size_t head = 0; head < headWeights_.size(); ++head) v += headWeights_[head] * h[head * nActions_ + a];
    values[a] = v;
  }
}

namespace {

// numpy's argmax: the first of equal values, or the first NaN.
int32_t argmax(const double* v, int32_t n) {
  int32_t best = 0;
  for (int32_t a = 0; a < n; ++a) {
    if (std::isnan(v[a])) return a;
    if (v[a] > v[best]) best = a;
  }
  return best;
}

}  // namespace

int32_t GuidePolicy::act(const double* state, double* scratch) const {
  float obs[kObsSize];
  write_observation(state, obs);
  double* v = scratch + 2 * static_cast<size_t>(widest_);
  values(obs, v, scratch);
  return argmax(v, nActions_);
}

}  // namespace qwop
