// The one place where the simulator chooses its sin and cos.
//
// The original runs in Chromium, whose Math.sin/Math.cos return exactly what glibc's sin
// and cos return (measured on 200,000 angles; see ENGINE.md section 16). The engine calls
// them after every position correction, so their last bit decides whether a run stays
// exact. On Linux with glibc the C library's functions are used as they are. A build that
// must match a browser with fdlibm-style results would swap the implementation here.
#pragma once

#include <cmath>

namespace qwop::trig {

inline double sin(double x) { return std::sin(x); }
inline double cos(double x) { return std::cos(x); }

}  // namespace qwop::trig
