// Deterministic mutation testing of the bundle and property-set readers: a fixed-seed
// stream of corrupted bundles must each be accepted or rejected with
// PI_ERROR_INVALID_BINARY, never crash; what is accepted must write back and re-read.
// (The libFuzzer target in compiler/fuzz explores further where clang is available.)
#include "bundle_test_util.h"

#include <dglink/support/error.h>

#include <gtest/gtest.h>

#include <iterator>
#include <random>

namespace {

using dglink::Bundle;

// Values that sit on the boundaries the reader checks.
const uint64_t Interesting[] = {0,          1,          7,           8,          47,
                                48,         0x7F,       0xFF,        0xFFFF,     0x10000,
                                0x7FFFFFFF, 0xFFFFFFFF, 0x100000000, ~0ull >> 1, ~0ull};

std::vector<uint8_t> mutate(std::vector<uint8_t> Bytes, std::mt19937_64 &Random) {
  const int Mutations = 1 + static_cast<int>(Random() % 3);
  for (int M = 0; M < Mutations && !Bytes.empty(); ++M) {
    const size_t At = Random() % Bytes.size();
    switch (Random() % 6) {
    case 0: // one random byte
      Bytes[At] = static_cast<uint8_t>(Random());
      break;
    case 1: // one flipped bit
      Bytes[At] ^= static_cast<uint8_t>(1u << (Random() % 8));
      break;
    case 2: { // a boundary value in a 32- or 64-bit field, aligned as the records are
      const size_t Width = Random() % 2 ? 4 : 8;
      const size_t Field = At & ~(Width - 1);
      if (Field + Width <= Bytes.size())
        dglink::test::patchLittle(Bytes, Field, Interesting[Random() % std::size(Interesting)],
                                  static_cast<int>(Width));
      break;
    }
    case 3: // truncate
      Bytes.resize(At);
      break;
    case 4: // grow, keeping the size field honest half of the time
      Bytes.resize(Bytes.size() + 1 + Random() % 64, static_cast<uint8_t>(Random()));
      if (Random() % 2 && Bytes.size() >= 48)
        dglink::test::patch64(Bytes, 40, Bytes.size());
      break;
    default: // a byte of a string becomes its terminator, or a terminator a letter
      Bytes[At] = Bytes[At] == 0 ? 'z' : 0;
      break;
    }
  }
  return Bytes;
}

TEST(BundleMutation, CorruptedBundlesAreRejectedOrRoundTrip) {
  const std::vector<uint8_t> Seed = dglink::writeBundle(dglink::test::sampleBundle());
  std::mt19937_64 Random(20261123);
  constexpr int Iterations = 20000;
  int Accepted = 0;
  for (int I = 0; I < Iterations; ++I) {
    const std::vector<uint8_t> Bytes = mutate(Seed, Random);
    Bundle Out;
    const pi_result Result = dglink::readBundle(Bytes.data(), Bytes.size(), Out);
    if (Result != PI_SUCCESS) {
      ASSERT_EQ(Result, PI_ERROR_INVALID_BINARY) << "iteration " << I;
      ASSERT_FALSE(dglink::lastErrorMessage().empty()) << "iteration " << I;
      continue;
    }
    ++Accepted;
    const std::vector<uint8_t> Rewritten = dglink::writeBundle(Out);
    Bundle Again;
    ASSERT_EQ(dglink::readBundle(Rewritten.data(), Rewritten.size(), Again), PI_SUCCESS)
        << "iteration " << I << ": " << dglink::lastErrorMessage();
    ASSERT_EQ(dglink::writeBundle(Again), Rewritten) << "iteration " << I;
  }
  // Some mutations only touch payload bytes: the stream must reach both outcomes.
  EXPECT_GT(Accepted, 0);
  EXPECT_LT(Accepted, Iterations);
}

} // namespace
