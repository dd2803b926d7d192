// Python bindings of one game (QwopSim) and of replaying recorded runs (trace.h).
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "bind_common.h"
#include "py_inspect.h"
#include "snapshot.h"
#include "trace.h"

namespace qwop_py {

namespace {

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

py::dict replay(py::handle keys_obj, const std::string& sincos) {
  auto keys = check_key_array(keys_obj, "keys");
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

}  // namespace

void bind_sim(py::module_& m) {
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
}

}  // namespace qwop_py
