// Creating the CUDA context of a device (the driver's set-up of the device for this process) costs about
// 0.2 s on an H100, the first CUDA call of the process included: the whole time of a small search. Done on a
// thread of its own while a command reads its inputs, the engines' first CUDA calls find it made
// (search/gpu_start.hpp). Holds no CUDA types.
#pragma once

#include <vector>

namespace warpsearch::gpu {

// Creates the primary context of each of devices (every usable device when empty) and returns the seconds
// that took, 0 when there is no usable device. Never throws: a device that fails is left to the engine,
// whose error names it.
double create_contexts(const std::vector<int>& devices);

}  // namespace warpsearch::gpu
