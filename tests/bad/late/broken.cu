// A template that does not compile (tests/bad/late/no_compile.yaml, reference_no_compile.yaml).
extern "C" __global__ void good(float *out, const float *in, int n, long long scale)
{
	out[0] = undeclared * BLOCK + PAD;
}

extern "C" __global__ void good_ref(float *out, const float *in, int n, long long scale)
{
	out[0] = undeclared;
}
