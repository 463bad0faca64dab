// Declarations only (CFuzzer.h); the driver comes from libFuzzer.
#include "CFuzzer.h"
