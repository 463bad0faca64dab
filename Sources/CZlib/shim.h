#ifndef SEARCHLIGHT_CZLIB_SHIM_H
#define SEARCHLIGHT_CZLIB_SHIM_H
// zlib reads gzip-compressed documents (Debian's changelog.Debian.gz, README.gz).
// https://zlib.net/manual.html
#include <zlib.h>
#endif
