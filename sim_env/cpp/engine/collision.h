// Box-box contact manifolds (collision.cpp).
#pragma once

#include "contact.h"

namespace qwop {

void collide_polygons(Manifold& manifold, const PolygonShape& polyA, const Transform& xfA,
                      const PolygonShape& polyB, const Transform& xfB);

}  // namespace qwop
