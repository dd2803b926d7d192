// Snapshot format. See snapshot.h.
#include "snapshot.h"

#include <cstring>
#include <stdexcept>

namespace qwop {

namespace {

constexpr char kMagic[8] = {'Q', 'W', 'O', 'P', 'S', 'N', 'A', 'P'};
struct Header {
  char magic[8];
  uint32_t version;
  uint32_t size;       // bytes of the two blocks
  uint32_t contacts;   // contact slots that follow them
  uint32_t contactSize;
};
constexpr size_t kBlocks = sizeof(GameState) + sizeof(WorldState);

}  // namespace

std::string take_snapshot(const Game& g) {
  const size_t n = static_cast<size_t>(g.world.contacts.used());
  std::string s(sizeof(Header) + kBlocks + n * sizeof(Contact), '\0');
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kSnapshotVersion;
  h.size = static_cast<uint32_t>(kBlocks);
  h.contacts = static_cast<uint32_t>(n);
  h.contactSize = static_cast<uint32_t>(sizeof(Contact));
  char* out = s.data();
  std::memcpy(out, &h, sizeof(h));
  std::memcpy(out + sizeof(h), static_cast<const GameState*>(&g), sizeof(GameState));
  std::memcpy(out + sizeof(h) + sizeof(GameState), static_cast<const WorldState*>(&g.world), sizeof(WorldState));
  if (n > 0) std::memcpy(out + sizeof(h) + kBlocks, g.world.contacts.data(), n * sizeof(Contact));
  return s;
}

void restore_snapshot(Game& g, const std::string& s) {
  Header h;
  if (s.size() < sizeof(h)) throw std::invalid_argument("not a QwopSim snapshot: too short");
  std::memcpy(&h, s.data(), sizeof(h));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0) throw std::invalid_argument("not a QwopSim snapshot: bad header");
  if (h.version != kSnapshotVersion || h.size != kBlocks || h.contactSize != sizeof(Contact)) {
    throw std::invalid_argument("snapshot is from another simulator version (snapshot v" + std::to_string(h.version) +
                                ", this build v" + std::to_string(kSnapshotVersion) +
                                "); take a new snapshot with this version");
  }
  const size_t expected = sizeof(h) + kBlocks + static_cast<size_t>(h.contacts) * sizeof(Contact);
  if (h.contacts > static_cast<uint32_t>(kMaxContacts) || s.size() != expected) {
    throw std::invalid_argument("snapshot is damaged: " + std::to_string(s.size()) + " bytes where its header says " +
                                std::to_string(expected) + " (cut short, or more than a snapshot)");
  }
  const char* in = s.data() + sizeof(h);
  std::memcpy(static_cast<void*>(static_cast<GameState*>(&g)), in, sizeof(GameState));
  std::memcpy(static_cast<void*>(static_cast<WorldState*>(&g.world)), in + sizeof(GameState), sizeof(WorldState));
  g.world.contacts.assign(in + kBlocks, static_cast<int32_t>(h.contacts));
  g.world.plan = WavePlan{};  // the restored joints may differ from the ones it planned
}

}  // namespace qwop
