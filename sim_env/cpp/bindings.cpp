// Python bindings (module sim_env._core): argument checks and numpy views around the C++
// game (game.h), env step (episode.h), batch (batch.h), snapshots (snapshot.h) and recorded
// runs (trace.h). Nothing here decides what the game or an env step does.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "batch.h"
#include "engine_util.h"
#include "env_features.h"
#include "episode.h"
#include "game.h"
#include "game_def.h"
#include "game_set.h"
#include "py_inspect.h"
#include "snapshot.h"
#include "trace.h"

namespace py = pybind11;
using qwop::Game;
using qwop::kNumParts;
using qwop::kStateColumns;

namespace {

constexpr const char* kKeysHelp = "an int mask 0..15 (Q=1, W=2, O=4, P=8)";

int32_t check_keys(py::handle obj) {
  if (PyBool_Check(obj.ptr())) throw py::value_error(std::string("keys must be ") + kKeysHelp + ", got a bool");
  if (!PyIndex_Check(obj.ptr())) {
    throw py::value_error(std::string("keys must be ") + kKeysHelp + ", got " +
                          std::string(py::str(py::type::of(obj).attr("__name__"))));
  }
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0 || v < 0 || v > 15) {
    throw py::value_error("key mask " + std::string(py::str(index)) + " is out of range: use 0..15 (Q=1, W=2, O=4, P=8)");
  }
  return static_cast<int32_t>(v);
}

// An array of whole numbers lo..hi (any integer dtype, or a list of ints), as int64. Floats,
// bools, strings and values out of range are refused, not converted (numpy's casts would turn
// 1.5 into 1 and 2**33 + 1 into 1).
py::array_t<int64_t> checked_ints(py::handle obj, const std::string& what, long long lo, long long hi) {
  py::array arr = py::array::ensure(obj);
  if (!arr) throw py::value_error(what + " must be an array of whole numbers");
  const char kind = arr.dtype().kind();
  if (kind != 'i' && kind != 'u') {
    throw py::value_error(what + " must hold whole numbers " + std::to_string(lo) + ".." + std::to_string(hi) +
                          ", got dtype " + std::string(py::str(arr.dtype())));
  }
  if (kind == 'u' && arr.dtype().itemsize() == 8) {  // above 2**63 would wrap into range as int64
    auto u = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
    for (py::ssize_t i = 0; i < u.size(); ++i) {
      if (u.data()[i] > static_cast<uint64_t>(hi)) {
        throw py::value_error(what + "[" + std::to_string(i) + "] = " + std::to_string(u.data()[i]) +
                              " is out of range " + std::to_string(lo) + ".." + std::to_string(hi));
      }
    }
  }
  auto a = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
  const int64_t* p = a.data();
  for (py::ssize_t i = 0; i < a.size(); ++i) {
    if (p[i] < lo || p[i] > hi) {
      throw py::value_error(what + "[" + std::to_string(i) + "] = " + std::to_string(p[i]) + " is out of range " +
                            std::to_string(lo) + ".." + std::to_string(hi));
    }
  }
  return a;
}

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

py::array_t<int8_t> check_int8_array(py::handle obj, const char* what, int max_value) {
  if (!py::isinstance<py::array>(obj)) {
    throw py::value_error(std::string(what) + " must be a 1-D numpy int8 array, got " +
                          std::string(py::str(py::type::of(obj).attr("__name__"))));
  }
  py::array arr = py::reinterpret_borrow<py::array>(obj);
  if (!arr.dtype().is(py::dtype::of<int8_t>())) {
    throw py::value_error(std::string(what) + " must have dtype int8, got " + std::string(py::str(arr.dtype())) +
                          " (convert with np.asarray(x, dtype=np.int8))");
  }
  if (arr.ndim() != 1) throw py::value_error(std::string(what) + " must be 1-D, got shape with ndim " + std::to_string(arr.ndim()));
  auto a = py::array_t<int8_t, py::array::c_style | py::array::forcecast>::ensure(arr);
  const int8_t* p = a.data();
  for (py::ssize_t i = 0; i < a.shape(0); ++i) {
    if (p[i] < 0 || p[i] > max_value) {
      throw py::value_error(std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(p[i]) +
                            " is out of range 0.." + std::to_string(max_value));
    }
  }
  return a;
}

// Rows of AABBs as numpy gives them: lower.x, lower.y, upper.x, upper.y.
using Boxes = py::array_t<double, py::array::c_style | py::array::forcecast>;
struct BoxPair {
  qwop::AABB a, b;
};

// Row i of a and of b, for the broad phase's box tests exposed to the tests.
std::vector<BoxPair> box_pairs(const Boxes& a, const Boxes& b) {
  if (a.ndim() != 2 || a.shape(1) != 4 || b.ndim() != 2 || b.shape(0) != a.shape(0) || b.shape(1) != 4) {
    throw py::value_error("a and b must be (n, 4) alike: lower.x, lower.y, upper.x, upper.y");
  }
  std::vector<BoxPair> rows(static_cast<size_t>(a.shape(0)));
  const double* pa = a.data();
  const double* pb = b.data();
  for (BoxPair& r : rows) {
    r.a = {{pa[0], pa[1]}, {pa[2], pa[3]}};
    r.b = {{pb[0], pb[1]}, {pb[2], pb[3]}};
    pa += 4, pb += 4;
  }
  return rows;
}

