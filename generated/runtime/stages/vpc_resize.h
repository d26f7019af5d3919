// vpc_resize (stages/vpc_resize.j2): its helpers are the DVPP descriptors every VPC kind shares
// (ascgen_dvpp.h: pictures over a pool's slots, ROIs, the resize configuration); this header
// brings them into the programs that have such a stage.
// Emitted verbatim by ascgen into the programs that have such a stage; hand-written, reviewed once.
#ifndef ASCGEN_STAGES_VPC_RESIZE_H_
#define ASCGEN_STAGES_VPC_RESIZE_H_

#include "ascgen_dvpp.h"

#endif  // ASCGEN_STAGES_VPC_RESIZE_H_
