// libFuzzer's driver (https://llvm.org/docs/LibFuzzer.html#using-libfuzzer-as-a-library),
// linked in by -sanitize=fuzzer. SwiftPM links an executable's `main` to `<Module>_main`, so
// each harness defines that entry point and hands the command line to this driver.
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));