// The sin/cos variant option of the simulator, the batch and the replays (trig.h).
qwop::trig::Variant parse_sincos(const std::string& name) {
  if (name == "fma") return qwop::trig::kFma;
  if (name == "generic") return qwop::trig::kGeneric;
  throw py::value_error("sincos must be 'fma' (glibc's FMA build, the reference traces') or 'generic', got '" + name + "'");
}

const char* sincos_name(qwop::trig::Variant v) { return v == qwop::trig::kGeneric ? "generic" : "fma"; }

void check_overflow(const Game& g) {
  if (g.world.overflow) throw std::runtime_error("simulator capacity exceeded; the state is invalid (please report this)");
}

using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;

const double* check_state(const Doubles& s, const char* what) {
  if (s.ndim() != 2 || s.shape(0) != kNumParts || s.shape(1) != kStateColumns) {
    throw py::value_error(std::string(what) + " must have shape (12, 6)");
  }
  return s.data();
}

// Hands a vector's storage to numpy without copying.
template <typename T>
py::array_t<T> to_numpy(std::vector<T>&& v, std::vector<py::ssize_t> shape) {
  auto* owned = new std::vector<T>(std::move(v));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, owned->data(), free_when_done);
}

py::dict trace_dict(qwop::Trace&& t) {
  const py::ssize_t n = t.n;
  py::dict d;
  d["initial"] = to_numpy(std::move(t.initial), {kNumParts, kStateColumns});
  d["state"] = to_numpy(std::move(t.state), {n, kNumParts, kStateColumns});
  d["fallen"] = to_numpy(std::move(t.fallen), {n});
  d["game_ended"] = to_numpy(std::move(t.game_ended), {n});
  d["jump_landed"] = to_numpy(std::move(t.jump_landed), {n});
  d["score_time"] = to_numpy(std::move(t.score_time), {n});
  d["score"] = to_numpy(std::move(t.score), {n});
  return d;
}

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
    auto keys = check_int8_array(keys_obj, "keys", 15);
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

py::dict replay(py::handle keys_obj, const std::string& sincos) {
  auto keys = check_int8_array(keys_obj, "keys", 15);
  const qwop::trig::Variant variant = parse_sincos(sincos);
  auto game = std::make_unique<Game>();
  qwop::StepScratch scratch;
  qwop::Trace t;
  {
    py::gil_scoped_release release;
    t = qwop::replay_keys(keys.data(), keys.shape(0), *game, scratch, variant);
  }
  check_overflow(*game);
  const py::ssize_t n = t.n;
  py::dict d = trace_dict(std::move(t));
  d["keys"] = keys[py::slice(0, n, 1)];
  return d;
}

py::dict replay_session(py::handle events_obj, double initial_score_time, const std::string& sincos) {
  auto events = check_int8_array(events_obj, "events", qwop::kClickEvent);
  const qwop::trig::Variant variant = parse_sincos(sincos);
  auto game = std::make_unique<Game>();
  qwop::StepScratch scratch;
  qwop::Trace t;
  {
    py::gil_scoped_release release;
    t = qwop::replay_events(events.data(), events.shape(0), initial_score_time, *game, scratch, variant);
  }
  check_overflow(*game);
  py::dict d = trace_dict(std::move(t));
  d["events"] = events;
  return d;
}

qwop::EpisodeOptions episode_options(int frame_skip, double time_limit, int frame_stack, std::optional<Doubles> weights) {
  qwop::EpisodeOptions o;
  o.frame_skip = frame_skip;
  o.max_updates = qwop::max_updates_for(time_limit);
  o.time_limit_s = time_limit;
  o.frame_stack = frame_stack;
  if (weights) {
    if (weights->ndim() != 1 || weights->shape(0) != qwop::kNumRewardTerms) {
      throw py::value_error("weights must be " + std::to_string(qwop::kNumRewardTerms) + " numbers, one per reward term");
    }
    std::memcpy(o.weights, weights->data(), sizeof(o.weights));
  }
  qwop::check_options(o);
  return o;
}

py::dict outcome_dict(const qwop::StepOutcome& o) {
  py::array_t<double> terms(qwop::kNumRewardTerms);
  std::memcpy(terms.mutable_data(), o.terms, sizeof(o.terms));
  py::dict d;
  d["terms"] = terms;
  d["reward"] = o.reward;
  d["updates"] = o.updates;
  d["terminated"] = o.terminated;
  d["truncated"] = o.truncated;
  d["fell"] = o.fell;
  d["finished"] = o.finished;
  return d;
}

py::array_t<float> episode_obs(const qwop::Episode& e) {
  py::array_t<float> out(e.obs_size());
  std::memcpy(out.mutable_data(), e.obs(), sizeof(float) * e.obs_size());
  return out;
}

