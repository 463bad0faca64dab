#ifndef SEARCHLIGHT_CPCRE2_SHIM_H
#define SEARCHLIGHT_CPCRE2_SHIM_H
// pcre2.h requires the code unit width before it is included; Searchlight matches UTF-8.
// https://www.pcre.org/current/doc/html/pcre2api.html#SEC1
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif
