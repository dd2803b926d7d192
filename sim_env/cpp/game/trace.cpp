// Recorded runs. See trace.h.
#include "trace.h"

namespace qwop {

void Trace::reserve(int64_t count) {
  const size_t c = static_cast<size_t>(count);
  state.reserve(c * kNumParts * kStateColumns);
  fallen.reserve(c);
  game_ended.reserve(c);
  jump_landed.reserve(c);
  score_time.reserve(c);
  score.reserve(c);
}

void Trace::record(const Game& g) {
  const size_t at = state.size();
  state.resize(at + kNumParts * kStateColumns);
  g.body_state(&state[at]);
  fallen.push_back(g.flags.fallen);
  game_ended.push_back(g.flags.gameEnded);
  jump_landed.push_back(g.flags.jumpLanded);
  score_time.push_back(g.scoreTime);
  score.push_back(g.score);
  ++n;
}

namespace {

Trace start(const Game& g, int64_t n) {
  Trace t;
  t.initial.resize(kNumParts * kStateColumns);
  g.body_state(t.initial.data());
  t.reserve(n);
  return t;
}

}  // namespace

Trace replay_keys(const int8_t* keys, int64_t n, Game& game, StepScratch& scratch, trig::Variant variant) {
  game.load(true, variant);
  Trace t = start(game, n);
  for (int64_t i = 0; i < n; ++i) {
    game.update(keys[i], scratch);
    t.record(game);
    if (game.flags.gameEnded) break;
  }
  return t;
}

Trace replay_events(const int8_t* events, int64_t n, double initial_score_time, Game& game, StepScratch& scratch,
                    trig::Variant variant) {
  bool has_click = false;
  for (int64_t i = 0; i < n; ++i) has_click = has_click || events[i] == kClickEvent;
  game.load(!has_click, variant);
  game.scoreTime = initial_score_time;
  Trace t = start(game, n);
  for (int64_t i = 0; i < n; ++i) {
    game.apply_event(events[i], scratch);
    t.record(game);
  }
  return t;
}

}  // namespace qwop
