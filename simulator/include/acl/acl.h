// ascgen AscendCL simulator: umbrella header (acl/acl.h).
//
// Like CANN's acl.h it pulls in the runtime and model APIs.
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_base.h"
#include "acl_rt.h"

#if defined(__has_include)
#if __has_include("acl_mdl.h")
#include "acl_mdl.h"
#endif
#else
#include "acl_mdl.h"
#endif

#endif  // INC_EXTERNAL_ACL_ACL_H_