// The single simulator env's C++ side: one Env with its own game and scratch.
struct PyEnv {
  PyEnv(const qwop::EpisodeOptions& o, qwop::trig::Variant variant) : initial(std::make_unique<Game>()) {
    initial->load(true, variant);
    env = std::make_unique<qwop::Env>(o, initial.get());
  }
  std::unique_ptr<Game> initial;
  std::unique_ptr<qwop::Env> env;
  qwop::StepScratch scratch;
};

template <typename T>
py::array_t<T> view(std::vector<T>& v, std::vector<py::ssize_t> shape, py::handle owner) {
  return py::array_t<T>(shape, v.data(), owner);
}

void bind_batch(py::module_& m) {
  py::class_<qwop::BatchSim>(m, "BatchSim", "N independent envs stepped in C++ on a thread pool, with auto-reset.")
      .def(py::init([](int num_envs, int num_threads, int frame_skip, double time_limit, int frame_stack,
                       std::optional<Doubles> weights, const std::string& sincos, bool lockstep) {
             return std::make_unique<qwop::BatchSim>(num_envs, num_threads,
                                                     episode_options(frame_skip, time_limit, frame_stack, weights),
                                                     parse_sincos(sincos), lockstep);
           }),
           py::arg("num_envs"), py::arg("num_threads") = 1, py::arg("frame_skip") = 1, py::arg("time_limit") = 120.0,
           py::arg("frame_stack") = 1, py::arg("weights") = py::none(), py::arg("sincos") = "fma",
           py::arg("lockstep") = true,
           "weights: one per reward term (default: progress only); the reward buffer is their weighted sum. "
           "sincos: 'fma' (the reference traces') or 'generic' (glibc without FMA). "
           "lockstep: step groups of four envs together, their joints solved in SIMD lanes, where the CPU "
           "has AVX2 and FMA (the same results; False steps each env on its own).")
      .def_property_readonly("sincos", [](qwop::BatchSim& b) { return sincos_name(b.game(0).world.trigVariant); })
      .def_property_readonly("lockstep", &qwop::BatchSim::lockstep,
                             "Whether groups of four envs step in lock step (asked for and the CPU can).")
      .def_property_readonly("lane_updates", &qwop::BatchSim::lane_updates,
                             "Game updates whose joints were solved in SIMD lanes since the batch was made.")
      .def("step", [](qwop::BatchSim& b, py::handle keys) {
             if (!keys.is_none()) {
               auto arr = checked_ints_as<int32_t>(keys, "keys", 0, 15);
               if (arr.ndim() != 1 || arr.shape(0) != b.num_envs()) {
                 throw py::value_error("keys must be a 1-D integer array of length num_envs = " + std::to_string(b.num_envs()));
               }
               std::memcpy(b.buffers().keys.data(), arr.data(), sizeof(int32_t) * b.num_envs());
             } else {
               for (int i = 0; i < b.num_envs(); ++i) {
                 const int32_t v = b.buffers().keys[i];
                 if (v < 0 || v > 15) {
                   throw py::value_error("keys buffer[" + std::to_string(i) + "] = " + std::to_string(v) + " is out of range 0..15");
                 }
               }
             }
             {
               py::gil_scoped_release release;
               b.step();
             }
             for (int i = 0; i < b.num_envs(); ++i) check_overflow(b.game(i));
           }, py::arg("keys") = py::none(),
           "Step every env once (frame_skip updates) with the given masks, or with the `keys` buffer if None.")
      .def("reset", [](qwop::BatchSim& b) { b.reset_all(); }, "Put every env back to the initial state.")
      .def("reset_env", [](qwop::BatchSim& b, int i) {
             if (i < 0 || i >= b.num_envs()) throw py::index_error("env index out of range");
             b.reset_env(i);
           }, py::arg("index"))
      .def("advance_env", [](qwop::BatchSim& b, int i, py::handle keys_obj) {
             if (i < 0 || i >= b.num_envs()) throw py::index_error("env index out of range");
             auto keys = check_int8_array(keys_obj, "keys", 15);
             b.advance_env(i, keys.data(), static_cast<int>(keys.shape(0)));
             check_overflow(b.game(i));
           }, py::arg("index"), py::arg("keys"),
           "Run updates on one env before its first step (a random start); they count toward its episode.")
      .def("snapshot_env", [](qwop::BatchSim& b, int i) {
             if (i < 0 || i >= b.num_envs()) throw py::index_error("env index out of range");
             return py::bytes(qwop::take_snapshot(b.game(i)));
           }, py::arg("index"), "One env's game as a snapshot (QwopSim.restore takes it).")
      .def_property_readonly("num_envs", &qwop::BatchSim::num_envs)
      .def_property_readonly("num_threads", &qwop::BatchSim::num_threads)
      .def_property_readonly("frame_skip", [](const qwop::BatchSim& b) { return b.options().frame_skip; })
      .def_property_readonly("frame_stack", [](const qwop::BatchSim& b) { return b.options().frame_stack; })
      .def_property_readonly("max_updates", [](const qwop::BatchSim& b) { return b.options().max_updates; })
      .def_property_readonly("time_limit", [](const qwop::BatchSim& b) { return b.options().time_limit_s; })
      .def_property_readonly("bytes_per_env", &qwop::BatchSim::bytes_per_env)
      .def_property_readonly("state", [](py::object self) {
        auto& b = self.cast<qwop::BatchSim&>();
        return view(b.buffers().state, {b.num_envs(), kNumParts, kStateColumns}, self);
      })
      .def_property_readonly("final_state", [](py::object self) {
        auto& b = self.cast<qwop::BatchSim&>();
        return view(b.buffers().final_state, {b.num_envs(), kNumParts, kStateColumns}, self);
      })
#define QWOP_VIEW(name)                                         \
  .def_property_readonly(#name, [](py::object self) {           \
    auto& b = self.cast<qwop::BatchSim&>();                     \
    return view(b.buffers().name, {b.num_envs()}, self);        \
  })
      QWOP_VIEW(reward) QWOP_VIEW(score) QWOP_VIEW(score_time) QWOP_VIEW(distance) QWOP_VIEW(final_score)
      QWOP_VIEW(final_time) QWOP_VIEW(terminated) QWOP_VIEW(truncated) QWOP_VIEW(fallen) QWOP_VIEW(jump_landed) QWOP_VIEW(finished)
      QWOP_VIEW(episode_updates) QWOP_VIEW(step_updates) QWOP_VIEW(keys) QWOP_VIEW(late)
