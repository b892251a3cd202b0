#!/usr/bin/env python3
"""PyTorch baselines for bench/compare/compare.cu, timed with the same method: CUDA events around each
call, warm-up first, median of SAMPLES samples, the L2 flushed before each by reading a buffer of
3 x L2 bytes. Lines:
  copy.torch        dst.copy_(src), 256 MiB each way (the process's own copy roofline)
  filter21.cudnn    F.conv1d (cuDNN, fp32: TF32 off) of 2^26 + 20 floats with the 21 taps
  transpose.torch   x.t().contiguous() of an 8192 x 8192 float matrix
Output: "check ..." lines and "time NAME BYTES MEDIAN_MS MIN_MS SPREAD GB/s" lines, as compare.
"""
import sys

import torch
import torch.nn.functional as F

WARMUP, SAMPLES = 3, 50
COEF = [-0.0019728, -0.0031318, 0.0002438, 0.0108729, 0.0150697, -0.0092899,
        -0.0501733, -0.0437475, 0.0652666, 0.2393250, 0.3549006, 0.3178545,
        0.1611306, 0.0084351, -0.0509532, -0.0302688, 0.0036315, 0.0123846,
        0.0045787, -0.0015188, -0.0026375]  # as configs/filter21.yaml
failures = 0


def main():
    global failures
    dev = torch.device("cuda")
    prop = torch.cuda.get_device_properties(dev)
    l2 = getattr(prop, "L2_cache_size", 50 << 20)
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    print("torch_compare: torch %s, cuDNN %s, %s" % (torch.__version__,
                                                     torch.backends.cudnn.version(), prop.name))
    flush = torch.rand(max(3 * l2, 128 << 20) // 4, device=dev)
    sink = torch.empty((), device=dev)
    sleep = getattr(torch.cuda, "_sleep", None)

    def time_it(fn):
        for _ in range(WARMUP):
            fn()
        evs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
               for _ in range(SAMPLES)]
        for s, e in evs:
            torch.sum(flush, dim=0, out=sink)
            if sleep:  # the GPU waits while Python queues the call: no host gap is timed
                sleep(200000)
            s.record()
            fn()
            e.record()
        torch.cuda.synchronize()
        ms = sorted(s.elapsed_time(e) for s, e in evs)

        def q(p):
            pos = p * (len(ms) - 1)
            i = int(pos)
            return ms[-1] if i >= len(ms) - 1 else ms[i] + (pos - i) * (ms[i + 1] - ms[i])
        return q(0.5), ms[0], (q(0.9) - q(0.1)) / q(0.5)

    def report(name, nbytes, t):
        med, mn, spread = t
        print("time %-16s %12.0f %10.4f %10.4f %6.1f%% %9.1f" % (name, nbytes, med, mn,
                                                               100 * spread, nbytes / (med * 1e6)))
        sys.stdout.flush()

    def check(ok, what, detail):
        global failures
        print("check %-44s %s (%s)" % (what, "ok" if ok else "FAIL", detail))
        if not ok:
            failures += 1

    print("time %-16s %12s %10s %10s %7s %9s" % ("name", "bytes", "median_ms", "min_ms",
                                                 "spread", "GB/s"))
    # copy
    each = 256 << 20
    src = torch.rand(each // 4, device=dev)
    dst = torch.empty_like(src)
    report("copy.torch", 2 * each, time_it(lambda: dst.copy_(src)))
    check(torch.equal(dst, src), "torch copy copied", "%d floats" % src.numel())
    del src, dst

    # filter21 through cuDNN
    n = 1 << 26
    x = (torch.rand(n + 20, device=dev) * 2 - 1).view(1, 1, n + 20)
    w = torch.tensor(COEF, device=dev, dtype=torch.float32).view(1, 1, 21)
    y = F.conv1d(x, w)
    want = F.conv1d(x.double(), w.double()).float()
    err = (y - want).abs()
    bad = int((err > 1e-5 + 1e-5 * want.abs()).sum())
    check(bad == 0 and y.shape[-1] == n, "cuDNN conv1d vs fp64 conv1d at 2^26",
          "%d bad, max err %.2g" % (bad, float(err.max())))
    del want, err
    report("filter21.cudnn", 8 * n + 80, time_it(lambda: F.conv1d(x, w)))
    del x, y

    # transpose
    a = torch.rand(8192, 8192, device=dev) * 2 - 1
    t = a.t().contiguous()
    check(torch.equal(t, a.t()) and t.is_contiguous(), "torch transpose at 8192^2", "exact")
    del t
    report("transpose.torch", 8 * a.numel(), time_it(lambda: a.t().contiguous()))
    print("torch_compare: %d check(s) failed" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
