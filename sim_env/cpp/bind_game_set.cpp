// Python bindings of GameSet: a planner's games, stored side by side and expanded on threads.
#include <memory>
#include <string>
#include <vector>

#include "bind_common.h"
#include "game_set.h"
#include "snapshot.h"

namespace qwop_py {

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
             auto keys = check_key_masks<int8_t>(keys_obj, "keys");
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

}  // namespace qwop_py
