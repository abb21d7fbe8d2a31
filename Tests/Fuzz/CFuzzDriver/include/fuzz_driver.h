/* libFuzzer's entry for programs with their own main (compiler-rt's
 * FuzzerInterface.h). Only the fuzz build (make fuzz, -DFUZZING) calls it;
 * other builds replay files instead and never reference it. */
#ifndef MATTEBOX_FUZZ_DRIVER_H
#define MATTEBOX_FUZZ_DRIVER_H
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif
