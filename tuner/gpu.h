/* gpu: the CUDA driver API, loaded with dlopen so the binary runs without a driver. */
#ifndef TUNER_GPU_H
#define TUNER_GPU_H

#include <stddef.h>
#include <stdint.h>

struct gpu_info {
	char name[256];
	int cc_major, cc_minor;
	int sms;
	int l2_bytes;
	int max_threads;          /* per block */
	int smem_block;           /* per block without opt-in */
	int smem_optin;           /* per block with opt-in */
	int driver_version;       /* e.g. 13000 */
	size_t mem_bytes;
};

/* load libcuda.so.1, init, retain device `ordinal`'s primary context and make it current.
   0 on success; -1 with a reason in why (no library, no device, driver error). */
int gpu_open(int ordinal, struct gpu_info *info, char *why, size_t whylen);
/* "nvidia-h100-80gb-hbm3-sm90": lower-case name, spaces to '-', plus the compute capability */
void gpu_slug(const struct gpu_info *info, char *out, size_t outlen);
/* release the primary context */
void gpu_close(void);

#endif
