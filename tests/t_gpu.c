/* gpu: without a driver gpu_open fails cleanly; with one, the device looks plausible. */
#include "test.h"

#include "gpu.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

TEST(gpu_open_or_reason)
{
	struct gpu_info info;
	char why[256] = "unset", slug[300];
	int rc = gpu_open(0, &info, why, sizeof why);

	if (rc < 0) {
		CHECK_EQ(rc, -1);
		CHECK(why[0] != 0);
		CHECK(strcmp(why, "unset") != 0);
		CHECK(!gpu_ready());
		/* a second attempt fails the same way and does not crash */
		CHECK_EQ(gpu_open(0, &info, why, sizeof why), -1);
		CHECK(why[0] != 0);
		gpu_close(); /* harmless when nothing is open */
		return;
	}
	CHECK(gpu_ready());
	CHECK(info.name[0] != 0);
	CHECK(info.cc_major >= 3 && info.cc_major < 100);
	CHECK(info.cc_minor >= 0 && info.cc_minor < 10);
	CHECK(info.sms > 0);
	CHECK(info.l2_bytes > 0);
	CHECK(info.max_threads >= 256 && info.max_threads <= 4096);
	CHECK(info.smem_block >= 16384);
	CHECK(info.smem_optin >= info.smem_block);
	CHECK(info.driver_version >= 10000);
	CHECK(info.mem_bytes > ((size_t)1 << 28));
	gpu_slug(&info, slug, sizeof slug);
	CHECK(strstr(slug, "-sm") != NULL);
	gpu_close();
	CHECK(!gpu_ready());
}

TEST(gpu_slug_format)
{
	struct gpu_info info;
	char s[64];

	memset(&info, 0, sizeof info);
	snprintf(info.name, sizeof info.name, "NVIDIA H100 80GB HBM3");
	info.cc_major = 9;
	gpu_slug(&info, s, sizeof s);
	CHECK_STR(s, "nvidia-h100-80gb-hbm3-sm90");
	snprintf(info.name, sizeof info.name, "  NVIDIA GeForce RTX 4090 (Laptop)  ");
	info.cc_major = 8;
	info.cc_minor = 9;
	gpu_slug(&info, s, sizeof s);
	CHECK_STR(s, "nvidia-geforce-rtx-4090-laptop-sm89");
	gpu_slug(&info, s, 12); /* too short: the compute capability survives */
	CHECK_STR(s, "nvidia-sm89");
}

/* the entry of CUDA_VISIBLE_DEVICES a worker narrows it to, in a child (the variable is the
   process's); a process whose driver has started changes nothing */
static int restricted(const char *before, int ordinal, const char *want)
{
	pid_t pid;
	int st;

	fflush(NULL);
	if ((pid = fork()) == 0) {
		const char *v;
		if (before)
			setenv("CUDA_VISIBLE_DEVICES", before, 1);
		else
			unsetenv("CUDA_VISIBLE_DEVICES");
		if (gpu_restrict(ordinal) < 0)
			_exit(want ? 1 : (v = getenv("CUDA_VISIBLE_DEVICES")) && before && strcmp(v, before));
		v = getenv("CUDA_VISIBLE_DEVICES");
		_exit(!want || !v || strcmp(v, want));
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

TEST(gpu_restrict_entry)
{
	struct gpu_info info;
	char why[256];

	if (gpu_started()) { /* an earlier test opened the GPU: too late here */
		CHECK_EQ(gpu_restrict(0), -1);
		return;
	}
	CHECK(restricted(NULL, 2, "2"));
	CHECK(restricted("GPU-1a2b,MIG-3c4d,3", 0, "GPU-1a2b"));
	CHECK(restricted("GPU-1a2b,MIG-3c4d,3", 1, "MIG-3c4d"));
	CHECK(restricted("GPU-1a2b,MIG-3c4d,3", 2, "3"));
	CHECK(restricted("GPU-1a2b,MIG-3c4d,3", 3, NULL));
	CHECK(restricted("0,,1", 1, NULL));
	CHECK(restricted("", 0, NULL));
	CHECK(restricted("1", -1, NULL));
	/* once the driver was asked, too late (here: where there is a driver) */
	if (gpu_probe(0, &info, why, sizeof why) == 0) {
		CHECK(gpu_started());
		CHECK_EQ(gpu_restrict(0), -1);
	}
	gpu_close();
}
