// Snapshot format. See snapshot.h.
#include "snapshot.h"

#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace qwop {

namespace {

constexpr char kMagic[8] = {'Q', 'W', 'O', 'P', 'S', 'N', 'A', 'P'};
struct Header {
  char magic[8];
  uint32_t version;
  uint32_t size;
};
static_assert(std::is_trivially_copyable_v<Game>, "a snapshot is the game's bytes");

}  // namespace

std::string take_snapshot(const Game& g) {
  std::string s(sizeof(Header) + sizeof(Game), '\0');
  Header h;
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kSnapshotVersion;
  h.size = sizeof(Game);
  std::memcpy(s.data(), &h, sizeof(h));
  std::memcpy(s.data() + sizeof(h), &g, sizeof(Game));
  return s;
}

void restore_snapshot(Game& g, const std::string& s) {
  Header h;
  if (s.size() < sizeof(h)) throw std::invalid_argument("not a QwopSim snapshot: too short");
  std::memcpy(&h, s.data(), sizeof(h));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0) throw std::invalid_argument("not a QwopSim snapshot: bad header");
  if (h.version != kSnapshotVersion || h.size != sizeof(Game) || s.size() != sizeof(h) + sizeof(Game)) {
    throw std::invalid_argument("snapshot is from another simulator version (snapshot v" + std::to_string(h.version) +
                                ", this build v" + std::to_string(kSnapshotVersion) +
                                "); take a new snapshot with this version");
  }
  std::memcpy(static_cast<void*>(&g), s.data() + sizeof(h), sizeof(Game));
}

}  // namespace qwop