#undef QWOP_VIEW
      .def_property_readonly("obs", [](py::object self) {
        auto& b = self.cast<qwop::BatchSim&>();
        return view(b.buffers().obs, {b.num_envs(), b.obs_size()}, self);
      })
      .def_property_readonly("final_obs", [](py::object self) {
        auto& b = self.cast<qwop::BatchSim&>();
        return view(b.buffers().final_obs, {b.num_envs(), b.obs_size()}, self);
      })
      .def_property_readonly("terms", [](py::object self) {
        auto& b = self.cast<qwop::BatchSim&>();
        return view(b.buffers().terms, {b.num_envs(), qwop::kNumRewardTerms}, self);
      });
}

void bind_env(py::module_& m) {
  py::class_<qwop::Episode>(m, "Episode",
                            "The env step's rules for states produced elsewhere (the browser, a recording): "
                            "frame skip, time limit, fell/finished, reward terms, stacked observation.")
      .def(py::init([](int frame_skip, double time_limit, int frame_stack, std::optional<Doubles> weights) {
             return qwop::Episode(episode_options(frame_skip, time_limit, frame_stack, weights));
           }),
           py::arg("frame_skip") = 1, py::arg("time_limit") = 120.0, py::arg("frame_stack") = 1,
           py::arg("weights") = py::none())
      .def("begin", [](qwop::Episode& e, Doubles state, int updates) { e.begin(check_state(state, "state"), updates); },
           py::arg("state"), py::arg("updates") = 0, "Start at `state` (12, 6), `updates` into the episode.")
      .def("updates_for_step", &qwop::Episode::updates_for_step, "Updates the next step runs.")
      .def("end_step", [](qwop::Episode& e, Doubles after, double dt, double time_after, int n, bool ended, bool fallen,
                          bool finished) {
             qwop::StepOutcome o;
             e.end_step(check_state(after, "after"), dt, time_after, n, ended, fallen, finished, &o);
             return outcome_dict(o);
           }, py::arg("after"), py::arg("dt"), py::arg("time_after"), py::arg("updates"), py::arg("ended"),
           py::arg("fallen"), py::arg("finished"), "Close a step that ran `updates` updates; returns its outcome.")
      .def_property_readonly("updates", &qwop::Episode::updates)
      .def_property_readonly("obs", &episode_obs, "The stacked observation (frame_stack * 83 float32, oldest first).")
      .def_property_readonly("state", [](const qwop::Episode& e) {
        py::array_t<double> out({kNumParts, kStateColumns});
        std::memcpy(out.mutable_data(), e.state(), sizeof(double) * kNumParts * kStateColumns);
        return out;
      });

  py::class_<PyEnv>(m, "Env", "One simulated env (a game and its episode), the step the batch runs for each of its envs.")
      .def(py::init([](int frame_skip, double time_limit, int frame_stack, std::optional<Doubles> weights,
                       const std::string& sincos) {
             return std::make_unique<PyEnv>(episode_options(frame_skip, time_limit, frame_stack, weights),
                                            parse_sincos(sincos));
           }),
           py::arg("frame_skip") = 1, py::arg("time_limit") = 120.0, py::arg("frame_stack") = 1,
           py::arg("weights") = py::none(), py::arg("sincos") = "fma")
      .def("reset", [](PyEnv& e) { e.env->reset(); })
      .def("advance", [](PyEnv& e, py::handle keys_obj) {
             auto keys = check_int8_array(keys_obj, "keys", 15);
             e.env->advance(keys.data(), static_cast<int>(keys.shape(0)), e.scratch);
             check_overflow(e.env->game());
           }, py::arg("keys"), "Updates before the first step (a random start); they count toward the episode.")
      .def("step", [](PyEnv& e, py::handle keys, int late) {
             const int32_t k = check_keys(keys);
             if (late < 0) throw py::value_error("late must be >= 0 (updates), got " + std::to_string(late));
             const qwop::StepOutcome o = e.env->step(k, e.scratch, late);
             check_overflow(e.env->game());
             return outcome_dict(o);
           }, py::arg("keys"), py::arg("late") = 0,
           "One env step with the key mask held; returns its outcome. A late decision (as in real-time "
           "play) first runs `late` more updates with the keys held before the step.")
      .def_property_readonly("obs", [](const PyEnv& e) { return episode_obs(e.env->episode()); })
      .def_property_readonly("updates", [](const PyEnv& e) { return e.env->episode().updates(); })
      .def_property_readonly("sim", py::cpp_function([](PyEnv& e) { return std::make_unique<QwopSim>(&e.env->game()); },
                                                     py::keep_alive<0, 1>()),
                             "The env's game as a QwopSim (a view: stepping it bypasses the env).");
  m.def("max_updates", &qwop::max_updates_for, py::arg("time_limit"), "Updates in `time_limit` game seconds (exact).");
}

