// C++ unit tests of the engine and game layers, run by CTest (the Python tests test the rest
// through sim_env._core):  qwop_cpp_tests CASE  exits 0 when CASE holds.
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "contact.h"
#include "game.h"
#include "sincos_table.h"
#include "snapshot.h"
#include "trig.h"

namespace {

using qwop::Game;

int fail(const char* what) {
  std::fprintf(stderr, "FAILED: %s\n", what);
  return 1;
}

// A game after `n` updates of a fixed key pattern (every key mask in turn, 8 updates each).
void play(Game& g, qwop::StepScratch& s, int n, int from = 0) {
  for (int t = from; t < from + n; ++t) g.update((t / 8) % 16, s);
}

int snapshot_round_trip() {
  auto a = std::make_unique<Game>(), b = std::make_unique<Game>();
  qwop::StepScratch s;
  a->load(true);
  b->load(true);
  play(*a, s, 300);
  const std::string taken = qwop::take_snapshot(*a);
  qwop::restore_snapshot(*b, taken);
  if (qwop::take_snapshot(*b) != taken) return fail("a restored game gives back the same snapshot");
  play(*a, s, 200, 300);
  play(*b, s, 200, 300);
  if (qwop::take_snapshot(*a) != qwop::take_snapshot(*b)) return fail("the copies go on identically");
  return 0;
}

int damaged_snapshot_refused() {
  auto g = std::make_unique<Game>();
  qwop::StepScratch s;
  g->load(true);
  play(*g, s, 120);
  const std::string good = qwop::take_snapshot(*g);
  auto refused = [&](const std::string& bytes) {
    auto h = std::make_unique<Game>();
    h->load(true);
    const std::string before = qwop::take_snapshot(*h);
    try {
      qwop::restore_snapshot(*h, bytes);
    } catch (const std::invalid_argument&) {
      return qwop::take_snapshot(*h) == before;  // refused, and the game left as it was
    }
    return false;
  };
  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x5A;
  if (!refused(flipped)) return fail("a flipped byte is refused (checksum)");
  if (!refused(good.substr(0, good.size() - 3))) return fail("a snapshot cut short is refused");
  // Past the checksum: the runner's first part's body index set out of range, checksum resealed.
  std::string forged = good;
  const size_t header = 32;  // magic, version, size, contacts, contact size, checksum
  const int32_t bad = 127;
  std::memcpy(&forged[header + offsetof(qwop::GameState, partBody)], &bad, sizeof(bad));
  if (!refused(qwop::reseal_snapshot(forged))) return fail("an index out of range is refused");
  return 0;
}

// At the nodes of its lookup table (i/128 past the Taylor range), sin and cos are the table's
// leading values in both variants: the algorithm and the table agree.
int trig_table() {
  for (int i = 17; i < qwop::trig::detail::kSinCosEntries; ++i) {
    const double x = i / 128.0;
    const double* row = qwop::trig::detail::kSinCosTable + 4 * i;
    for (auto v : {qwop::trig::kFma, qwop::trig::kGeneric}) {
      const qwop::trig::SinCos r = qwop::trig::sincos(v, x);
      if (r.s != row[0] || r.c != row[2]) {
        std::fprintf(stderr, "i=%d x=%.17g sin %.17g table %.17g, cos %.17g table %.17g\n", i, x, r.s, row[0], r.c,
                     row[2]);
        return fail("sin and cos at the table's nodes");
      }
    }
  }
  return 0;
}

// Standing at the start, the runner's feet touch the track: a touching contact between a
// runner part and a track tile.
int contact() {
  auto g = std::make_unique<Game>();
  qwop::StepScratch s;
  g->load(true);
  play(*g, s, 10);
  const qwop::World& w = g->world;
  for (int32_t c = w.contact_list(); c != qwop::kNull; c = w.contacts[c].next) {
    const qwop::Contact& k = w.contacts[c];
    if (!(k.flags & qwop::kContactTouching) || k.manifold().pointCount < 1) continue;
    for (int t = 0; t < qwop::kNumTiles; ++t) {
      for (int p = 0; p < qwop::kNumParts; ++p) {
        const int32_t tile = g->tile[t], part = g->partBody[p];
        if ((k.bodyA == tile && k.bodyB == part) || (k.bodyA == part && k.bodyB == tile)) return 0;
      }
    }
  }
  return fail("a runner part touches the track");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "";
  if (which == "snapshot_round_trip") return snapshot_round_trip();
  if (which == "damaged_snapshot_refused") return damaged_snapshot_refused();
  if (which == "trig_table") return trig_table();
  if (which == "contact") return contact();
  std::fprintf(stderr, "usage: qwop_cpp_tests snapshot_round_trip|damaged_snapshot_refused|trig_table|contact\n");
  return 2;
}
