// A game's snapshot: its two blocks (GameState, WorldState) as bytes, then the contacts its
// world holds, behind a header naming the format and the build's layout. It restores the
// exact state (bit for bit), and equal games give equal snapshots.
#pragma once

#include <cstdint>
#include <string>

#include "game.h"

namespace qwop {

// Bump when Game's layout or semantics change: old snapshots are then refused.
constexpr uint32_t kSnapshotVersion = 8;

std::string take_snapshot(const Game& g);
// Throws std::invalid_argument saying why the bytes are not a snapshot of this build.
void restore_snapshot(Game& g, const std::string& bytes);

}  // namespace qwop
