// What a restored snapshot must hold before the engine may step it: every count and index in
// range and every list, edge and tree well formed, so that no input reaches memory the game
// does not own or loops for ever (a checksum catches damage; these catch anything else).
#pragma once

#include <string>

#include "game.h"

namespace qwop {

// Empty when `g` is a state the engine can step safely; else why it is not.
std::string check_game_structure(const Game& g);

}  // namespace qwop
