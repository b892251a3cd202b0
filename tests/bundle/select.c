/* The selection of a bundle's entry, compiled with the host's C compiler alone (no CUDA) against
   a bundle made from tests/bundle/fake_gpus.py's synthetic GPUs (H100, H200: 9.0, 132 SMs; A100:
   8.0, 108 SMs), asked for GPU descriptions that were tuned and some that never were.
   cc -DKERNEL=filter21 -DPORTABLE='"v..."' -I BUNDLE_DIR tests/bundle/select.c
   Prints one line per description; ends with "select: N passed, N failed". */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define STR_(a) #a
#define STR(a) STR_(a)
#include STR(CAT(KERNEL, _bundle.h))

#define ENTRIES CAT(KERNEL, _bundle_entries)
#define SELECT CAT(KERNEL, _bundle_select)

static int pass, fail;

/* select for gpu; the entry must be of rule and, unless NULL, of GPU want (the portable default:
   of variant PORTABLE), and the reason must hold say */
static void check(const char *name, int major, int minor, int sms, enum tuner_rule rule,
                  const char *want, const char *say)
{
	struct tuner_gpu g = {name, major, minor, sms};
	struct tuner_choice c;
	int e = SELECT(&g, &c), ok;

	ok = e == c.entry && e >= 0 && c.rule == rule && strstr(c.reason, say) != NULL;
	if (ok && rule == TUNER_PORTABLE)
		ok = ENTRIES[e].gpu == NULL && !strcmp(ENTRIES[e].id, PORTABLE);
	else if (ok)
		ok = ENTRIES[e].gpu != NULL && !strcmp(ENTRIES[e].gpu, want);
	printf("%s %s %d.%d, %d SMs -> entry %d (%s): %s\n", ok ? "ok  " : "FAIL", name, major,
	       minor, sms, e, e >= 0 && ENTRIES[e].gpu ? ENTRIES[e].gpu : "portable", c.reason);
	ok ? pass++ : fail++;
}

int main(void)
{
	const char *h100 = "NVIDIA H100 80GB HBM3", *h200 = "NVIDIA H200";
	const char *a100 = "NVIDIA A100-SXM4-80GB";

	check(h100, 9, 0, 132, TUNER_EXACT, h100, "exact GPU NVIDIA H100 80GB HBM3");
	check(h200, 9, 0, 132, TUNER_EXACT, h200, "exact GPU NVIDIA H200");
	check(a100, 8, 0, 108, TUNER_EXACT, a100, "exact GPU");
	/* the same compute capability: the nearest multiprocessor count, the first of a tie */
	check("NVIDIA H100 PCIe", 9, 0, 114, TUNER_SAME_CC, h100, "same compute capability 9.0");
	check("NVIDIA A100-PCIE-40GB", 8, 0, 108, TUNER_SAME_CC, a100, "as NVIDIA A100");
	/* never tuned, newer: the nearest lower compute capability */
	check("NVIDIA A10", 8, 6, 72, TUNER_LOWER_CC, a100, "nearest lower compute capability 8.0");
	check("NVIDIA L40S", 8, 9, 142, TUNER_LOWER_CC, a100, "to 8.9");
	check("NVIDIA B200", 10, 0, 148, TUNER_LOWER_CC, h100,
	      "nearest lower compute capability 9.0");
	check("NVIDIA GeForce RTX 5090", 12, 0, 170, TUNER_LOWER_CC, h100, "9.0");
	/* never tuned, older than every tuned GPU: the portable default */
	check("Tesla T4", 7, 5, 40, TUNER_PORTABLE, NULL, "portable default");
	check("Tesla V100-SXM2-16GB", 7, 0, 80, TUNER_PORTABLE, NULL, "worst ratio");
	check("", 0, 0, 0, TUNER_PORTABLE, NULL, "portable default");
	printf("select: %d passed, %d failed\n", pass, fail);
	return fail != 0;
}
