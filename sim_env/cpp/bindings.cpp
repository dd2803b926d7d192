// Python bindings (module sim_env._core): QwopSim, BatchSim, replay, replay_session.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>

#include "batch.h"
#include "env_features.h"
#include "game.h"
#include "game_def.h"

namespace py = pybind11;
using qwop::Game;
using qwop::kNumParts;
using qwop::kStateColumns;

namespace {

// Bump when Game's layout or semantics change: old snapshots are then refused.
constexpr uint32_t kSnapshotVersion = 1;
constexpr char kSnapshotMagic[8] = {'Q', 'W', 'O', 'P', 'S', 'N', 'A', 'P'};
struct SnapshotHeader {
  char magic[8];
  uint32_t version;
  uint32_t size;
};

int32_t check_keys(py::handle obj) {
  if (PyBool_Check(obj.ptr())) throw py::value_error("keys must be an int mask 0..15 (Q=1, W=2, O=4, P=8), got a bool");
  if (!PyIndex_Check(obj.ptr())) {
    throw py::value_error("keys must be an int mask 0..15 (Q=1, W=2, O=4, P=8), got " +
                          std::string(py::str(py::type::of(obj).attr("__name__"))));
  }
  const long long v = obj.cast<long long>();
  if (v < 0 || v > 15) {
    throw py::value_error("key mask " + std::to_string(v) + " is out of range: use 0..15 (Q=1, W=2, O=4, P=8)");
  }
  return static_cast<int32_t>(v);
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

void check_overflow(const Game& g) {
  if (g.world.overflow) throw std::runtime_error("simulator capacity exceeded; the state is invalid (please report this)");
}

class QwopSim {
 public:
  explicit QwopSim(bool first_click = true)
      : game_(std::make_unique<Game>()), scratch_(std::make_unique<qwop::StepScratch>()) {
    game_->load(first_click);
  }

  void update(py::handle keys) {
    game_->update(check_keys(keys), *scratch_);
    check_overflow(*game_);
  }
  void reset(py::handle keys) {
    game_->reset(check_keys(keys), *scratch_);
    check_overflow(*game_);
  }
  py::array_t<double> body_state() const {
    py::array_t<double> out({kNumParts, kStateColumns});
    game_->body_state(out.mutable_data());
    return out;
  }
  py::bytes snapshot() const {
    std::string s(sizeof(SnapshotHeader) + sizeof(Game), '\0');
    SnapshotHeader h;
    std::memcpy(h.magic, kSnapshotMagic, 8);
    h.version = kSnapshotVersion;
    h.size = sizeof(Game);
    std::memcpy(s.data(), &h, sizeof(h));
    std::memcpy(s.data() + sizeof(h), game_.get(), sizeof(Game));
    return py::bytes(s);
  }
  void restore(py::handle obj) {
    if (!py::isinstance<py::bytes>(obj)) throw py::value_error("restore() takes the bytes returned by snapshot()");
    std::string s = obj.cast<std::string>();
    SnapshotHeader h;
    if (s.size() < sizeof(h)) throw py::value_error("not a QwopSim snapshot: too short");
    std::memcpy(&h, s.data(), sizeof(h));
    if (std::memcmp(h.magic, kSnapshotMagic, 8) != 0) throw py::value_error("not a QwopSim snapshot: bad header");
    if (h.version != kSnapshotVersion || h.size != sizeof(Game) || s.size() != sizeof(h) + sizeof(Game)) {
      throw py::value_error("snapshot is from another simulator version (snapshot v" + std::to_string(h.version) +
                            ", this build v" + std::to_string(kSnapshotVersion) + "); take a new snapshot with this version");
    }
    std::memcpy(static_cast<void*>(game_.get()), s.data() + sizeof(h), sizeof(Game));
  }

  py::dict detail() const;
  py::dict world_info() const;

  Game& game() { return *game_; }
  const Game& game() const { return *game_; }
  qwop::StepScratch& scratch() { return *scratch_; }

 private:
  std::unique_ptr<Game> game_;
  std::unique_ptr<qwop::StepScratch> scratch_;
};

std::string body_name(const Game& g, int32_t bi) {
  const int32_t u = g.world.bodies[bi].userData;
  if (u >= 0 && u < kNumParts) return qwop::kPartNames[u];
  switch (u) {
    case qwop::kUserTrack: return "track";
    case qwop::kUserHurdleBase: return "hurdleBase";
    case qwop::kUserHurdleTop: return "hurdleTop";
    default: return "";
  }
}

py::object body_name_obj(const Game& g, int32_t bi) {
  const std::string n = body_name(g, bi);
  if (n.empty()) return py::none();
  return py::str(n);
}

// Engine internals after the last update, shaped like the reference detail files.
py::dict QwopSim::detail() const {
  const Game& g = *game_;
  const qwop::World& w = g.world;
  py::list contacts;
  for (int32_t ci = w.contact_list(); ci != qwop::kNull; ci = w.contacts[ci].next) {
    const qwop::Contact& c = w.contacts[ci];
    const qwop::Manifold& m = c.manifold();
    py::list points;
    for (int k = 0; k < m.pointCount; ++k) {
      points.append(py::make_tuple(m.points[k].normalImpulse, m.points[k].tangentImpulse, m.points[k].localPoint.x,
                                   m.points[k].localPoint.y));
    }
    py::object mtype = py::none();
    if (m.type != qwop::kManifoldUnset) {
      mtype = py::make_tuple(m.type == qwop::kManifoldFaceA ? "FACE_A" : (m.type == qwop::kManifoldFaceB ? "FACE_B" : "CIRCLES"),
                             m.type);
    }
    contacts.append(py::make_tuple(body_name_obj(g, c.bodyA), body_name_obj(g, c.bodyB), c.flags, mtype, m.localPoint.x,
                                   m.localPoint.y, m.localPlaneNormal.x, m.localPlaneNormal.y, points));
  }
  py::list joints;
  for (int j = 0; j < qwop::kNumJoints; ++j) {
    const qwop::RevoluteJoint& J = w.joints[g.joint[j]];
    joints.append(py::make_tuple(J.pivotForce.x, J.pivotForce.y, J.motorForce, J.limitForce, J.limitState, J.motorSpeed,
                                 J.lowerAngle, J.upperAngle, int(J.enableMotor), int(J.enableLimit)));
  }
  py::list bodies;
  for (int p = 0; p < kNumParts; ++p) {
    const qwop::Body& b = g.part(p);
    bodies.append(py::make_tuple(b.torque, b.force.x, b.force.y, b.flags, b.sleepTime));
  }
  py::list tracks;
  for (int32_t bi = w.body_list(); bi != qwop::kNull; bi = w.bodies[bi].next) {
    if (w.bodies[bi].userData == qwop::kUserTrack) tracks.append(w.bodies[bi].xf.position.x);
  }
  py::dict d;
  d["contacts"] = contacts;
  d["joints"] = joints;
  d["bodies"] = bodies;
  d["tracks"] = tracks;
  d["camera"] = g.cameraX;
  return d;
}

// The world right now, shaped like the reference world.json.
py::dict QwopSim::world_info() const {
  const Game& g = *game_;
  const qwop::World& w = g.world;
  py::list bodies;
  for (int32_t bi = w.body_list(); bi != qwop::kNull; bi = w.bodies[bi].next) {
    const qwop::Body& b = w.bodies[bi];
    py::dict d;
    d["userData"] = body_name_obj(g, bi);
    d["type"] = b.type;
    d["position"] = py::make_tuple(b.xf.position.x, b.xf.position.y);
    d["angle"] = b.sweep.a;
    d["mass"] = b.mass;
    d["I"] = b.I;
    d["invMass"] = b.invMass;
    d["invI"] = b.invI;
    d["localCenter"] = py::make_tuple(b.sweep.localCenter.x, b.sweep.localCenter.y);
    d["flags"] = b.flags;
    py::list fixtures;
    if (b.fixture.present) {
      py::dict f;
      f["density"] = b.fixture.density;
      f["friction"] = b.fixture.friction;
      f["category"] = b.fixture.filter.categoryBits;
      f["mask"] = b.fixture.filter.maskBits;
      py::list verts;
      for (const auto& v : b.fixture.shape.vertices) verts.append(py::make_tuple(v.x, v.y));
      f["vertices"] = verts;
      f["proxy"] = b.fixture.proxy;
      fixtures.append(f);
    }
    d["fixtures"] = fixtures;
    bodies.append(d);
  }
  py::list joints;
  for (int32_t ji = w.joint_list(); ji != qwop::kNull; ji = w.joints[ji].next) {
    const qwop::RevoluteJoint& J = w.joints[ji];
    py::dict d;
    d["bodyA"] = body_name_obj(g, J.bodyA);
    d["bodyB"] = body_name_obj(g, J.bodyB);
    d["localAnchorA"] = py::make_tuple(J.localAnchor1.x, J.localAnchor1.y);
    d["localAnchorB"] = py::make_tuple(J.localAnchor2.x, J.localAnchor2.y);
    d["referenceAngle"] = J.referenceAngle;
    d["enableLimit"] = J.enableLimit;
    d["lowerAngle"] = J.lowerAngle;
    d["upperAngle"] = J.upperAngle;
    d["enableMotor"] = J.enableMotor;
    d["maxMotorTorque"] = J.maxMotorTorque;
    d["motorSpeed"] = J.motorSpeed;
    joints.append(d);
  }
  py::dict out;
  out["bodies_in_world_list_order"] = bodies;
  out["joints_in_world_list_order"] = joints;
  return out;
}

struct Recorder {
  explicit Recorder(py::ssize_t n)
      : state({n, py::ssize_t(kNumParts), py::ssize_t(kStateColumns)}),
        fallen(n), game_ended(n), jump_landed(n), score_time(n), score(n) {}
  void record(const Game& g, py::ssize_t t) {
    g.body_state(state.mutable_data(t));
    fallen.mutable_at(t) = g.flags.fallen;
    game_ended.mutable_at(t) = g.flags.gameEnded;
    jump_landed.mutable_at(t) = g.flags.jumpLanded;
    score_time.mutable_at(t) = g.scoreTime;
    score.mutable_at(t) = g.score;
  }
  py::dict finish(py::ssize_t n, py::array initial) {
    py::dict d;
    d["initial"] = initial;
    d["state"] = state[py::slice(0, n, 1)];
    d["fallen"] = fallen[py::slice(0, n, 1)];
    d["game_ended"] = game_ended[py::slice(0, n, 1)];
    d["jump_landed"] = jump_landed[py::slice(0, n, 1)];
    d["score_time"] = score_time[py::slice(0, n, 1)];
    d["score"] = score[py::slice(0, n, 1)];
    return d;
  }
  py::array_t<double> state;
  py::array_t<int8_t> fallen, game_ended, jump_landed;
  py::array_t<double> score_time, score;
};

py::dict replay(py::handle keys_obj) {
  auto keys = check_int8_array(keys_obj, "keys", 15);
  QwopSim sim;
  const py::ssize_t T = keys.shape(0);
  Recorder rec(T);
  py::array initial = sim.body_state();
  py::ssize_t t = 0;
  const int8_t* k = keys.data();
  {
    py::gil_scoped_release release;
    for (; t < T; ++t) {
      sim.game().update(k[t], sim.scratch());
      rec.record(sim.game(), t);
      if (sim.game().flags.gameEnded) {
        ++t;
        break;
      }
    }
  }
  check_overflow(sim.game());
  py::dict d = rec.finish(t, initial);
  d["keys"] = keys[py::slice(0, t, 1)];
  return d;
}

using qwop::kClickEvent;

py::dict replay_session(py::handle events_obj, double initial_score_time) {
  auto events = check_int8_array(events_obj, "events", kClickEvent);
  const int8_t* e = events.data();
  bool has_click = false;
  for (py::ssize_t t = 0; t < events.shape(0); ++t) has_click = has_click || e[t] == kClickEvent;
  // A session with a click event starts on the intro screen, before the click.
  QwopSim sim(!has_click);
  // The original's page counts game time from before its assets load, and the click zeroes
  // it; a recording gives the value it had at page load so the intro's times match too.
  sim.game().scoreTime = initial_score_time;
  const py::ssize_t T = events.shape(0);
  Recorder rec(T);
  py::array initial = sim.body_state();
  {
    py::gil_scoped_release release;
    for (py::ssize_t t = 0; t < T; ++t) {
      sim.game().apply_event(e[t], sim.scratch());
      rec.record(sim.game(), t);
    }
  }
  check_overflow(sim.game());
  py::dict d = rec.finish(T, initial);
  d["events"] = events;
  return d;
}

template <typename T>
py::array_t<T> view(std::vector<T>& v, std::vector<py::ssize_t> shape, py::handle owner) {
  return py::array_t<T>(shape, v.data(), owner);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "Native QWOP simulator (C++ engine reproducing the original game exactly)";

  py::class_<QwopSim>(m, "QwopSim", "One game, in the traces' initial state: page loaded, first click made, no update run.")
      .def(py::init<bool>(), py::arg("first_click") = true,
           "first_click=False starts on the intro screen (updates run, the world is not stepped) until click().")
      .def("click", [](QwopSim& s) { s.game().click(); }, "The click to begin (firstClick; game time back to 0).")
      .def_property_readonly("first_click", [](const QwopSim& s) { return s.game().flags.firstClick; })
      .def("update", &QwopSim::update, py::arg("keys"), "Run one game update with the key mask held (1=Q 2=W 4=O 8=P).")
      .def("reset", &QwopSim::reset, py::arg("keys") = 0,
           "What releasing R does in the original: rebuild the runner, then one update with `keys` held.")
      .def("body_state", &QwopSim::body_state, "(12, 6) float64: x, y, angle, vx, vy, omega per part, in trace order.")
      .def("snapshot", &QwopSim::snapshot, "Exact copy of the whole world state, as bytes.")
      .def("restore", &QwopSim::restore, py::arg("snapshot"), "Restore a state taken with snapshot().")
      .def("detail", &QwopSim::detail, "Engine internals after the last update, shaped like the reference detail files.")
      .def("world_info", &QwopSim::world_info, "Bodies and joints in world-list order, shaped like world.json.")
      .def("hurdle_state", [](const QwopSim& s) {
             py::array_t<double> out({2, 3});
             const Game& g = s.game();
             const qwop::Body* b[2] = {&g.world.bodies[g.hurdleBase], &g.world.bodies[g.hurdleTop]};
             for (int i = 0; i < 2; ++i) {
               out.mutable_at(i, 0) = b[i]->xf.position.x;
               out.mutable_at(i, 1) = b[i]->xf.position.y;
               out.mutable_at(i, 2) = b[i]->sweep.a;
             }
             return out;
           }, "(2, 3) float64: x, y, angle of the hurdle's base and top.")
      .def("tile_positions", [](const QwopSim& s) {
             py::list out;
             for (int i = 0; i < qwop::kNumTiles; ++i) out.append(s.game().world.bodies[s.game().tile[i]].xf.position.x);
             return out;
           }, "x of the three floor tiles, in creation order.")
      .def("advance", [](QwopSim& s, py::handle keys_obj) {
             auto keys = check_int8_array(keys_obj, "keys", 15);
             const int8_t* k = keys.data();
             for (py::ssize_t t = 0; t < keys.shape(0); ++t) s.game().update(k[t], s.scratch());
             check_overflow(s.game());
           }, py::arg("keys"), "Run several updates (int8 masks) without returning states.")
      .def_property_readonly("fallen", [](const QwopSim& s) { return s.game().flags.fallen; })
      .def_property_readonly("game_ended", [](const QwopSim& s) { return s.game().flags.gameEnded; })
      .def_property_readonly("jumped", [](const QwopSim& s) { return s.game().flags.jumped; })
      .def_property_readonly("jump_landed", [](const QwopSim& s) { return s.game().flags.jumpLanded; })
      .def_property_readonly("paused", [](const QwopSim& s) { return s.game().flags.pause; })
      .def_property_readonly("score_time", [](const QwopSim& s) { return s.game().scoreTime; })
      .def_property_readonly("score", [](const QwopSim& s) { return s.game().score; })
      .def_property_readonly("distance_m", [](const QwopSim& s) { return s.game().distance_m(); },
                             "Torso centre x in metres (continuous; score is its rounded value).")
      .def_property_readonly("camera_x", [](const QwopSim& s) { return s.game().cameraX; })
      .def_property_readonly("keys", [](const QwopSim& s) { return s.game().keys; }, "Key mask of the last update.")
      .def_property_readonly("updates", [](const QwopSim& s) { return s.game().updates; })
      .def_property_readonly("resets", [](const QwopSim& s) { return s.game().resets; });

  m.def("replay", &replay, py::arg("keys"),
        "Run int8 key masks from the initial state until they end or the game ends; returns a trace-shaped dict.");
  m.def("replay_session", &replay_session, py::arg("events"), py::arg("initial_score_time") = 0.0,
        "Run a whole session from page load: 0..15 = one update with that mask, 16+mask = R released with mask held, "
        "32 = the click to begin (a session containing it starts on the intro screen, with game time "
        "initial_score_time, what the page had counted before the runner was built).");
  m.attr("CLICK_EVENT") = int(kClickEvent);

  py::class_<qwop::BatchSim>(m, "BatchSim", "N independent games stepped in C++ on a thread pool, with auto-reset.")
      .def(py::init<int, int, int, double>(), py::arg("num_envs"), py::arg("num_threads") = 1, py::arg("frame_skip") = 1,
           py::arg("time_limit") = 120.0)
      .def("step", [](qwop::BatchSim& b, py::handle keys) {
             if (!keys.is_none()) {
               auto arr = py::array_t<int32_t, py::array::c_style | py::array::forcecast>::ensure(keys);
               if (!arr || arr.ndim() != 1 || arr.shape(0) != b.num_envs()) {
                 throw py::value_error("keys must be a 1-D integer array of length num_envs = " + std::to_string(b.num_envs()));
               }
               const int32_t* p = arr.data();
               for (int i = 0; i < b.num_envs(); ++i) {
                 if (p[i] < 0 || p[i] > 15) {
                   throw py::value_error("keys[" + std::to_string(i) + "] = " + std::to_string(p[i]) + " is out of range 0..15");
                 }
               }
               std::memcpy(b.buffers().keys.data(), p, sizeof(int32_t) * b.num_envs());
             } else {
               for (int i = 0; i < b.num_envs(); ++i) {
                 const int32_t v = b.buffers().keys[i];
                 if (v < 0 || v > 15) throw py::value_error("keys buffer[" + std::to_string(i) + "] = " + std::to_string(v) + " is out of range 0..15");
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
           "Run updates on one env outside step() (for example a random start); counts toward its episode.")
      .def("snapshot_env", [](qwop::BatchSim& b, int i) {
             if (i < 0 || i >= b.num_envs()) throw py::index_error("env index out of range");
             return py::bytes(reinterpret_cast<const char*>(&b.game(i)), sizeof(Game));
           }, py::arg("index"), "Raw bytes of one env's game (for determinism checks).")
      .def_property_readonly("num_envs", &qwop::BatchSim::num_envs)
      .def_property_readonly("num_threads", &qwop::BatchSim::num_threads)
      .def_property_readonly("frame_skip", &qwop::BatchSim::frame_skip)
      .def_property_readonly("time_limit", &qwop::BatchSim::time_limit)
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
      QWOP_VIEW(final_time) QWOP_VIEW(terminated) QWOP_VIEW(truncated) QWOP_VIEW(fallen) QWOP_VIEW(jump_landed)
      QWOP_VIEW(episode_updates) QWOP_VIEW(keys)
      .def_property_readonly("obs", [](py::object self) {
        auto& b = self.cast<qwop::BatchSim&>();
        return view(b.buffers().obs, {b.num_envs(), qwop::kObsSize}, self);
      })
      .def_property_readonly("final_obs", [](py::object self) {
        auto& b = self.cast<qwop::BatchSim&>();
        return view(b.buffers().final_obs, {b.num_envs(), qwop::kObsSize}, self);
      })
      .def_property_readonly("terms", [](py::object self) {
        auto& b = self.cast<qwop::BatchSim&>();
        return view(b.buffers().terms, {b.num_envs(), qwop::kNumRewardTerms}, self);
      });
#undef QWOP_VIEW

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
  m.attr("SNAPSHOT_VERSION") = kSnapshotVersion;
  m.attr("KEY_Q") = int(qwop::kKeyQ);
  m.attr("KEY_W") = int(qwop::kKeyW);
  m.attr("KEY_O") = int(qwop::kKeyO);
  m.attr("KEY_P") = int(qwop::kKeyP);
  m.attr("UPDATE_DT") = qwop::kUpdateDt;
  m.attr("UPDATES_PER_SECOND") = qwop::kUpdatesPerSecond;
  m.attr("STEP_DT") = qwop::kStepDt;
  m.attr("UNITS_PER_METRE") = qwop::kUnitsPerMetre;
  m.attr("FINISH_M") = qwop::kFinishM;
  m.attr("HURDLE_M") = qwop::kHurdleM;
  m.attr("TRACK_TOP_Y") = qwop::kTrackTopY;
  m.attr("GAME_BYTES") = sizeof(Game);
}
