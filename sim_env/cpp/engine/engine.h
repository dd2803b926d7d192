// Rigid-body engine that reproduces the physics engine inside the original QWOP
// (a Box2D 2.1a-lineage port with a Box2D 2.0 force-based revolute joint).
//
// Written from ../shared/qwop-reference/ENGINE.md. Every formula keeps the operation
// order of the original because the game is chaotic: one changed rounding grows to a
// different run within a few hundred updates. Build with -ffp-contract=off and without
// fast-math.
//
// Layout: state lives in arrays addressed by int indices. Bodies, joints and the tree are
// fixed-capacity arrays in one trivially copyable block (WorldState); contacts live in a
// ContactStore beside it, which grows with what the game holds (most of kMaxContacts is
// never used, and memory per game decides how many games a batch keeps in the cache). Linked
// lists (bodies, joints, contacts, edges) are kept exactly as the original keeps them
// (prepend order), because list order decides island order, solver order and contact order.
//
// One concept per file: shape.cpp (boxes, AABBs, mass), world.cpp (bodies, fixtures,
// joint and body lifecycle), broad_phase.cpp (dynamic tree, pairs), contact_manager.cpp
// (contacts and their manifold pool), collision.cpp (box-box manifolds), contact_solver.cpp
// (velocity and position solver), revolute_joint.cpp, world_step.cpp (step, islands,
// sleep); engine_util.h holds the small helpers they share. The types are declared one
// concept per header, as the .cpp files are; this header includes them all.
#pragma once

#include "collision.h"
#include "constants.h"
#include "math_types.h"
#include "revolute_joint.h"
#include "world.h"
