// Python bindings of GameSet: a planner's games, stored side by side and expanded on threads.
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bind_common.h"
#include "game_set.h"
#include "policy_rollouts.h"
#include "snapshot.h"

namespace qwop_py {

namespace {

// Where each row's run ended, as a dict of numpy arrays (GameSet.expand's keys).
py::dict summaries(size_t n, const qwop::RunSummary* (*row)(const void*, size_t), const void* rows) {
  py::array_t<double> state({static_cast<py::ssize_t>(n), py::ssize_t(kNumParts), py::ssize_t(kStateColumns)});
  py::array_t<double> time(n), score(n);
  py::array_t<int32_t> updates(n);
  py::array_t<bool> ended(n), fallen(n), landed(n);
  for (size_t c = 0; c < n; ++c) {
    const qwop::RunSummary& s = *row(rows, c);
    std::memcpy(state.mutable_data(c), s.state, sizeof(s.state));
    time.mutable_at(c) = s.scoreTime;
    score.mutable_at(c) = s.score;
    updates.mutable_at(c) = s.updates;
    ended.mutable_at(c) = s.ended;
    fallen.mutable_at(c) = s.fallen;
    landed.mutable_at(c) = s.landed;
  }
  py::dict d;
  d["state"] = state;
  d["score_time"] = time;
  d["score"] = score;
  d["updates"] = updates;
  d["ended"] = ended;
  d["fallen"] = fallen;
  d["landed"] = landed;
  return d;
}

// parent (N,) and keys (N, horizon), checked against the set.
std::pair<py::array_t<int32_t>, py::array_t<int8_t>> rows_of(const qwop::GameSet& s, py::handle parent_obj,
                                                             py::handle keys_obj, const char* what) {
  auto parent = checked_ints_as<int32_t>(parent_obj, "parent", 0, static_cast<long long>(s.size()) - 1);
  auto keys = check_key_masks<int8_t>(keys_obj, "keys");
  if (keys.ndim() != 2 || parent.ndim() != 1 || keys.shape(0) != parent.shape(0)) {
    throw py::value_error(std::string(what) + " takes parent (N,) and keys (N, horizon) arrays");
  }
  return {parent, keys};
}

}  // namespace

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
      .def("body_states", [](const qwop::GameSet& s) {
             py::array_t<double> out({static_cast<py::ssize_t>(s.size()), py::ssize_t(kNumParts), py::ssize_t(kStateColumns)});
             for (size_t i = 0; i < s.size(); ++i) s.at(i).body_state(out.mutable_data(i));
             return out;
           }, "Every game's body state (N, 12, 6).")
      .def("select", [](const qwop::GameSet& s, py::handle indices) {
             auto idx = checked_ints_as<int32_t>(indices, "indices", 0, static_cast<long long>(s.size()) - 1);
             return s.select(idx.data(), static_cast<size_t>(idx.size()));
           }, py::arg("indices"), "The games at `indices`, in that order (a new set).")
      .def("expand", [](const qwop::GameSet& s, py::handle parent_obj, py::handle keys_obj, int threads, bool keep,
                        bool lockstep) {
             auto [parent, keys] = rows_of(s, parent_obj, keys_obj, "expand");
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
             for (size_t c = 0; c < (keep ? n : 0); ++c) check_overflow(kept->at(c));
             py::dict d = summaries(n, [](const void* r, size_t c) {
               return &static_cast<const qwop::RunSummary*>(r)[c];
             }, out.data());
             d["games"] = keep ? py::cast(std::move(*kept)) : py::none();
             return d;
           }, py::arg("parent"), py::arg("keys"), py::arg("threads") = 1, py::arg("keep") = false,
           py::arg("lockstep") = true,
           "For each row c: copy game parent[c], run keys[c] (stopping when the game ends); returns where each ended "
           "(state, score_time, score, updates, ended, fallen, landed) and, with keep, the new games as a GameSet. "
           "lockstep: groups of four rows run together, joints in SIMD lanes, where the CPU can (the same results).")
      .def("rollouts", [](const qwop::GameSet& s, py::handle parent_obj, py::handle keys_obj,
                          const qwop::GuidePolicy& policy, int lookahead, int threads, double seconds) {
             auto [parent, keys] = rows_of(s, parent_obj, keys_obj, "rollouts");
             if (threads < 1) throw py::value_error("threads must be at least 1");
             if (lookahead < 0) throw py::value_error("lookahead must be at least 0");
             const size_t n = static_cast<size_t>(parent.shape(0));
             const int horizon = static_cast<int>(keys.shape(1));
             const size_t stride = static_cast<size_t>(lookahead) * policy.frame_skip();
             std::vector<qwop::RolloutSummary> out(n);
             std::vector<int8_t> rkeys(n * stride, 0);
             qwop::RolloutTotals totals;
             {
               py::gil_scoped_release release;
               totals = qwop::policy_rollouts(s, parent.data(), keys.data(), n, horizon, policy, lookahead, threads,
                                              seconds, out.data(), rkeys.data());
             }
             py::dict d = summaries(n, [](const void* r, size_t c) {
               return &static_cast<const qwop::RolloutSummary*>(r)[c].first;
             }, out.data());
             py::array_t<int8_t> end(n);
             py::array_t<double> x(n), time(n);
             py::array_t<int32_t> length(n);
             py::array_t<double> rstate({static_cast<py::ssize_t>(n), py::ssize_t(kNumParts), py::ssize_t(kStateColumns)});
             for (size_t c = 0; c < n; ++c) {
               std::memcpy(rstate.mutable_data(c), out[c].state, sizeof(out[c].state));
               end.mutable_at(c) = out[c].end;
               x.mutable_at(c) = out[c].x;
               time.mutable_at(c) = out[c].time;
               length.mutable_at(c) = out[c].length;
             }
             d["rollout_end"] = end;
             d["rollout_x"] = x;
             d["rollout_time"] = time;
             d["rollout_state"] = rstate;
             d["rollout_keys"] = to_numpy(std::move(rkeys), {static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(stride)});
             d["rollout_len"] = length;
             d["rollout_depth"] = totals.depth;
             d["total_updates"] = totals.updates;
             return d;
           }, py::arg("parent"), py::arg("keys"), py::arg("policy"), py::arg("lookahead"), py::arg("threads") = 1,
           py::arg("seconds") = -1.0,
           "For each row c: copy game parent[c], run keys[c] (the first decision), then let the GuidePolicy act "
           "greedily for up to `lookahead` decisions. Returns the first decision's outcome (as expand, without "
           "games) and the rollout's: rollout_end (0 running, 1 finished, 2 fell), rollout_x (m), rollout_time, rollout_state, "
           "rollout_keys (N, lookahead * frame_skip), rollout_len, rollout_depth, total_updates. seconds >= 0: "
           "start no decision after that much time, every row stopping at the same depth.");

}

}  // namespace qwop_py
