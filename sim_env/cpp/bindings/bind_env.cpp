// Python bindings of the env step (Episode, Env) and of the batch (BatchSim): the one env step
// of episode.h, on one game or on a pool of games.
#include <algorithm>
#include <array>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "batch.h"
#include "bind_common.h"
#include "episode.h"
#include "snapshot.h"

namespace qwop_py {

namespace {

// An option given as a Python number: bools and non-numbers are refused, not converted.
int int_option(py::handle v, const char* name, int least) {
  if (PyBool_Check(v.ptr()) || !PyIndex_Check(v.ptr())) {
    throw py::value_error(std::string(name) + " must be an int >= " + std::to_string(least) + ", got " +
                         py::repr(v).cast<std::string>());
  }
  const long long x = py::int_(py::reinterpret_borrow<py::object>(v)).cast<long long>();
  if (x < least || x > (1LL << 30)) {
    throw py::value_error(std::string(name) + " must be an int >= " + std::to_string(least) + ", got " + std::to_string(x));
  }
  return static_cast<int>(x);
}

double seconds_option(py::handle v, const char* name) {
  if (PyBool_Check(v.ptr()) || !(PyFloat_Check(v.ptr()) || PyIndex_Check(v.ptr()))) {
    throw py::value_error(std::string(name) + " must be a number of game seconds, got " + py::repr(v).cast<std::string>());
  }
  return py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>();
}

// The one check of the options that reach the engine: EnvConfig, the raw batch and the
// browser's episode all build their EpisodeOptions here.
qwop::EpisodeOptions make_options(py::handle frame_skip, py::handle time_limit, py::handle frame_stack, py::handle weights) {
  qwop::EpisodeOptions o;
  o.frame_skip = int_option(frame_skip, "frame_skip", qwop::kMinFrameSkip);
  o.time_limit_s = seconds_option(time_limit, "time_limit");
  o.max_updates = qwop::max_updates_for(o.time_limit_s);
  o.frame_stack = int_option(frame_stack, "frame_stack", qwop::kMinFrameStack);
  if (!weights.is_none()) {
    auto w = Doubles::ensure(weights);
    if (!w || w.ndim() != 1 || w.shape(0) != qwop::kNumRewardTerms) {
      throw py::value_error("weights must be " + std::to_string(qwop::kNumRewardTerms) + " numbers, one per reward term");
    }
    for (int t = 0; t < qwop::kNumRewardTerms; ++t) {
      if (!std::isfinite(w.at(t))) throw py::value_error("weights must be finite numbers");
    }
    std::memcpy(o.weights.data(), w.data(), sizeof(o.weights));
  }
  qwop::check_options(o);
  return o;
}

// EpisodeOptions' keywords, in its constructor's order.
constexpr std::array<const char*, 4> kOptionNames = {"frame_skip", "time_limit", "frame_stack", "weights"};

// The options of a constructor that takes them either whole or as keywords (never both).
qwop::EpisodeOptions options_from(const std::optional<qwop::EpisodeOptions>& options, const py::kwargs& kw) {
  if (options && !kw.empty()) throw py::type_error("give options or its keywords, not both");
  if (options) return *options;
  for (const auto& item : kw) {  // pybind's overload message would list signatures over many lines
    const auto name = py::str(item.first).cast<std::string>();
    if (std::find_if(kOptionNames.begin(), kOptionNames.end(), [&](const char* n) { return name == n; }) ==
        kOptionNames.end()) {
      std::string known;
      for (const char* n : kOptionNames) known += (known.empty() ? "" : ", ") + std::string(n);
      throw py::type_error("unknown option " + name + "; the options are " + known);
    }
  }
  return py::module_::import("sim_env._core").attr("EpisodeOptions")(**kw).cast<qwop::EpisodeOptions>();
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

void check_start_updates(int updates, const qwop::EpisodeOptions& o) {
  if (updates < 0 || updates >= o.max_updates) {
    throw py::value_error("updates must be in 0.." + std::to_string(o.max_updates - 1) + " (the episode's), got " +
                          std::to_string(updates));
  }
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

}  // namespace

void bind_batch(py::module_& m) {
  py::class_<qwop::BatchSim>(m, "BatchSim", "N independent envs stepped in C++ on a thread pool, with auto-reset.")
      .def(py::init([](int num_envs, int num_threads, std::optional<qwop::EpisodeOptions> options,
                       const std::string& sincos, bool lockstep, const py::kwargs& kw) {
             return std::make_unique<qwop::BatchSim>(num_envs, num_threads, options_from(options, kw),
                                                     parse_sincos(sincos), lockstep);
           }),
           py::arg("num_envs"), py::arg("num_threads") = 1, py::arg("options") = py::none(), py::arg("sincos") = "fma",
           py::arg("lockstep") = true,
           "options: the episode's (EpisodeOptions), or its keywords (frame_skip=4, ...). "
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
               auto arr = check_key_masks<int32_t>(keys, "keys");
               if (arr.ndim() != 1 || arr.shape(0) != b.num_envs()) {
                 throw py::value_error("keys must be a 1-D integer array of length num_envs = " + std::to_string(b.num_envs()));
               }
               std::memcpy(b.buffers().keys.data(), arr.data(), sizeof(int32_t) * b.num_envs());
             } else {
               for (int i = 0; i < b.num_envs(); ++i) {
                 check_key_value(b.buffers().keys[i], i);
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
             auto keys = check_key_array(keys_obj, "keys");
             b.advance_env(i, keys.data(), static_cast<int>(keys.shape(0)));
             check_overflow(b.game(i));
           }, py::arg("index"), py::arg("keys"),
           "Run updates on one env before its first step (a random start); they count toward its episode.")
      .def("start_env", [](qwop::BatchSim& b, int i, const py::bytes& snapshot, int updates) {
             if (i < 0 || i >= b.num_envs()) throw py::index_error("env index out of range");
             check_start_updates(updates, b.options());
             b.start_env(i, std::string(snapshot), updates);
           }, py::arg("index"), py::arg("snapshot"), py::arg("updates"),
           "Start one env's episode from a snapshot's game (a real-time page's after its click), `updates` "
           "into the episode; before its first step, as advance_env.")
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
  py::class_<qwop::EpisodeOptions>(m, "EpisodeOptions",
                                   "The options that reach the engine's episode, checked once here (defaults and least "
                                   "values: spec.json). weights: one per reward term (default: the progress profile).")
      .def(py::init(&make_options), py::arg(kOptionNames[0]) = qwop::kDefaultFrameSkip,
           py::arg(kOptionNames[1]) = qwop::kDefaultTimeLimitS, py::arg(kOptionNames[2]) = qwop::kDefaultFrameStack,
           py::arg(kOptionNames[3]) = py::none())
      .def_readonly("frame_skip", &qwop::EpisodeOptions::frame_skip)
      .def_readonly("time_limit", &qwop::EpisodeOptions::time_limit_s)
      .def_readonly("frame_stack", &qwop::EpisodeOptions::frame_stack)
      .def_readonly("max_updates", &qwop::EpisodeOptions::max_updates)
      .def_property_readonly("weights", [](const qwop::EpisodeOptions& o) {
        py::array_t<double> w(qwop::kNumRewardTerms);
        std::memcpy(w.mutable_data(), o.weights.data(), sizeof(o.weights));
        return w;
      })
      .def("__repr__", [](const qwop::EpisodeOptions& o) {
        return "EpisodeOptions(frame_skip=" + std::to_string(o.frame_skip) + ", time_limit=" +
               py::repr(py::float_(o.time_limit_s)).cast<std::string>() + ", frame_stack=" + std::to_string(o.frame_stack) + ")";
      });

  py::class_<qwop::Episode>(m, "Episode",
                            "The env step's rules for states produced elsewhere (the browser, a recording): "
                            "frame skip, time limit, fell/finished, reward terms, stacked observation.")
      .def(py::init([](std::optional<qwop::EpisodeOptions> options, const py::kwargs& kw) {
             return qwop::Episode(options_from(options, kw));
           }),
           py::arg("options") = py::none(), "options: an EpisodeOptions, or its keywords.")
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
      .def(py::init([](std::optional<qwop::EpisodeOptions> options, const std::string& sincos, const py::kwargs& kw) {
             return std::make_unique<PyEnv>(options_from(options, kw), parse_sincos(sincos));
           }),
           py::arg("options") = py::none(), py::arg("sincos") = "fma", "options: an EpisodeOptions, or its keywords.")
      .def("reset", [](PyEnv& e) { e.env->reset(); })
      .def("advance", [](PyEnv& e, py::handle keys_obj) {
             auto keys = check_key_array(keys_obj, "keys");
             e.env->advance(keys.data(), static_cast<int>(keys.shape(0)), e.scratch);
             check_overflow(e.env->game());
           }, py::arg("keys"), "Updates before the first step (a random start); they count toward the episode.")
      .def("start", [](PyEnv& e, const py::bytes& snapshot, int updates) {
             check_start_updates(updates, e.env->episode().options());
             e.env->start(std::string(snapshot), updates);
           }, py::arg("snapshot"), py::arg("updates"),
           "Start the episode from a snapshot's game (a real-time page's after its click), `updates` into it.")
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

}  // namespace qwop_py
