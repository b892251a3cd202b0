#if B * C > 30
int x;
#elif defined(A) && (B ? 1 << B : X) > 100
#endif
#if PIPE != 0 && (PIPE != 1 || B == 0)
#error "no"
#endif
