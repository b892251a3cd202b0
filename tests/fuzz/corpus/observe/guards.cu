#if !defined(A) || !defined(B) || !defined(C)
#error "A, B and C must be defined"
#endif
#if A < 0
#error "A must be >= 0"
#endif
#ifndef PIPE
#define PIPE 0
#endif
#if PIPE != 0 && (PIPE != 1 || A == 0 || C != 0)
#error "PIPE"
#endif
#if A == 0
int one; /* " a string */
#else
int many = B;
#endif
