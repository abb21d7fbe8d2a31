/* The vision library implements the C API of mbx_vision.h (target CVisionAPI)
 * with OpenCV. Plugins link it; the host loads it as libMatteboxCVision.so
 * through CVisionLoader. */
#include "mbx_vision.h"
