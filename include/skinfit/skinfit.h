/* skinfit.h — umbrella header: every public subsystem header. */
#ifndef SKINFIT_SKINFIT_H
#define SKINFIT_SKINFIT_H
#include "skinfit/base.h"
#include "skinfit/math.h"
#include "skinfit/gltf.h"
#include "skinfit/meshseq.h"
#endif
