// Observation and reward terms. See features.h and sim_env/observation.py for the layout.
#include "env_features.h"

#include <cmath>
#include <initializer_list>

#include "game_def.h"

namespace qwop {

namespace {

constexpr double kPi = 3.141592653589793;

struct JointInfo {
  int partA, partB;
  double reference;
};

// Joint bodies and reference angles from the construction data (runner joints only).
// A function-local static is initialized once, thread-safely, by the first caller.
const JointInfo* joint_infos() {
  struct Table {
    JointInfo infos[kNumJoints];
    Table() {
      for (int k = 0; k < kNumJoints; ++k) {
        const def::JointDef& jd = def::kJoints[k + 1];
        infos[k] = {def::kBodies[jd.bodyA].part, def::kBodies[jd.bodyB].part, jd.referenceAngle};
      }
    }
  };
  static const Table table;
  return table.infos;
}

inline double joint_angle(const double* s, const JointInfo& j) {
  return s[j.partB * kStateColumns + 2] - s[j.partA * kStateColumns + 2] - j.reference;
}

inline double wrap_angle(double a) {
  // Python's (a + pi) % (2 pi) - pi, with a floored modulo.
  const double m = 2.0 * kPi;
  const double x = a + kPi;
  // fmod is exact: for 0 <= x < m it is x itself, as it is for most body angles, and the
  // library call is spared.
  double r = x >= 0.0 && x < m ? x : std::fmod(x, m);
  if (r < 0) r += m;
  return r - kPi;
}

}  // namespace

void write_observation(const double* s, float* out) {
  const JointInfo* joints = joint_infos();
  const double tx = s[0], ty = s[1];
  int o = 0;
  for (int p = 1; p < kNumParts; ++p) out[o++] = static_cast<float>((s[p * kStateColumns] - tx) / kObsPositionScale);
  for (int p = 1; p < kNumParts; ++p) out[o++] = static_cast<float>((s[p * kStateColumns + 1] - ty) / kObsPositionScale);
  for (int p = 0; p < kNumParts; ++p) out[o++] = static_cast<float>(wrap_angle(s[p * kStateColumns + 2]) / kPi);
  for (int c = 3; c < 6; ++c) {
    for (int p = 0; p < kNumParts; ++p) out[o++] = static_cast<float>(s[p * kStateColumns + c] / kObsVelocityScale);
  }
  for (int k = 0; k < kNumJoints; ++k) out[o++] = static_cast<float>(joint_angle(s, joints[k]));
  out[o++] = static_cast<float>((kTrackTopY - ty) / kObsPositionScale);
  out[o++] = static_cast<float>(s[3] / kObsVelocityScale);
}

void write_reward_terms(const double* before, const double* after, double dt, double time_after, bool fell,
                        bool finished, double* out) {
  const JointInfo* joints = joint_infos();
  const double x0 = before[0] / kUnitsPerMetre, x1 = after[0] / kUnitsPerMetre;
  const double y0 = before[1] / kUnitsPerMetre, y1 = after[1] / kUnitsPerMetre;
  const double height = (kTrackTopY - after[1]) / kUnitsPerMetre;
  double knee = 0.0;
  for (int k : {kLeftKnee, kRightKnee}) {
    const double bend = std::fabs(joint_angle(after, joints[k]));
    knee += bend > kKneeBendRad ? bend - kKneeBendRad : 0.0;
  }
  out[kTermProgress] = x1 - x0;
  out[kTermTime] = -dt;
  out[kTermFinish] = finished ? kFinishBonusTimeS - time_after : 0.0;
  out[kTermFall] = fell ? -1.0 : 0.0;
  out[kTermLowTorso] = height < kLowTorsoM ? -(kLowTorsoM - height) : 0.0;
  out[kTermVertical] = -std::fabs(y1 - y0);
  out[kTermKnee] = -knee;
}

}  // namespace qwop
