// Every check of an argument the Python bindings take: key masks (the one place they are
// checked in C++), whole-number arrays, int8 arrays, the sin/cos option and state shapes.
#include <string>

#include "bind_common.h"

namespace qwop_py {

constexpr const char* kKeysHelp = "an int mask 0..15 (Q=1, W=2, O=4, P=8)";

int32_t check_keys(py::handle obj) {
  if (PyBool_Check(obj.ptr())) throw py::value_error(std::string("keys must be ") + kKeysHelp + ", got a bool");
  if (!PyIndex_Check(obj.ptr())) {
    throw py::value_error(std::string("keys must be ") + kKeysHelp + ", got " +
                          std::string(py::str(py::type::of(obj).attr("__name__"))));
  }
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(obj.ptr()));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  if (overflow != 0 || v < 0 || v > kMaxKeyMask) {
    throw py::value_error("key mask " + std::string(py::str(index)) + " is out of range: use 0..15 (Q=1, W=2, O=4, P=8)");
  }
  return static_cast<int32_t>(v);
}

py::array_t<int8_t> check_key_array(py::handle obj, const char* what) {
  return check_int8_array(obj, what, kMaxKeyMask);
}

void check_key_value(int32_t v, int index) {
  if (v < 0 || v > kMaxKeyMask) {
    throw py::value_error("keys buffer[" + std::to_string(index) + "] = " + std::to_string(v) + " is out of range 0..15");
  }
}

// An array of whole numbers lo..hi (any integer dtype, or a list of ints), as int64. Floats,
// bools, strings and values out of range are refused, not converted (numpy's casts would turn
// 1.5 into 1 and 2**33 + 1 into 1).
py::array_t<int64_t> checked_ints(py::handle obj, const std::string& what, long long lo, long long hi) {
  py::array arr = py::array::ensure(obj);
  if (!arr) throw py::value_error(what + " must be an array of whole numbers");
  const char kind = arr.dtype().kind();
  if (kind != 'i' && kind != 'u') {
    throw py::value_error(what + " must hold whole numbers " + std::to_string(lo) + ".." + std::to_string(hi) +
                          ", got dtype " + std::string(py::str(arr.dtype())));
  }
  if (kind == 'u' && arr.dtype().itemsize() == 8) {  // above 2**63 would wrap into range as int64
    auto u = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
    for (py::ssize_t i = 0; i < u.size(); ++i) {
      if (u.data()[i] > static_cast<uint64_t>(hi)) {
        throw py::value_error(what + "[" + std::to_string(i) + "] = " + std::to_string(u.data()[i]) +
                              " is out of range " + std::to_string(lo) + ".." + std::to_string(hi));
      }
    }
  }
  auto a = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(arr);
  const int64_t* p = a.data();
  for (py::ssize_t i = 0; i < a.size(); ++i) {
    if (p[i] < lo || p[i] > hi) {
      throw py::value_error(what + "[" + std::to_string(i) + "] = " + std::to_string(p[i]) + " is out of range " +
                            std::to_string(lo) + ".." + std::to_string(hi));
    }
  }
  return a;
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

// The sin/cos variant option of the simulator, the batch and the replays (trig.h).
qwop::trig::Variant parse_sincos(const std::string& name) {
  if (name == "fma") return qwop::trig::kFma;
  if (name == "generic") return qwop::trig::kGeneric;
  throw py::value_error("sincos must be 'fma' (glibc's FMA build, the reference traces') or 'generic', got '" + name + "'");
}

const char* sincos_name(qwop::trig::Variant v) { return v == qwop::trig::kGeneric ? "generic" : "fma"; }

void check_overflow(const Game& g) {
  if (g.world.overflow) {
    throw py::value_error(
        "the game ran past the simulator's capacity (contacts or broad-phase moves), which no game from a reset "
        "reaches: its state came from a snapshot that was made by hand or damaged; restore one taken by snapshot()");
  }
}

using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;

const double* check_state(const Doubles& s, const char* what) {
  if (s.ndim() != 2 || s.shape(0) != kNumParts || s.shape(1) != kStateColumns) {
    throw py::value_error(std::string(what) + " must have shape (12, 6)");
  }
  return s.data();
}

}  // namespace qwop_py
