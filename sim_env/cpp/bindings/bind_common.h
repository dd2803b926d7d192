// What the Python bindings' files share (module sim_env._core): the argument checks, the sin/cos
// option, numpy conversions, and the Python view of one game (QwopSim). The checks of a key
// mask are the ones in bind_checks.cpp, used by every binding that takes keys.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine.h"
#include "game.h"
#include "snapshot.h"

namespace qwop_py {

namespace py = pybind11;
using qwop::Game;
using qwop::kNumParts;
using qwop::kStateColumns;
using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;

// ---- arguments (bind_checks.cpp) ----
constexpr int kMaxKeyMask = qwop::kKeyQ | qwop::kKeyW | qwop::kKeyO | qwop::kKeyP;  // 15: every key held
// One key mask 0..15; bools, floats and strings are refused, not converted.
int32_t check_keys(py::handle obj);
// A 1-D int8 numpy array of key masks 0..15 (a run's keys).
py::array_t<int8_t> check_key_array(py::handle obj, const char* what);
// Key masks 0..15 of any integer dtype and shape, as int32 or int8 (a batch's or a planner's).
template <typename T>
py::array_t<T> check_key_masks(py::handle obj, const char* what);
// Whether a value read from a keys buffer is a key mask, else a ValueError naming it.
void check_key_value(int32_t v, int index);
// A 1-D int8 numpy array of values 0..max_value (a session's events).
py::array_t<int8_t> check_int8_array(py::handle obj, const char* what, int max_value);
// An array of whole numbers lo..hi, as int64 (floats, bools, out-of-range values refused).
py::array_t<int64_t> checked_ints(py::handle obj, const std::string& what, long long lo, long long hi);
// checked_ints, converted to the C++ side's element type (the values fit: they were checked).
template <typename T>
py::array_t<T> checked_ints_as(py::handle obj, const std::string& what, long long lo, long long hi) {
  auto a = checked_ints(obj, what, lo, hi);
  py::array_t<T> out(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()));
  const int64_t* p = a.data();
  T* o = out.mutable_data();
  for (py::ssize_t i = 0; i < a.size(); ++i) o[i] = static_cast<T>(p[i]);
  return out;
}
template <typename T>
py::array_t<T> check_key_masks(py::handle obj, const char* what) {
  return checked_ints_as<T>(obj, what, 0, kMaxKeyMask);
}
// The sin/cos variant option of the simulator, the batch and the replays (trig.h).
qwop::trig::Variant parse_sincos(const std::string& name);
const char* sincos_name(qwop::trig::Variant v);
// A capacity of the engine was exceeded (only a state restored from made-up bytes can): a ValueError.
void check_overflow(const Game& g);
const double* check_state(const Doubles& s, const char* what);

// ---- numpy ----
// Hands a vector's storage to numpy without copying.
template <typename T>
py::array_t<T> to_numpy(std::vector<T>&& v, std::vector<py::ssize_t> shape) {
  auto* owned = new std::vector<T>(std::move(v));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, owned->data(), free_when_done);
}

template <typename T>
py::array_t<T> view(std::vector<T>& v, std::vector<py::ssize_t> shape, py::handle owner) {
  return py::array_t<T>(shape, v.data(), owner);
}


// ---- one game (bind_sim.cpp) ----
// One game: it owns its game, or views the game of an Env (kept alive by Python).
class QwopSim {
 public:
  explicit QwopSim(bool first_click = true, const std::string& sincos = "fma")
      : owned_(std::make_unique<Game>()), game_(owned_.get()), scratch_(std::make_unique<qwop::StepScratch>()) {
    game_->load(first_click, parse_sincos(sincos));
  }
  explicit QwopSim(Game* view) : game_(view), scratch_(std::make_unique<qwop::StepScratch>()) {}

  void update(py::handle keys) {
    game_->update(check_keys(keys), *scratch_);
    check_overflow(*game_);
  }
  void reset(py::handle keys) {
    game_->reset(check_keys(keys), *scratch_);
    check_overflow(*game_);
  }
  void advance(py::handle keys_obj) {
    auto keys = check_key_array(keys_obj, "keys");
    const int8_t* k = keys.data();
    for (py::ssize_t t = 0; t < keys.shape(0); ++t) game_->update(k[t], *scratch_);
    check_overflow(*game_);
  }
  py::array_t<double> body_state() const {
    py::array_t<double> out({kNumParts, kStateColumns});
    game_->body_state(out.mutable_data());
    return out;
  }
  py::bytes snapshot() const { return py::bytes(qwop::take_snapshot(*game_)); }
  void restore(py::handle obj) {
    if (!py::isinstance<py::bytes>(obj)) throw py::value_error("restore() takes the bytes returned by snapshot()");
    qwop::restore_snapshot(*game_, obj.cast<std::string>());
  }
  py::array_t<double> hurdle_state() const {
    py::array_t<double> out({2, 3});
    const Game& g = *game_;
    const qwop::Body* b[2] = {&g.world.bodies[g.hurdleBase], &g.world.bodies[g.hurdleTop]};
    for (int i = 0; i < 2; ++i) {
      out.mutable_at(i, 0) = b[i]->xf.position.x;
      out.mutable_at(i, 1) = b[i]->xf.position.y;
      out.mutable_at(i, 2) = b[i]->sweep.a;
    }
    return out;
  }

  Game& game() { return *game_; }
  const Game& game() const { return *game_; }

 private:
  std::unique_ptr<Game> owned_;
  Game* game_;
  std::unique_ptr<qwop::StepScratch> scratch_;
};


void bind_sim(py::module_& m);
void bind_batch(py::module_& m);
void bind_env(py::module_& m);
void bind_game_set(py::module_& m);
void bind_guide(py::module_& m);
void bind_features(py::module_& m);
void bind_testing(py::module_& m);

}  // namespace qwop_py
