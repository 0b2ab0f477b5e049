// GCC 12.2 (Debian 12.2.0-14) miscompiles this at -O3 -mavx2 (or -march=native): prints 12.0766
// instead of 13.137. The second loop's conditional read of C becomes vmaskmovpd loads that all use
// the mask of the first vector. Correct at -O2, with -fno-tree-loop-if-convert, and with clang.
//   g++ -O3 -mavx2 gcc12-masked-load-where.cpp && ./a.out
// Found by react-fuzz (gcc12-masked-load-where.txt); not built by the project.
#include <cstdio>
#include <vector>
__attribute__((noinline)) double f(const double* C) {
  std::vector<double> T0(12), T1(12);
  for (long i = 0; i < 4; ++i) for (long j = 0; j < 3; ++j) T0[i * 3 + j] = (C[i * 3 + j] <= 1.0 ? 1.0 : 0.0);
  for (long i = 0; i < 4; ++i) for (long j = 0; j < 3; ++j) T1[i * 3 + j] = (T0[i * 3 + j] != 0.0 ? 1.0 : C[i * 3 + j]);
  double acc = 0;
  for (long i = 0; i < 4; ++i) for (long j = 0; j < 3; ++j) acc += T1[i * 3 + j];
  for (int k = 0; k < 12; ++k) printf("%g/%g ", T0[k], T1[k]);
  printf("\n");
  return acc;
}
int main() {
  double c[12] = {1.2641245415647817, 0.6008678756950157, 0.6725572114286568, 1.473949882477155, 0.7557582661218956, 0.6599077449551868, 0.8661142884865658, 0.5023995333073685, 1.030402205372173, 1.0604318001951647, 0.7911978531342317, 1.3080871538107948};
  printf("%.10g\n", f(c));
}
