// sim_env._core.testing: probes of engine internals for the tests (the broad phase's box
// arithmetic against the original's), not part of the simulator's API.
#include <vector>

#include "bind_common.h"
#include "engine_util.h"
#include "snapshot.h"

namespace qwop_py {

namespace {

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

}  // namespace

void bind_testing(py::module_& parent) {
  py::module_ m = parent.def_submodule("testing", "Probes of engine internals for the tests; not the simulator's API.");
  m.def(
      "reseal_snapshot", [](py::bytes b) { return py::bytes(qwop::reseal_snapshot(b.cast<std::string>())); },
      py::arg("snapshot"), "The bytes with their checksum made to match (to reach the structural checks).");
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
}

}  // namespace qwop_py
