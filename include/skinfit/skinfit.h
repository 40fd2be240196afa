/* skinfit.h — umbrella header: every public subsystem header. */
#ifndef SKINFIT_SKINFIT_H
#define SKINFIT_SKINFIT_H
#include "skinfit/base.h"
#include "skinfit/math.h"
#include "skinfit/hash.h"
#include "skinfit/gltf.h"
#include "skinfit/meshseq.h"
#include "skinfit/rig.h"
#include "skinfit/creature.h"
#include "skinfit/solve.h"
#include "skinfit/surface.h"
#include "skinfit/transfer.h"
#include "skinfit/decompose.h"
#include "skinfit/batch.h"
#include "skinfit/image.h"
#include "skinfit/render.h"
#include "skinfit/svg.h"
#endif
