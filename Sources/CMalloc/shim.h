#ifndef SEARCHLIGHT_CMALLOC_SHIM_H
#define SEARCHLIGHT_CMALLOC_SHIM_H
// glibc's allocator settings (mallopt), which Swift's Glibc module leaves out: the command-line
// tool fixes the mmap threshold so that large buffers do not fragment the heap.
// https://man7.org/linux/man-pages/man3/mallopt.3.html
#include <malloc.h>
#endif
