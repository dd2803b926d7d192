// Polygon shapes: boxes, their AABBs and mass data (ENGINE.md section 13).
#include <cmath>

#include "engine.h"
#include "engine_util.h"

namespace qwop {

PolygonShape PolygonShape::box(double hx, double hy) {
  PolygonShape s;
  s.vertices[0] = {-hx, -hy};
  s.vertices[1] = {hx, -hy};
  s.vertices[2] = {hx, hy};
  s.vertices[3] = {-hx, hy};
  s.normals[0] = {0.0, -1.0};
  s.normals[1] = {1.0, 0.0};
  s.normals[2] = {0.0, 1.0};
  s.normals[3] = {-1.0, 0.0};
  s.centroid = {0.0, 0.0};
  s.radius = settings::kLinearSlop;
  return s;
}

void PolygonShape::compute_aabb(AABB& out, const Transform& xf) const {
  const Mat22& R = xf.R;
  double lowerX = xf.position.x + (R.col1.x * vertices[0].x + R.col2.x * vertices[0].y);
  double lowerY = xf.position.y + (R.col1.y * vertices[0].x + R.col2.y * vertices[0].y);
  double upperX = lowerX;
  double upperY = lowerY;
  for (int i = 1; i < 4; ++i) {
    const double vX = xf.position.x + (R.col1.x * vertices[i].x + R.col2.x * vertices[i].y);
    const double vY = xf.position.y + (R.col1.y * vertices[i].x + R.col2.y * vertices[i].y);
    lowerX = lowerX < vX ? lowerX : vX;
    lowerY = lowerY < vY ? lowerY : vY;
    upperX = upperX > vX ? upperX : vX;
    upperY = upperY > vY ? upperY : vY;
  }
  out.lower.x = lowerX - radius;
  out.lower.y = lowerY - radius;
  out.upper.x = upperX + radius;
  out.upper.y = upperY + radius;
}

// The box's vertices are (+-hx, +-hy), so along x their offsets from the position are
// +-r(a + b) and +-r(a - b) with a = R.col1.x hx, b = R.col2.x hy (a product's rounding is
// the same for either sign, and so is a sum's). Rounding never reverses an order, so the
// least vertex x is r(p.x - e) with e the larger offset's magnitude, the greatest r(p.x + e):
// the values compute_aabb's comparisons pick, without building the polygon. Where they
// could differ, a bound of +0 against -0, the radius added next gives the same bits; a NaN
// (whose sign the comparisons pass on) takes compute_aabb itself.
void box_aabb(AABB& out, double hx, double hy, const Transform& xf) {
  const Mat22& R = xf.R;
  const double a = R.col1.x * hx, b = R.col2.x * hy;
  const double c = R.col1.y * hx, d = R.col2.y * hy;
  const double ex = b2max(std::fabs(a + b), std::fabs(a - b));
  const double ey = b2max(std::fabs(c + d), std::fabs(c - d));
  const double lowerX = xf.position.x - ex, upperX = xf.position.x + ex;
  const double lowerY = xf.position.y - ey, upperY = xf.position.y + ey;
  // v == v fails for NaN alone (evaluated without branches).
  const bool plain = (lowerX == lowerX) & (upperX == upperX) & (lowerY == lowerY) & (upperY == upperY);
  if (!plain) {
    PolygonShape::box(hx, hy).compute_aabb(out, xf);
    return;
  }
#if defined(__SSE2__)
  const __m128d slop = _mm_set1_pd(settings::kLinearSlop);
  store_aabb(out, _mm_sub_pd(_mm_set_pd(lowerY, lowerX), slop), _mm_add_pd(_mm_set_pd(upperY, upperX), slop));
#else
  out.lower.x = lowerX - settings::kLinearSlop;
  out.lower.y = lowerY - settings::kLinearSlop;
  out.upper.x = upperX + settings::kLinearSlop;
  out.upper.y = upperY + settings::kLinearSlop;
#endif
}

void PolygonShape::compute_mass(double density, double& mass, Vec2& center, double& inertia) const {
  double cx = 0.0, cy = 0.0, area = 0.0, I = 0.0;
  const double p1X = 0.0, p1Y = 0.0;
  const double k_inv3 = 0.3333333333333333;
  for (int i = 0; i < 4; ++i) {
    const Vec2 p2 = vertices[i];
    const Vec2 p3 = i + 1 < 4 ? vertices[i + 1] : vertices[0];
    const double e1X = p2.x - p1X;
    const double e1Y = p2.y - p1Y;
    const double e2X = p3.x - p1X;
    const double e2Y = p3.y - p1Y;
    const double D = e1X * e2Y - e1Y * e2X;
    const double triangleArea = 0.5 * D;
    area += triangleArea;
    cx += triangleArea * k_inv3 * (p1X + p2.x + p3.x);
    cy += triangleArea * k_inv3 * (p1Y + p2.y + p3.y);
    const double px = p1X, py = p1Y;
    const double ex1 = e1X, ey1 = e1Y, ex2 = e2X, ey2 = e2Y;
    const double intx2 = k_inv3 * (0.25 * (ex1 * ex1 + ex2 * ex1 + ex2 * ex2) + (px * ex1 + px * ex2)) + 0.5 * px * px;
    const double inty2 = k_inv3 * (0.25 * (ey1 * ey1 + ey2 * ey1 + ey2 * ey2) + (py * ey1 + py * ey2)) + 0.5 * py * py;
    I += D * (intx2 + inty2);
  }
  mass = density * area;
  cx *= 1.0 / area;
  cy *= 1.0 / area;
  center = {cx, cy};
  inertia = density * I;
}

}  // namespace qwop
