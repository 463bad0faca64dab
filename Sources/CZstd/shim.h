#ifndef SEARCHLIGHT_CZSTD_SHIM_H
#define SEARCHLIGHT_CZSTD_SHIM_H
// zstd compresses stored item records with a dictionary trained once per index file.
// https://facebook.github.io/zstd/zstd_manual.html
#include <zstd.h>
#include <zdict.h>
#endif
