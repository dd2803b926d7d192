// The engine's internals as Python dicts shaped like the reference's world.json and detail
// files, for the fidelity tests and for debugging. See py_inspect.h.
#include "py_inspect.h"

#include <string>

namespace py = pybind11;

namespace qwop {

namespace {

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

}  // namespace

// Engine internals after the last update, shaped like the reference detail files.
py::dict game_detail(const Game& g) {
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
    bodies.append(py::make_tuple(b.torque, 0.0, 0.0, b.flags, b.sleepTime));  // force: always zero (engine.h)
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
py::dict game_world_info(const Game& g) {
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
      for (const auto& v : b.fixture.shape().vertices) verts.append(py::make_tuple(v.x, v.y));
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

}  // namespace qwop
