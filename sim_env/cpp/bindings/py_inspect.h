// Engine internals as Python dicts (the reference's world.json and detail-file shapes).
#pragma once

#include <pybind11/pybind11.h>

#include "game.h"

namespace qwop {

// Contacts, joints, part forces, floor tiles and camera after the last update.
pybind11::dict game_detail(const Game& g);
// Bodies and joints in world-list order, like world.json.
pybind11::dict game_world_info(const Game& g);

}  // namespace qwop
