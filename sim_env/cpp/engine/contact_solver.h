// The contact solver's steps, called by the island solver (ENGINE.md section 5).
#pragma once

#include "engine.h"

namespace qwop {

void contact_solver_initialize(World& w, StepScratch& s);
void contact_solver_warm_start(World& w, StepScratch& s, const TimeStep& step);
void contact_solver_solve_velocity(World& w, StepScratch& s);
void contact_solver_finalize(World& w, StepScratch& s);
// One position iteration over the island's contacts; true when all are within tolerance.
bool contact_solver_solve_position(World& w, StepScratch& s, double baumgarte);

}  // namespace qwop
