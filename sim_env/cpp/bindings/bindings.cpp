// The Python module sim_env._core: the classes and functions (bind_*.cpp, one file per class or
// concept) and the game's constants. Argument checks and numpy views only: nothing here decides
// what the game or an env step does.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <stdexcept>
#include <string>

#include "batch.h"
#include "bind_common.h"
#include "env_features.h"
#include "game_def.h"
#include "snapshot.h"

namespace py = pybind11;
using namespace qwop_py;  // NOLINT: the binding functions and checks

PYBIND11_MODULE(_core, m) {
  m.doc() = "Native QWOP simulator (C++ engine reproducing the original game exactly)";

  bind_sim(m);
  m.attr("CLICK_EVENT") = int(qwop::kClickEvent);

  bind_env(m);  // first: EpisodeOptions, which the batch takes
  bind_batch(m);
  bind_game_set(m);
  bind_guide(m);
  bind_testing(m);
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
  m.def("lockstep_available", &qwop::lockstep_available,
        "Whether this build and CPU step batched games four at a time in SIMD lanes (x86-64 with AVX2 and FMA).");
  m.def("hardware_fma", &qwop::trig::hardware_fma, "Whether the 'fma' variant runs on the CPU's fused multiply-add.");

  bind_features(m);
  m.attr("OBS_SIZE") = qwop::kObsSize;
  m.attr("MAX_ENVS") = qwop::kMaxEnvs;
  m.attr("LOW_TORSO_M") = qwop::kLowTorsoM;
  m.attr("KNEE_BEND_RAD") = qwop::kKneeBendRad;
  m.attr("FINISH_BONUS_TIME_S") = qwop::kFinishBonusTimeS;
  py::list terms;
  for (const char* n : qwop::kRewardTermNames) terms.append(n);
  m.attr("REWARD_TERM_NAMES") = py::tuple(terms);  // the C++ side's order (a test holds it to spec.json)

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
