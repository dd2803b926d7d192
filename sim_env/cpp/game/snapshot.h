// A game's snapshot: its two blocks (GameState, WorldState) as bytes, then the contacts its
// world holds, behind a header naming the format, the build's layout and a checksum of the
// rest. It restores the exact state (bit for bit), and equal games give equal snapshots.
// Restoring checks the checksum and then the state's structure (snapshot_check.h), so bytes
// that were damaged or made by hand are refused and never reach the engine.
#pragma once

#include <cstdint>
#include <string>

#include "game.h"

namespace qwop {

// Bump when Game's layout or semantics change: old snapshots are then refused.
constexpr uint32_t kSnapshotVersion = 9;

std::string take_snapshot(const Game& g);
// Throws std::invalid_argument saying why the bytes are not a snapshot of this build; `g` is
// then unchanged.
void restore_snapshot(Game& g, const std::string& bytes);
// The bytes with their checksum made to match them (for the tests, which make snapshots damaged
// past the checksum to reach the structural checks); bytes shorter than a header are returned as
// they are.
std::string reseal_snapshot(std::string bytes);

}  // namespace qwop
