// Snapshot format. See snapshot.h.
#include "snapshot.h"

#include <cstddef>
#include <cstring>
#include <stdexcept>

#include "snapshot_check.h"

namespace qwop {

namespace {

constexpr char kMagic[8] = {'Q', 'W', 'O', 'P', 'S', 'N', 'A', 'P'};
struct Header {
  char magic[8];
  uint32_t version;
  uint32_t size;       // bytes of the two blocks
  uint32_t contacts;   // contact slots that follow them
  uint32_t contactSize;
  uint64_t checksum;   // of every byte after the header (checksum below)
};
constexpr size_t kBlocks = sizeof(GameState) + sizeof(WorldState);

// A 64-bit multiply-xorshift hash over 8-byte words: it catches damage (a changed byte
// changes it with near certainty), at a few hundred nanoseconds a snapshot. Not a signature:
// the structural checks guard against bytes made on purpose.
uint64_t checksum(const char* p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
  }
  for (; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 0xC4CEB9FE1A85EC53ull;
  return h ^ (h >> 29);
}

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
  std::memcpy(out + sizeof(h), static_cast<const GameState*>(&g), sizeof(GameState));
  std::memcpy(out + sizeof(h) + sizeof(GameState), static_cast<const WorldState*>(&g.world), sizeof(WorldState));
  if (n > 0) std::memcpy(out + sizeof(h) + kBlocks, g.world.contacts.data(), n * sizeof(Contact));
  h.checksum = checksum(out + sizeof(h), s.size() - sizeof(h));
  std::memcpy(out, &h, sizeof(h));
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
  if (checksum(s.data() + sizeof(h), s.size() - sizeof(h)) != h.checksum) {
    throw std::invalid_argument("snapshot is damaged: its checksum does not match its bytes");
  }
  // Restored into a game of its own first: a refused snapshot leaves `g` as it was.
  Game r;
  const char* in = s.data() + sizeof(h);
  std::memcpy(static_cast<void*>(static_cast<GameState*>(&r)), in, sizeof(GameState));
  std::memcpy(static_cast<void*>(static_cast<WorldState*>(&r.world)), in + sizeof(GameState), sizeof(WorldState));
  r.world.contacts.assign(in + kBlocks, static_cast<int32_t>(h.contacts));
  const std::string fault = check_game_structure(r);
  if (!fault.empty()) throw std::invalid_argument("snapshot is damaged: " + fault + " is out of range or inconsistent");
  g = r;
  g.world.plan = WavePlan{};  // the restored joints may differ from the ones it planned
}

std::string reseal_snapshot(std::string s) {
  if (s.size() < sizeof(Header)) return s;
  const uint64_t sum = checksum(s.data() + sizeof(Header), s.size() - sizeof(Header));
  std::memcpy(s.data() + offsetof(Header, checksum), &sum, sizeof(sum));
  return s;
}

}  // namespace qwop
