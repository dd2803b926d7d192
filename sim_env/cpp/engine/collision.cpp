// Polygon-polygon narrow phase (ENGINE.md section 6): separating axes, reference and
// incident faces, clipping, and the 32-bit contact ids used for warm-start matching.
#include <cmath>
#include <limits>

#include "engine.h"

namespace qwop {

namespace {

constexpr int kCount = 4;  // every shape in the game is a box

struct ClipVertex {
  Vec2 v;
  uint32_t id;
};

inline uint32_t make_id(int referenceEdge, int incidentEdge, int incidentVertex) {
  return (static_cast<uint32_t>(referenceEdge) & 0xFFu) | ((static_cast<uint32_t>(incidentEdge) & 0xFFu) << 8) |
         ((static_cast<uint32_t>(incidentVertex) & 0xFFu) << 16);
}

double edge_separation(const PolygonShape& poly1, const Transform& xf1, int edge1, const PolygonShape& poly2,
                       const Transform& xf2) {
  const Mat22& R1 = xf1.R;
  const Vec2& n = poly1.normals[edge1];
  const double normal1WorldX = R1.col1.x * n.x + R1.col2.x * n.y;
  const double normal1WorldY = R1.col1.y * n.x + R1.col2.y * n.y;
  const Mat22& R2 = xf2.R;
  const double normal1X = R2.col1.x * normal1WorldX + R2.col1.y * normal1WorldY;
  const double normal1Y = R2.col2.x * normal1WorldX + R2.col2.y * normal1WorldY;
  int index = 0;
  double minDot = std::numeric_limits<double>::max();
  for (int i = 0; i < kCount; ++i) {
    const Vec2& v = poly2.vertices[i];
    const double dot = v.x * normal1X + v.y * normal1Y;
    if (dot < minDot) {
      minDot = dot;
      index = i;
    }
  }
  const Vec2& a = poly1.vertices[edge1];
  const double v1X = xf1.position.x + (R1.col1.x * a.x + R1.col2.x * a.y);
  const double v1Y = xf1.position.y + (R1.col1.y * a.x + R1.col2.y * a.y);
  const Vec2& b = poly2.vertices[index];
  double v2X = xf2.position.x + (R2.col1.x * b.x + R2.col2.x * b.y);
  double v2Y = xf2.position.y + (R2.col1.y * b.x + R2.col2.y * b.y);
  v2X -= v1X;
  v2Y -= v1Y;
  return v2X * normal1WorldX + v2Y * normal1WorldY;
}

double find_max_separation(int& edgeIndex, const PolygonShape& poly1, const Transform& xf1,
                           const PolygonShape& poly2, const Transform& xf2) {
  const Mat22& R2 = xf2.R;
  const Vec2& c2 = poly2.centroid;
  double dX = xf2.position.x + (R2.col1.x * c2.x + R2.col2.x * c2.y);
  double dY = xf2.position.y + (R2.col1.y * c2.x + R2.col2.y * c2.y);
  const Mat22& R1 = xf1.R;
  const Vec2& c1 = poly1.centroid;
  dX -= xf1.position.x + (R1.col1.x * c1.x + R1.col2.x * c1.y);
  dY -= xf1.position.y + (R1.col1.y * c1.x + R1.col2.y * c1.y);
  const double dLocal1X = dX * R1.col1.x + dY * R1.col1.y;
  const double dLocal1Y = dX * R1.col2.x + dY * R1.col2.y;
  int edge = 0;
  double maxDot = -std::numeric_limits<double>::max();
  for (int i = 0; i < kCount; ++i) {
    const double dot = poly1.normals[i].x * dLocal1X + poly1.normals[i].y * dLocal1Y;
    if (dot > maxDot) {
      maxDot = dot;
      edge = i;
    }
  }
  double s = edge_separation(poly1, xf1, edge, poly2, xf2);
  const int prevEdge = edge - 1 >= 0 ? edge - 1 : kCount - 1;
  const double sPrev = edge_separation(poly1, xf1, prevEdge, poly2, xf2);
  const int nextEdge = edge + 1 < kCount ? edge + 1 : 0;
  const double sNext = edge_separation(poly1, xf1, nextEdge, poly2, xf2);
  int bestEdge;
  double bestSeparation;
  int increment;
  if (sPrev > s && sPrev > sNext) {
    increment = -1;
    bestEdge = prevEdge;
    bestSeparation = sPrev;
  } else if (sNext > s) {
    increment = 1;
    bestEdge = nextEdge;
    bestSeparation = sNext;
  } else {
    edgeIndex = edge;
    return s;
  }
  for (;;) {
    if (increment == -1) {
      edge = bestEdge - 1 >= 0 ? bestEdge - 1 : kCount - 1;
    } else {
      edge = bestEdge + 1 < kCount ? bestEdge + 1 : 0;
    }
    s = edge_separation(poly1, xf1, edge, poly2, xf2);
    if (s > bestSeparation) {
      bestEdge = edge;
      bestSeparation = s;
    } else {
      break;
    }
  }
  edgeIndex = bestEdge;
  return bestSeparation;
}

void find_incident_edge(ClipVertex c[2], const PolygonShape& poly1, const Transform& xf1, int edge1,
                        const PolygonShape& poly2, const Transform& xf2) {
  const Mat22& R1 = xf1.R;
  const Vec2& n = poly1.normals[edge1];
  double normal1X = R1.col1.x * n.x + R1.col2.x * n.y;
  double normal1Y = R1.col1.y * n.x + R1.col2.y * n.y;
  const Mat22& R2 = xf2.R;
  const double tX = R2.col1.x * normal1X + R2.col1.y * normal1Y;
  normal1Y = R2.col2.x * normal1X + R2.col2.y * normal1Y;
  normal1X = tX;
  int index = 0;
  double minDot = std::numeric_limits<double>::max();
  for (int i = 0; i < kCount; ++i) {
    const double dot = normal1X * poly2.normals[i].x + normal1Y * poly2.normals[i].y;
    if (dot < minDot) {
      minDot = dot;
      index = i;
    }
  }
  const int i1 = index;
  const int i2 = i1 + 1 < kCount ? i1 + 1 : 0;
  const Vec2& a = poly2.vertices[i1];
  c[0].v.x = xf2.position.x + (R2.col1.x * a.x + R2.col2.x * a.y);
  c[0].v.y = xf2.position.y + (R2.col1.y * a.x + R2.col2.y * a.y);
  c[0].id = make_id(edge1, i1, 0);
  const Vec2& b = poly2.vertices[i2];
  c[1].v.x = xf2.position.x + (R2.col1.x * b.x + R2.col2.x * b.y);
  c[1].v.y = xf2.position.y + (R2.col1.y * b.x + R2.col2.y * b.y);
  c[1].id = make_id(edge1, i2, 1);
}

int clip_segment_to_line(ClipVertex vOut[2], const ClipVertex vIn[2], const Vec2& normal, double offset) {
  int numOut = 0;
  const Vec2 vIn0 = vIn[0].v;
  const Vec2 vIn1 = vIn[1].v;
  const double distance0 = normal.x * vIn0.x + normal.y * vIn0.y - offset;
  const double distance1 = normal.x * vIn1.x + normal.y * vIn1.y - offset;
  if (distance0 <= 0.0) vOut[numOut++] = vIn[0];
  if (distance1 <= 0.0) vOut[numOut++] = vIn[1];
  if (distance0 * distance1 < 0.0) {
    const double interp = distance0 / (distance0 - distance1);
    vOut[numOut].v.x = vIn0.x + interp * (vIn1.x - vIn0.x);
    vOut[numOut].v.y = vIn0.y + interp * (vIn1.y - vIn0.y);
    vOut[numOut].id = distance0 > 0.0 ? vIn[0].id : vIn[1].id;
    ++numOut;
  }
  return numOut;
}

}  // namespace

void collide_polygons(Manifold& manifold, const PolygonShape& polyA, const Transform& xfA,
                      const PolygonShape& polyB, const Transform& xfB) {
  manifold.pointCount = 0;
  const double totalRadius = polyA.radius + polyB.radius;
  int edgeA = 0;
  const double separationA = find_max_separation(edgeA, polyA, xfA, polyB, xfB);
  if (separationA > totalRadius) return;
  int edgeB = 0;
  const double separationB = find_max_separation(edgeB, polyB, xfB, polyA, xfA);
  if (separationB > totalRadius) return;

  const PolygonShape* poly1;
  const PolygonShape* poly2;
  const Transform* xf1;
  const Transform* xf2;
  int edge1;
  uint32_t flip;
  const double k_relativeTol = 0.98;
  const double k_absoluteTol = 0.001;
  if (separationB > k_relativeTol * separationA + k_absoluteTol) {
    poly1 = &polyB;
    poly2 = &polyA;
    xf1 = &xfB;
    xf2 = &xfA;
    edge1 = edgeB;
    manifold.type = kManifoldFaceB;
    flip = 1;
  } else {
    poly1 = &polyA;
    poly2 = &polyB;
    xf1 = &xfA;
    xf2 = &xfB;
    edge1 = edgeA;
    manifold.type = kManifoldFaceA;
    flip = 0;
  }
  ClipVertex incidentEdge[2];
  find_incident_edge(incidentEdge, *poly1, *xf1, edge1, *poly2, *xf2);

  const Vec2 local_v11 = poly1->vertices[edge1];
  const Vec2 local_v12 = edge1 + 1 < kCount ? poly1->vertices[edge1 + 1] : poly1->vertices[0];
  Vec2 localTangent{local_v12.x - local_v11.x, local_v12.y - local_v11.y};
  {
    const double length = std::sqrt(localTangent.x * localTangent.x + localTangent.y * localTangent.y);
    if (length >= std::numeric_limits<double>::denorm_min()) {
      const double invLength = 1.0 / length;
      localTangent.x *= invLength;
      localTangent.y *= invLength;
    }
  }
  const Vec2 localNormal{localTangent.y, -localTangent.x};
  const Vec2 planePoint{0.5 * (local_v11.x + local_v12.x), 0.5 * (local_v11.y + local_v12.y)};
  const Mat22& R1 = xf1->R;
  const Vec2 tangent{R1.col1.x * localTangent.x + R1.col2.x * localTangent.y,
                     R1.col1.y * localTangent.x + R1.col2.y * localTangent.y};
  const Vec2 tangent2{-tangent.x, -tangent.y};
  const Vec2 normal{tangent.y, -tangent.x};
  const Vec2 v11{xf1->position.x + (R1.col1.x * local_v11.x + R1.col2.x * local_v11.y),
                 xf1->position.y + (R1.col1.y * local_v11.x + R1.col2.y * local_v11.y)};
  const Vec2 v12{xf1->position.x + (R1.col1.x * local_v12.x + R1.col2.x * local_v12.y),
                 xf1->position.y + (R1.col1.y * local_v12.x + R1.col2.y * local_v12.y)};
  const double frontOffset = normal.x * v11.x + normal.y * v11.y;
  const double sideOffset1 = -tangent.x * v11.x - tangent.y * v11.y + totalRadius;
  const double sideOffset2 = tangent.x * v12.x + tangent.y * v12.y + totalRadius;

  ClipVertex clipPoints1[2];
  ClipVertex clipPoints2[2];
  int np = clip_segment_to_line(clipPoints1, incidentEdge, tangent2, sideOffset1);
  if (np < 2) return;
  np = clip_segment_to_line(clipPoints2, clipPoints1, tangent, sideOffset2);
  if (np < 2) return;

  manifold.localPlaneNormal = localNormal;
  manifold.localPoint = planePoint;
  int pointCount = 0;
  for (int i = 0; i < 2; ++i) {
    const ClipVertex& cv = clipPoints2[i];
    const double separation = normal.x * cv.v.x + normal.y * cv.v.y - frontOffset;
    if (separation <= totalRadius) {
      ManifoldPoint& cp = manifold.points[pointCount];
      const Mat22& R2 = xf2->R;
      const double tX = cv.v.x - xf2->position.x;
      const double tY = cv.v.y - xf2->position.y;
      cp.localPoint.x = tX * R2.col1.x + tY * R2.col1.y;
      cp.localPoint.y = tX * R2.col2.x + tY * R2.col2.y;
      manifold.ids[pointCount] = (cv.id & 0x00FFFFFFu) | (flip << 24);
      ++pointCount;
    }
  }
  manifold.pointCount = pointCount;
}

}  // namespace qwop
