// GuidePolicy. See guide_policy.h.
#include "guide_policy.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "trig.h"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#include <immintrin.h>
#define QWOP_GUIDE_LANES 1
#endif

namespace qwop {

namespace {

// A layer's bias and activation on its summed outputs next[0..out).
void finish_layer(const DenseLayer& l, double* next) {
  for (int32_t k = 0; k < l.out; ++k) {
    double v = next[k] + l.bias[k];
    if (l.activation == Activation::kRelu) {
      v = v > 0.0 ? v : 0.0;
    } else if (l.activation == Activation::kTanh) {
      v = std::tanh(v);
    }
    next[k] = v;
  }
}

// One row through one layer: output k sums its inputs in order j = 0, 1, ... from 0.0 (the
// loop over k vectorises without reordering any sum), then adds its bias.
void dense_row(const DenseLayer& l, const double* h, double* next) {
  std::fill(next, next + l.out, 0.0);
  for (int32_t j = 0; j < l.in; ++j) {
    const double hj = h[j];
    const double* w = l.weight.data() + static_cast<size_t>(j) * l.out;
    for (int32_t k = 0; k < l.out; ++k) next[k] += hj * w[k];
  }
  finish_layer(l, next);
}

#ifdef QWOP_GUIDE_LANES
// kGuideGroup rows (h + r * stride) through one layer: dense_row's sums, eight outputs of
// four rows at a time in registers, each product rounded, then added (no FMA), in the same
// order j = 0, 1, ...; the outputs past the last eight as dense_row does them.
__attribute__((target("avx2"))) void dense_group_avx2(const DenseLayer& l, const double* h, double* next,
                                                       size_t stride) {
  static_assert(kGuideGroup == 4, "four rows of registers");
  const int32_t blocked = l.out / 8 * 8;
  const double* h0 = h;
  const double* h1 = h + stride;
  const double* h2 = h + 2 * stride;
  const double* h3 = h + 3 * stride;
  for (int32_t k0 = 0; k0 < blocked; k0 += 8) {
    __m256d a0 = _mm256_setzero_pd(), b0 = a0, a1 = a0, b1 = a0, a2 = a0, b2 = a0, a3 = a0, b3 = a0;
    const double* w = l.weight.data() + k0;
    for (int32_t j = 0; j < l.in; ++j, w += l.out) {
      const __m256d wa = _mm256_loadu_pd(w), wb = _mm256_loadu_pd(w + 4);
      __m256d x = _mm256_broadcast_sd(h0 + j);
      a0 = _mm256_add_pd(a0, _mm256_mul_pd(x, wa));
      b0 = _mm256_add_pd(b0, _mm256_mul_pd(x, wb));
      x = _mm256_broadcast_sd(h1 + j);
      a1 = _mm256_add_pd(a1, _mm256_mul_pd(x, wa));
      b1 = _mm256_add_pd(b1, _mm256_mul_pd(x, wb));
      x = _mm256_broadcast_sd(h2 + j);
      a2 = _mm256_add_pd(a2, _mm256_mul_pd(x, wa));
      b2 = _mm256_add_pd(b2, _mm256_mul_pd(x, wb));
      x = _mm256_broadcast_sd(h3 + j);
      a3 = _mm256_add_pd(a3, _mm256_mul_pd(x, wa));
      b3 = _mm256_add_pd(b3, _mm256_mul_pd(x, wb));
    }
    _mm256_storeu_pd(next + k0, a0);
    _mm256_storeu_pd(next + k0 + 4, b0);
    _mm256_storeu_pd(next + stride + k0, a1);
    _mm256_storeu_pd(next + stride + k0 + 4, b1);
    _mm256_storeu_pd(next + 2 * stride + k0, a2);
    _mm256_storeu_pd(next + 2 * stride + k0 + 4, b2);
    _mm256_storeu_pd(next + 3 * stride + k0, a3);
    _mm256_storeu_pd(next + 3 * stride + k0 + 4, b3);
  }
  for (int r = 0; r < kGuideGroup; ++r) {
    const double* hr = h + r * stride;
    double* nr = next + r * stride;
    for (int32_t k = blocked; k < l.out; ++k) {
      double v = 0.0;
      for (int32_t j = 0; j < l.in; ++j) v += hr[j] * l.weight[static_cast<size_t>(j) * l.out + k];
      nr[k] = v;
    }
    finish_layer(l, nr);
  }
}

bool group_lanes() {
  static const bool ok = [] {
    __builtin_cpu_init();
    return trig::cpu_extensions_enabled() && __builtin_cpu_supports("avx2");
  }();
  return ok;
}
#else
bool group_lanes() { return false; }
#endif

}  // namespace

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
  values_pass(&obs, 1, values, scratch);
}

void GuidePolicy::values_rows(const float* const obs[], size_t n, double* values, double* scratch) const {
  for (size_t i = 0; i < n; i += kGuideGroup) {
    values_pass(obs + i, static_cast<int>(std::min<size_t>(kGuideGroup, n - i)), values + i * nActions_, scratch);
  }
}

void GuidePolicy::values_pass(const float* const obs[], int n, double* values, double* scratch) const {
  // Rows of widest_ doubles: the group's inputs to a layer in h, its outputs in next.
  const size_t stride = static_cast<size_t>(widest_);
  double* h = scratch;
  double* next = scratch + kGuideGroup * stride;
  const bool lanes = n > 1 && group_lanes();
  const int rows = lanes ? kGuideGroup : n;  // the lanes run all four rows; unused ones hold zeros
  for (int r = 0; r < rows; ++r) {
    for (int j = 0; j < kObsSize; ++j) h[r * stride + j] = r < n ? static_cast<double>(obs[r][j]) : 0.0;
  }
  for (const DenseLayer& l : layers_) {
#ifdef QWOP_GUIDE_LANES
    if (lanes) {
      dense_group_avx2(l, h, next, stride);
      std::swap(h, next);
      continue;
    }
#endif
    for (int r = 0; r < n; ++r) dense_row(l, h + r * stride, next + r * stride);
    std::swap(h, next);
  }
  for (int r = 0; r < n; ++r) {
    const double* hr = h + r * stride;
    for (int32_t a = 0; a < nActions_; ++a) {
      double v = 0.0;
      for (size_t head = 0; head < headWeights_.size(); ++head) v += headWeights_[head] * hr[head * nActions_ + a];
      values[r * nActions_ + a] = v;
    }
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
  int32_t action = 0;
  act_rows(&state, 1, &action, scratch);
  return action;
}

void GuidePolicy::act_rows(const double* const states[], size_t n, int32_t* actions, double* scratch) const {
  float obs[kGuideGroup][kObsSize];
  const float* rows[kGuideGroup];
  double* v = scratch + 2 * kGuideGroup * static_cast<size_t>(widest_);
  for (size_t i = 0; i < n; i += kGuideGroup) {
    const int m = static_cast<int>(std::min<size_t>(kGuideGroup, n - i));
    for (int r = 0; r < m; ++r) {
      write_observation(states[i + r], obs[r]);
      rows[r] = obs[r];
    }
    values_pass(rows, m, v, scratch);
    for (int r = 0; r < m; ++r) actions[i + r] = argmax(v + r * nActions_, nActions_);
  }
}

}  // namespace qwop
