// libFuzzer target: a whole usi session (see fuzz_loop.h).
#include "fuzz_loop.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    return fuzz_session("usi", data, size);
}
