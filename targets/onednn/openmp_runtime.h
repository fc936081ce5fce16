// OpenMP's API, from the libgomp oneDNN runs on (CMakeLists.txt says why it
// is linked directly rather than through a compiler's omp.h and -fopenmp).
#pragma once

extern "C" {
void omp_set_num_threads(int num_threads);
int omp_get_max_threads(void);
int omp_get_num_threads(void);
int omp_get_thread_num(void);
/// What `#pragma omp parallel` compiles to under GCC: `fn(data)` on each
/// thread of a team (num_threads 0: the runtime's count).
void GOMP_parallel(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags);
}
