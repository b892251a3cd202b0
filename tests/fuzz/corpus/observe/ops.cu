#if (B ? 1 << B : X) % 3 > 0x10 || 0b11 == C
#elif ~A & 7 ^ 2 | -C
#endif
#if 12 / (B - 4) && true
#endif
