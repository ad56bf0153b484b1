// Include this instead of <catch2/catch.hpp> in tests that use torch: torch's
// logging header defines CHECK (an abort), which must not replace Catch's
// CHECK. Torch first, then Catch's definitions win.
#pragma once

#include <torch/script.h>
#undef CHECK
#include <catch2/catch.hpp>
