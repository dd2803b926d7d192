// The engine's sin and cos: the only place the simulator computes them.
//
// The original runs in Chromium, whose Math.sin/Math.cos are the C library's sin/cos; on
// glibc that is the IBM Accurate Mathematical Library's algorithm, and glibc picks one of
// two builds by CPU at run time: one compiled with fused multiply-add (x86-64 CPUs with FMA)
// and one without. They differ in the last bit for about 0.07% of arguments, and the
// reference traces were recorded with the FMA build. The engine therefore carries its own
// implementation of that algorithm (trig.cpp), in both variants, so that its results depend
// neither on the host's CPU nor on its C library. A game's variant is part of its state
// (World::trigVariant), fixed when it is built.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qwop::trig {

enum Variant : uint8_t {
  kFma = 0,      // glibc's FMA build (x86-64 with FMA): the reference traces' variant
  kGeneric = 1,  // glibc's build without FMA (what a CPU without FMA, or other glibc ports, computes)
};

struct SinCos {
  double s, c;
};
struct SinCos4 {
  double s[4], c[4];
};

namespace detail {
using SinCosFn = SinCos (*)(double);
using SinCos4Fn = SinCos4 (*)(double, double, double, double);
// Each variant's implementation, indexed by Variant. The FMA entry starts as the one on
// std::fma (exact everywhere) and becomes the one on the CPU's instruction, where there is
// one, when the library loads (trig.cpp).
extern SinCosFn sincos_fn[2];
// Four at a time: in SIMD lanes where the CPU has AVX2 and FMA (trig_x4.h), else one by one.
extern SinCos4Fn sincos4_fn[2];
}  // namespace detail

// sin(x) and cos(x) as the chosen glibc build computes them, sharing one argument reduction
// (returned in registers: the joint solver reads them at once).
inline SinCos sincos(Variant v, double x) { return detail::sincos_fn[v](x); }
// sin and cos of four arguments, each exactly as sincos gives it.
inline SinCos4 sincos4(Variant v, double x0, double x1, double x2, double x3) {
  return detail::sincos4_fn[v](x0, x1, x2, x3);
}
void sincos(Variant v, double x, double* s, double* c);
double sin(Variant v, double x);
double cos(Variant v, double x);

// sin and cos of x[0..n) four at a time, as the lock-step solver's lanes compute them
// (trig_x4.h); returns false, computing nothing, where the CPU cannot run the lanes.
bool sincos_lanes(Variant v, const double* x, double* s, double* c, std::size_t n);

// Whether the engine may use the CPU's FMA and AVX2 (where it has them): false when the
// environment variable QWOP_SIM_PORTABLE is set (not "0") as the library loads, which runs
// the paths a CPU without them takes (std::fma, sin/cos one at a time, no lock step); they
// give the same bits, and the tests check it.
bool cpu_extensions_enabled();

// Whether the FMA variant runs on the CPU's fused multiply-add (else on std::fma, exact but slower).
bool hardware_fma();

}  // namespace qwop::trig
