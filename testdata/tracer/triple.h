/* triple: the kernel of the tracer's loop programs, a host function the emulator runs
 * (register it with emuRegisterKernel). Include after cuda_emulator.h. */
#ifndef ECHO_TESTDATA_TRACER_TRIPLE_H
#define ECHO_TESTDATA_TRACER_TRIPLE_H

static void triple(dim3 grid, dim3 block, void **args)
{
	(void)grid;
	(void)block;
	const uint32_t *in = *(const uint32_t **)args[0];
	uint32_t *out = *(uint32_t **)args[1];
	size_t n = *(size_t *)args[2];
	for (size_t i = 0; i < n; i++)
		out[i] = in[i] * 3 + 1;
}

#endif
