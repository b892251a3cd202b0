/* gpu: without a driver gpu_open fails cleanly; with one, the device looks plausible. */
#include "test.h"

#include "gpu.h"

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
