/* Debug counters of the solver's entry points (src/solve/solver.c,
 * rotation_only.c): process-wide, atomic. Tests read them to check that a
 * path solves exactly what it should — `skinfit transfer --html` solves each
 * clip once and draws its pictures from what the transfer returned
 * (tests/report/test_report_solves.c). Not API: include only from tests. */
#ifndef SKF_SOLVE_COUNTS_H
#define SKF_SOLVE_COUNTS_H

#include <stddef.h>

typedef struct skfi_solve_counts {
    size_t solvers;        /* skf_solver_new calls that returned a solver */
    size_t clips;          /* skf_solver_clip calls */
    size_t frame_sets;     /* skf_solver_frames calls */
    size_t frames;         /* skf_solver_frame calls */
    size_t rotonly_frames; /* skf_rotonly_frame calls */
} skfi_solve_counts;

void skfi_solve_counts_get(skfi_solve_counts *out);

#endif
