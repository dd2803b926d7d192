// Python bindings of the observation and the reward terms (env_features.h), for states produced
// elsewhere (the browser, a recording).
#include <initializer_list>
#include <vector>

#include "bind_common.h"
#include "env_features.h"

namespace qwop_py {

void bind_features(py::module_& m) {
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
        ("Reward terms (..., " + std::to_string(qwop::kNumRewardTerms) +
         ") for body states (..., 12, 6) before and after a step.").c_str());
}

}  // namespace qwop_py