void bind_game_set(py::module_& m) {
  py::class_<qwop::GameSet>(m, "GameSet",
                            "Games stored side by side and expanded on threads: a planner's frontier. "
                            "GameSet() holds one fresh game; snapshots of QwopSim and BatchSim envs can be added.")
      .def(py::init([](const std::string& sincos) { return qwop::GameSet(parse_sincos(sincos)); }),
           py::arg("sincos") = "fma")
      .def("__len__", &qwop::GameSet::size)
      .def("snapshot", [](const qwop::GameSet& s, py::ssize_t i) {
             if (i < 0 || static_cast<size_t>(i) >= s.size()) throw py::index_error("game index out of range");
             return py::bytes(qwop::take_snapshot(s.at(i)));
           }, py::arg("index"), "One game as a snapshot (QwopSim.restore takes it).")
      .def("add", [](qwop::GameSet& s, py::bytes snap) {
             auto g = std::make_unique<Game>();
             qwop::restore_snapshot(*g, snap.cast<std::string>());
             s.push_back(*g);
           }, py::arg("snapshot"), "Append a game from a snapshot.")
      .def("select", [](const qwop::GameSet& s, py::handle indices) {
             auto idx = checked_ints_as<int32_t>(indices, "indices", 0, static_cast<long long>(s.size()) - 1);
             return s.select(idx.data(), static_cast<size_t>(idx.size()));
           }, py::arg("indices"), "The games at `indices`, in that order (a new set).")
      .def("expand", [](const qwop::GameSet& s, py::handle parent_obj, py::handle keys_obj, int threads, bool keep,
                        bool lockstep) {
             auto parent = checked_ints_as<int32_t>(parent_obj, "parent", 0, static_cast<long long>(s.size()) - 1);
             auto keys = checked_ints_as<int8_t>(keys_obj, "keys", 0, 15);
             if (keys.ndim() != 2 || parent.ndim() != 1 || keys.shape(0) != parent.shape(0)) {
               throw py::value_error("expand takes parent (N,) and keys (N, horizon) arrays");
             }
             if (threads < 1) throw py::value_error("threads must be at least 1");
             const size_t n = static_cast<size_t>(parent.shape(0));
             const int horizon = static_cast<int>(keys.shape(1));
             const int32_t* p = parent.data();
             const int8_t* k = keys.data();
             std::vector<qwop::RunSummary> out(n);
             auto kept = std::make_unique<qwop::GameSet>();
             {
               py::gil_scoped_release release;
               s.expand(p, k, n, horizon, threads, out.data(), keep ? kept.get() : nullptr, lockstep);
             }
             py::array_t<double> state({static_cast<py::ssize_t>(n), py::ssize_t(kNumParts), py::ssize_t(kStateColumns)});
             py::array_t<double> time(n), score(n);
             py::array_t<int32_t> updates(n);
             py::array_t<bool> ended(n), fallen(n), landed(n);
             for (size_t c = 0; c < n; ++c) {
               std::memcpy(state.mutable_data(c), out[c].state, sizeof(out[c].state));
               time.mutable_at(c) = out[c].scoreTime;
               score.mutable_at(c) = out[c].score;
               updates.mutable_at(c) = out[c].updates;
               ended.mutable_at(c) = out[c].ended;
               fallen.mutable_at(c) = out[c].fallen;
               landed.mutable_at(c) = out[c].landed;
             }
             for (size_t c = 0; c < (keep ? n : 0); ++c) check_overflow(kept->at(c));
             py::dict d;
             d["state"] = state;
             d["score_time"] = time;
             d["score"] = score;
             d["updates"] = updates;
             d["ended"] = ended;
             d["fallen"] = fallen;
             d["landed"] = landed;
             d["games"] = keep ? py::cast(std::move(*kept)) : py::none();
             return d;
           }, py::arg("parent"), py::arg("keys"), py::arg("threads") = 1, py::arg("keep") = false,
           py::arg("lockstep") = true,
           "For each row c: copy game parent[c], run keys[c] (stopping when the game ends); returns where each ended "
           "(state, score_time, score, updates, ended, fallen, landed) and, with keep, the new games as a GameSet. "
           "lockstep: groups of four rows run together, joints in SIMD lanes, where the CPU can (the same results).");
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "Native QWOP simulator (C++ engine reproducing the original game exactly)";

  py::class_<QwopSim>(m, "QwopSim", "One game, in the traces' initial state: page loaded, first click made, no update run.")
      .def(py::init<bool, const std::string&>(), py::arg("first_click") = true, py::arg("sincos") = "fma",
           "first_click=False starts on the intro screen (updates run, the world is not stepped) until click(). "
           "sincos: whose sin/cos the engine computes, 'fma' (glibc's FMA build: the reference traces', "
           "Chromium's on x86-64 with FMA) or 'generic' (glibc without FMA).")
      .def_property_readonly("sincos", [](const QwopSim& s) { return sincos_name(s.game().world.trigVariant); })
      .def("click", [](QwopSim& s) { s.game().click(); }, "The click to begin (firstClick; game time back to 0).")
      .def_property_readonly("first_click", [](const QwopSim& s) { return s.game().flags.firstClick; })
      .def("update", &QwopSim::update, py::arg("keys"), "Run one game update with the key mask held (1=Q 2=W 4=O 8=P).")
      .def("reset", &QwopSim::reset, py::arg("keys") = 0,
           "What releasing R does in the original: rebuild the runner, then one update with `keys` held.")
      .def("body_state", &QwopSim::body_state, "(12, 6) float64: x, y, angle, vx, vy, omega per part, in trace order.")
      .def("snapshot", &QwopSim::snapshot, "Exact copy of the whole world state, as bytes.")
      .def("restore", &QwopSim::restore, py::arg("snapshot"), "Restore a state taken with snapshot().")
      .def("detail", [](const QwopSim& s) { return qwop::game_detail(s.game()); },
           "Engine internals after the last update, shaped like the reference detail files.")
      .def("world_info", [](const QwopSim& s) { return qwop::game_world_info(s.game()); },
           "Bodies and joints in world-list order, shaped like world.json.")
      .def("hurdle_state", &QwopSim::hurdle_state, "(2, 3) float64: x, y, angle of the hurdle's base and top.")
      .def("tile_positions", [](const QwopSim& s) {
             py::list out;
             for (int i = 0; i < qwop::kNumTiles; ++i) out.append(s.game().world.bodies[s.game().tile[i]].xf.position.x);
             return out;
           }, "x of the three floor tiles, in creation order.")
      .def("advance", &QwopSim::advance, py::arg("keys"), "Run several updates (int8 masks) without returning states.")
      .def_property_readonly("fallen", [](const QwopSim& s) { return s.game().flags.fallen; })
      .def_property_readonly("game_ended", [](const QwopSim& s) { return s.game().flags.gameEnded; })
      .def_property_readonly("jumped", [](const QwopSim& s) { return s.game().flags.jumped; })
      .def_property_readonly("jump_landed", [](const QwopSim& s) { return s.game().flags.jumpLanded; })
      .def_property_readonly("finished", [](const QwopSim& s) { return s.game().finished(); },
                             "The game ended with a finish: the final jump landed at 100 m or more (finished_100m).")
      .def_property_readonly("paused", [](const QwopSim& s) { return s.game().flags.pause; })
      .def_property("score_time", [](const QwopSim& s) { return s.game().scoreTime; },
                    [](QwopSim& s, double t) { s.game().scoreTime = t; },
                    "Game time (s). Settable: a page counts time from before its runner exists, so a mirror of a "
                    "page starts from the time the page had counted at load.")
      .def_property_readonly("score", [](const QwopSim& s) { return s.game().score; })
      .def_property_readonly("distance_m", [](const QwopSim& s) { return s.game().distance_m(); },
                             "Torso centre x in metres (continuous; score is its rounded value).")
      .def_property_readonly("camera_x", [](const QwopSim& s) { return s.game().cameraX; })
      .def_property_readonly("keys", [](const QwopSim& s) { return s.game().keys; }, "Key mask of the last update.")
      .def_property_readonly("updates", [](const QwopSim& s) { return s.game().updates; })
      .def_property_readonly("resets", [](const QwopSim& s) { return s.game().resets; });

  m.def("replay", &replay, py::arg("keys"), py::arg("sincos") = "fma",
        "Run int8 key masks from the initial state until they end or the game ends; returns a trace-shaped dict.");
  m.def("replay_session", &replay_session, py::arg("events"), py::arg("initial_score_time") = 0.0,
        py::arg("sincos") = "fma",
        "Run a whole session from page load: 0..15 = one update with that mask, 16+mask = R released with mask held, "
        "32 = the click to begin (a session containing it starts on the intro screen, with game time "
        "initial_score_time, what the page had counted before the runner was built).");
  m.attr("CLICK_EVENT") = int(qwop::kClickEvent);

  bind_batch(m);
  bind_env(m);
  bind_game_set(m);
  m.def("sincos", [](Doubles x, const std::string& variant, bool lanes) {
          const qwop::trig::Variant v = parse_sincos(variant);
          py::array_t<double> s(x.size()), c(x.size());
          const double* p = x.data();
          double* ps = s.mutable_data();
          double* pc = c.mutable_data();
          bool ok = true;
          {
            py::gil_scoped_release release;
            if (lanes) {
              ok = qwop::trig::sincos_lanes(v, p, ps, pc, static_cast<size_t>(x.size()));
            } else {
              for (py::ssize_t i = 0; i < x.size(); ++i) qwop::trig::sincos(v, p[i], ps + i, pc + i);
            }
          }
          if (!ok) throw std::runtime_error("this CPU cannot run the lanes (AVX2 and FMA)");
          return py::make_tuple(s, c);
        }, py::arg("x"), py::arg("sincos") = "fma", py::arg("lanes") = false,
        "The engine's own sin and cos of every element of x (flattened), as the chosen glibc variant computes them; "
        "lanes=True computes them four at a time as the lock-step solver does (lockstep_available()).");
  m.def(
      "box_aabb",
      [](py::array_t<double, py::array::c_style | py::array::forcecast> rows, bool reference) {
        if (rows.ndim() != 2 || rows.shape(1) != 8) throw py::value_error("rows must be (n, 8): hx, hy, px, py, R.col1.x, R.col1.y, R.col2.x, R.col2.y");
        const py::ssize_t n = rows.shape(0);
        py::array_t<double> out({n, py::ssize_t{4}});
        const double* r = rows.data();
        double* o = out.mutable_data();
        for (py::ssize_t i = 0; i < n; ++i, r += 8, o += 4) {
          const qwop::Transform xf{{r[2], r[3]}, {{r[4], r[5]}, {r[6], r[7]}}};
          qwop::AABB a;
          if (reference) {
            qwop::PolygonShape::box(r[0], r[1]).compute_aabb(a, xf);
          } else {
            qwop::box_aabb(a, r[0], r[1], xf);
          }
          o[0] = a.lower.x, o[1] = a.lower.y, o[2] = a.upper.x, o[3] = a.upper.y;
        }
        return out;
      },
      py::arg("rows"), py::arg("reference") = false,
      "A box fixture's AABB (lower.x, lower.y, upper.x, upper.y) per row (hx, hy, position, rotation columns) as the "
      "broad phase computes it; reference=True: from the box's four vertices, as the original does.");
  m.def(
      "aabb_combine",
      [](const Boxes& a, const Boxes& b) {
        const std::vector<BoxPair> rows = box_pairs(a, b);
        py::array_t<double> out({static_cast<py::ssize_t>(rows.size()), py::ssize_t{4}});
        double* o = out.mutable_data();
        for (const BoxPair& p : rows) {
          qwop::AABB r;
          qwop::aabb_combine(r, p.a, p.b);
          *o++ = r.lower.x, *o++ = r.lower.y, *o++ = r.upper.x, *o++ = r.upper.y;
        }
        return out;
      },
      py::arg("a"), py::arg("b"),
      "Two AABBs combined per row as the broad phase combines them (JavaScript's Math.min and Math.max per bound).");
  m.def(
      "aabb_contains",
      [](const Boxes& a, const Boxes& b) {
        const std::vector<BoxPair> rows = box_pairs(a, b);
        py::array_t<bool> out(static_cast<py::ssize_t>(rows.size()));
        bool* o = out.mutable_data();
        for (const BoxPair& p : rows) *o++ = qwop::aabb_contains(p.a, p.b);
        return out;
      },
      py::arg("a"), py::arg("b"),
      "Per row, whether AABB a contains AABB b as the broad phase tests it (b2AABB.Contains).");
  m.def("lockstep_available", &qwop::lockstep_available,
        "Whether this build and CPU step batched games four at a time in SIMD lanes (x86-64 with AVX2 and FMA).");
  m.def("hardware_fma", &qwop::trig::hardware_fma, "Whether the 'fma' variant runs on the CPU's fused multiply-add.");

  m.def("observe", [](py::array_t<double, py::array::c_style | py::array::forcecast> state) {
          if (state.ndim() < 2 || state.shape(state.ndim() - 1) != kStateColumns || state.shape(state.ndim() - 2) != kNumParts) {
            throw py::value_error("state must have shape (..., 12, 6)");
          }
          std::vector<py::ssize_t> shape(state.shape(), state.shape() + state.ndim() - 2);
          const py::ssize_t n = state.size() / (kNumParts * kStateColumns);
          shape.push_back(qwop::kObsSize);
          py::array_t<float> out(shape);
          const double* s = state.data();
          float* o = out.mutable_data();
          for (py::ssize_t i = 0; i < n; ++i) qwop::write_observation(s + i * kNumParts * kStateColumns, o + i * qwop::kObsSize);
          return out;
        }, py::arg("state"), "Observation(s) (..., 83) float32 from body state(s) (..., 12, 6).");
  m.def("reward_terms", [](py::array_t<double, py::array::c_style | py::array::forcecast> before,
                           py::array_t<double, py::array::c_style | py::array::forcecast> after,
                           py::array_t<double, py::array::c_style | py::array::forcecast> dt,
                           py::array_t<double, py::array::c_style | py::array::forcecast> time_after,
                           py::array_t<bool, py::array::c_style | py::array::forcecast> fell,
                           py::array_t<bool, py::array::c_style | py::array::forcecast> finished) {
          if (after.ndim() < 2 || after.shape(after.ndim() - 1) != kStateColumns || after.shape(after.ndim() - 2) != kNumParts ||
              before.size() != after.size()) {
            throw py::value_error("before and after must have the same shape (..., 12, 6)");
          }
          const py::ssize_t n = after.size() / (kNumParts * kStateColumns);
          for (const auto* a : {&dt, &time_after}) {
            if (a->size() != n && a->size() != 1) throw py::value_error("dt and time_after must be scalars or one per state");
          }
          if ((fell.size() != n && fell.size() != 1) || (finished.size() != n && finished.size() != 1)) {
            throw py::value_error("fell and finished must be scalars or one per state");
          }
          std::vector<py::ssize_t> shape(after.shape(), after.shape() + after.ndim() - 2);
          shape.push_back(qwop::kNumRewardTerms);
          py::array_t<double> out(shape);
          auto pick = [](const auto& a, py::ssize_t i) { return a.data()[a.size() == 1 ? 0 : i]; };
          for (py::ssize_t i = 0; i < n; ++i) {
            qwop::write_reward_terms(before.data() + i * kNumParts * kStateColumns, after.data() + i * kNumParts * kStateColumns,
                                     pick(dt, i), pick(time_after, i), pick(fell, i), pick(finished, i),
                                     out.mutable_data() + i * qwop::kNumRewardTerms);
          }
          return out;
        }, py::arg("before"), py::arg("after"), py::arg("dt"), py::arg("time_after"), py::arg("fell"), py::arg("finished"),
        "Reward terms (..., 7) for body states (..., 12, 6) before and after a step.");
  m.attr("OBS_SIZE") = qwop::kObsSize;
  m.attr("MAX_ENVS") = qwop::kMaxEnvs;
  m.attr("LOW_TORSO_M") = qwop::kLowTorsoM;
  m.attr("KNEE_BEND_RAD") = qwop::kKneeBendRad;
  m.attr("FINISH_BONUS_TIME_S") = qwop::kFinishBonusTimeS;

  py::list parts;
  for (const char* n : qwop::kPartNames) parts.append(n);
  m.attr("PART_NAMES") = py::tuple(parts);
  py::list created;
  for (const auto& d : qwop::def::kBodies) {
    if (d.part >= 0) created.append(qwop::kPartNames[d.part]);
  }
  m.attr("PART_CREATION_ORDER") = py::tuple(created);
  py::list jnames, refs, jparts;
  for (int k = 1; k < static_cast<int>(sizeof(qwop::def::kJoints) / sizeof(qwop::def::kJoints[0])); ++k) {
    const auto& jd = qwop::def::kJoints[k];
    jnames.append(jd.name);
    refs.append(jd.referenceAngle);
    jparts.append(py::make_tuple(qwop::def::kBodies[jd.bodyA].part, qwop::def::kBodies[jd.bodyB].part));
  }
  m.attr("JOINT_NAMES") = py::tuple(jnames);
  m.attr("JOINT_REFERENCE_ANGLES") = py::tuple(refs);
  m.attr("JOINT_PARTS") = py::tuple(jparts);
  {
    py::array_t<double> he({kNumParts, 2});
    for (const auto& d : qwop::def::kBodies) {
      if (d.part >= 0) {
        he.mutable_at(d.part, 0) = d.hx;
        he.mutable_at(d.part, 1) = d.hy;
      }
    }
    m.attr("PART_HALF_EXTENTS") = he;
    py::array_t<double> hh({2, 2});
    hh.mutable_at(0, 0) = qwop::def::kBodies[4].hx;
    hh.mutable_at(0, 1) = qwop::def::kBodies[4].hy;
    hh.mutable_at(1, 0) = qwop::def::kBodies[5].hx;
    hh.mutable_at(1, 1) = qwop::def::kBodies[5].hy;
    m.attr("HURDLE_HALF_EXTENTS") = hh;
  }
  m.attr("SNAPSHOT_VERSION") = qwop::kSnapshotVersion;
  m.attr("KEY_Q") = int(qwop::kKeyQ);
  m.attr("KEY_W") = int(qwop::kKeyW);
  m.attr("KEY_O") = int(qwop::kKeyO);
  m.attr("KEY_P") = int(qwop::kKeyP);
  m.attr("UPDATE_DT") = qwop::kUpdateDt;
  m.attr("UPDATES_PER_SECOND") = qwop::kUpdatesPerSecond;
  m.attr("STEP_DT") = qwop::kStepDt;
  m.attr("UNITS_PER_METRE") = qwop::kUnitsPerMetre;
  m.attr("FINISH_M") = qwop::kFinishM;
  m.def("finished_100m", py::vectorize(&qwop::finished_100m), py::arg("ended"), py::arg("landed"), py::arg("score"),
        "The one finish rule (scalars or arrays): the game ended, the final jump landed and the score is 100 m "
        "(a fall after the jump counts as its landing in the original, and may land short of 100 m).");
  m.attr("HURDLE_M") = qwop::kHurdleM;
  m.attr("TRACK_TOP_Y") = qwop::kTrackTopY;
  m.attr("GAME_BYTES") = sizeof(Game);  // a game's block; its contacts are stored beside it (engine.h)
}
