/* Echo's stand-in for CUDA's device_launch_parameters.h: the prelude already declares
 * threadIdx and the rest. */
