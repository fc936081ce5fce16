// OpenMP's API, from the libgomp oneDNN runs on (CMakeLists.txt says why it
// is linked directly rather than through a compiler's omp.h and -fopenmp).
#pragma once

extern "C" {
void omp_set_num_threads(int num_threads);
int omp_get_max_threads(void);
}
