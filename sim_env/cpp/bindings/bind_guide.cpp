// Python bindings of the guide policy (guide_policy.h): a trained network's greedy choice,
// evaluated in C++ by the planner's rollouts and by Python callers alike.
#include <string>
#include <utility>
#include <vector>

#include "bind_common.h"
#include "guide_policy.h"
#include "policy_rollouts.h"

namespace qwop_py {

namespace {

qwop::Activation parse_activation(const std::string& name) {
  if (name == "none") return qwop::Activation::kNone;
  if (name == "relu") return qwop::Activation::kRelu;
  if (name == "tanh") return qwop::Activation::kTanh;
  throw py::value_error("activation must be 'none', 'relu' or 'tanh', got '" + name + "'");
}

qwop::GuidePolicy make_policy(const py::list& layers, int32_t n_actions, const Doubles& head_weights, py::handle masks_obj,
                              int32_t frame_skip) {
  std::vector<qwop::DenseLayer> dense;
  for (py::handle item : layers) {
    auto t = item.cast<py::tuple>();
    if (t.size() != 3) throw py::value_error("each layer is (weight (in, out), bias (out,), activation)");
    auto w = t[0].cast<Doubles>();
    auto b = t[1].cast<Doubles>();
    if (w.ndim() != 2 || b.ndim() != 1 || b.shape(0) != w.shape(1)) {
      throw py::value_error("a layer's weight must be (in, out) and its bias (out,)");
    }
    qwop::DenseLayer l;
    l.in = static_cast<int32_t>(w.shape(0));
    l.out = static_cast<int32_t>(w.shape(1));
    l.weight.assign(w.data(), w.data() + w.size());
    l.bias.assign(b.data(), b.data() + b.size());
    l.activation = parse_activation(t[2].cast<std::string>());
    dense.push_back(std::move(l));
  }
  auto masks = check_key_masks<int8_t>(masks_obj, "masks");
  if (masks.ndim() != 1) throw py::value_error("masks must be a 1-D array, one key mask per action");
  std::vector<int8_t> m(masks.data(), masks.data() + masks.size());
  std::vector<double> hw(head_weights.data(), head_weights.data() + head_weights.size());
  try {
    return qwop::GuidePolicy(std::move(dense), n_actions, std::move(hw), std::move(m), frame_skip);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
}

}  // namespace

void bind_guide(py::module_& m) {
  m.attr("ROLLOUT_RUNNING") = static_cast<int>(qwop::kRunning);
  m.attr("ROLLOUT_FINISHED") = static_cast<int>(qwop::kFinished);
  m.attr("ROLLOUT_FELL") = static_cast<int>(qwop::kFell);
  py::class_<qwop::GuidePolicy>(m, "GuidePolicy",
                                "A multilayer perceptron's greedy action, in IEEE double, row by row: the same "
                                "choice on any thread count or batch (GameSet.rollouts runs it).")
      .def(py::init(&make_policy), py::arg("layers"), py::arg("n_actions"), py::arg("head_weights"), py::arg("masks"),
           py::arg("frame_skip"),
           "layers: [(weight (in, out), bias (out,), 'none' | 'relu' | 'tanh')], the first taking the 83 "
           "observation values; the last gives heads x n_actions values, summed over heads by head_weights. "
           "masks: the key mask of each action; frame_skip: updates per decision.")
      .def_property_readonly("n_actions", &qwop::GuidePolicy::n_actions)
      .def_property_readonly("frame_skip", &qwop::GuidePolicy::frame_skip)
      .def("values", [](const qwop::GuidePolicy& p, py::array_t<float, py::array::c_style | py::array::forcecast> obs) {
             if (obs.ndim() != 2 || obs.shape(1) != qwop::kObsSize) throw py::value_error("obs must have shape (n, 83)");
             const py::ssize_t n = obs.shape(0);
             py::array_t<double> out({n, static_cast<py::ssize_t>(p.n_actions())});
             std::vector<double> scratch(p.scratch_size());
             std::vector<const float*> rows(static_cast<size_t>(n));
             for (py::ssize_t i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = obs.data(i);
             p.values_rows(rows.data(), rows.size(), out.mutable_data(), scratch.data());
             return out;
           }, py::arg("obs"), "Action values (n, n_actions) of observations (n, 83).")
      .def("act", [](const qwop::GuidePolicy& p, const Doubles& states) {
             if (states.ndim() != 3 || states.shape(1) != kNumParts || states.shape(2) != kStateColumns) {
               throw py::value_error("states must have shape (n, 12, 6)");
             }
             const py::ssize_t n = states.shape(0);
             py::array_t<int64_t> out(n);
             std::vector<double> scratch(p.scratch_size());
             std::vector<const double*> rows(static_cast<size_t>(n));
             for (py::ssize_t i = 0; i < n; ++i) rows[static_cast<size_t>(i)] = states.data(i);
             std::vector<int32_t> actions(rows.size());
             p.act_rows(rows.data(), rows.size(), actions.data(), scratch.data());
             for (py::ssize_t i = 0; i < n; ++i) out.mutable_at(i) = actions[static_cast<size_t>(i)];
             return out;
           }, py::arg("states"), "The greedy action index of each body state (n, 12, 6).");
}

}  // namespace qwop_py
