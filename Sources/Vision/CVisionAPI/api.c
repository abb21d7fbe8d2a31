/* The vision library's C API is the header beside this file; this target
 * holds it so that the library (CVision) and the loader that reaches it at
 * run time (CVisionLoader) share one declaration. Nothing to compile here. */
#include "mbx_vision.h"
