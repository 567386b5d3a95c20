// Streaming-store copies and the bounded pool of host threads that splits large copies.
#include <dglink/stream/host_copy.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define DGLINK_HAVE_STREAMING_STORES 1
#else
#define DGLINK_HAVE_STREAMING_STORES 0
#endif

namespace dglink::stream {
namespace {

// Below this a streamed copy is not worth its fence.
constexpr size_t StreamingMinimum = 256;
constexpr size_t Line = 64;

void relax() {
#if DGLINK_HAVE_STREAMING_STORES
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

#if DGLINK_HAVE_STREAMING_STORES
// Dst 64-byte aligned, Count a multiple of 128.
__attribute__((target("avx"))) void streamAvx(char *Dst, const char *Src, size_t Count) {
  for (size_t I = 0; I < Count; I += 128) {
    const __m256i A = _mm256_loadu_si256(reinterpret_cast<const __m256i_u *>(Src + I));
    const __m256i B = _mm256_loadu_si256(reinterpret_cast<const __m256i_u *>(Src + I + 32));
    const __m256i C = _mm256_loadu_si256(reinterpret_cast<const __m256i_u *>(Src + I + 64));
    const __m256i E = _mm256_loadu_si256(reinterpret_cast<const __m256i_u *>(Src + I + 96));
    _mm256_stream_si256(reinterpret_cast<__m256i *>(Dst + I), A);
    _mm256_stream_si256(reinterpret_cast<__m256i *>(Dst + I + 32), B);
    _mm256_stream_si256(reinterpret_cast<__m256i *>(Dst + I + 64), C);
    _mm256_stream_si256(reinterpret_cast<__m256i *>(Dst + I + 96), E);
  }
}

// Dst 64-byte aligned, Count a multiple of 128.
void streamSse2(char *Dst, const char *Src, size_t Count) {
  for (size_t I = 0; I < Count; I += 64) {
    const __m128i A = _mm_loadu_si128(reinterpret_cast<const __m128i_u *>(Src + I));
    const __m128i B = _mm_loadu_si128(reinterpret_cast<const __m128i_u *>(Src + I + 16));
    const __m128i C = _mm_loadu_si128(reinterpret_cast<const __m128i_u *>(Src + I + 32));
    const __m128i E = _mm_loadu_si128(reinterpret_cast<const __m128i_u *>(Src + I + 48));
    _mm_stream_si128(reinterpret_cast<__m128i *>(Dst + I), A);
    _mm_stream_si128(reinterpret_cast<__m128i *>(Dst + I + 16), B);
    _mm_stream_si128(reinterpret_cast<__m128i *>(Dst + I + 32), C);
    _mm_stream_si128(reinterpret_cast<__m128i *>(Dst + I + 48), E);
  }
}

bool haveAvx() {
  static const bool Avx = __builtin_cpu_supports("avx") != 0;
  return Avx;
}
#endif

} // namespace

const char *nonTemporalKind() {
#if DGLINK_HAVE_STREAMING_STORES
  return haveAvx() ? "avx" : "sse2";
#else
  return "none";
#endif
}

void copyNonTemporal(void *Dst, const void *Src, size_t Count) {
  if (Count == 0) // memcpy's pointers must be valid even for 0 bytes
    return;
  auto *To = static_cast<char *>(Dst);
  const auto *From = static_cast<const char *>(Src);
#if DGLINK_HAVE_STREAMING_STORES
  if (Count >= StreamingMinimum) {
    // Plain stores up to the first whole line, streamed lines, plain stores after the
    // last whole one: no line is written both ways.
    const size_t Head = (Line - reinterpret_cast<uintptr_t>(To) % Line) % Line;
    std::memcpy(To, From, Head);
    To += Head;
    From += Head;
    Count -= Head;
    const size_t Body = Count & ~size_t(127);
    if (haveAvx())
      streamAvx(To, From, Body);
    else
      streamSse2(To, From, Body);
    _mm_sfence(); // the streamed lines reach memory before anyone is told the copy is done
    To += Body;
    From += Body;
    Count -= Body;
  }
#endif
  std::memcpy(To, From, Count);
}

HostCopyPool::HostCopyPool(unsigned TheThreads, unsigned TheSpinMicroseconds)
    : Threads(std::max(TheThreads, 1U)), SpinMicroseconds(TheSpinMicroseconds) {}

HostCopyPool::~HostCopyPool() { stop(); }

void HostCopyPool::runPieces(const Job &J, std::atomic<size_t> &Next) {
  for (;;) {
    const size_t I = Next.fetch_add(1, std::memory_order_relaxed);
    if (I >= J.Pieces)
      return;
    // Piece boundaries on destination lines, so that no line is shared by two threads.
    const auto Base = reinterpret_cast<uintptr_t>(J.Dst);
    auto Boundary = [&](size_t K) {
      if (K == 0)
        return size_t{0};
      const size_t Raw = K * J.Piece;
      const size_t Aligned = ((Base + Raw + Line - 1) & ~uintptr_t(Line - 1)) - Base;
      return std::min(Aligned, J.Count);
    };
    const size_t Begin = Boundary(I);
    const size_t End = I + 1 == J.Pieces ? J.Count : Boundary(I + 1);
    if (End <= Begin)
      continue;
    if (J.NonTemporal)
      copyNonTemporal(J.Dst + Begin, J.Src + Begin, End - Begin);
    else
      std::memcpy(J.Dst + Begin, J.Src + Begin, End - Begin);
  }
}

void PinnedRanges::add(const void *Start, size_t Size) {
  std::unique_lock<std::shared_mutex> Lock(Mutex);
  Ranges[reinterpret_cast<uintptr_t>(Start)] = Size;
  Count.store(Ranges.size(), std::memory_order_release);
}

bool PinnedRanges::remove(const void *Start) {
  std::unique_lock<std::shared_mutex> Lock(Mutex);
  const bool Found = Ranges.erase(reinterpret_cast<uintptr_t>(Start)) != 0;
  Count.store(Ranges.size(), std::memory_order_release);
  return Found;
}

bool PinnedRanges::contains(const void *Host, size_t Size) const {
  // A stale "none" only sends a copy through staging, which works on pinned memory too.
  if (Count.load(std::memory_order_acquire) == 0)
    return false;
  const auto Address = reinterpret_cast<uintptr_t>(Host);
  std::shared_lock<std::shared_mutex> Lock(Mutex);
  auto It = Ranges.upper_bound(Address);
  if (It == Ranges.begin())
    return false;
  --It; // the last range starting at or before Host
  const uintptr_t Offset = Address - It->first;
  return Offset < It->second && Size <= It->second - Offset;
}

void HostCopyPool::copy(void *Dst, const void *Src, size_t Count, size_t MinPiece, bool NonTemporal,
                        unsigned MaxThreads) {
  if (Count == 0)
    return;
  MinPiece = std::max(MinPiece, Line);
  const unsigned Most = MaxThreads != 0 ? std::min(MaxThreads, Threads) : Threads;
  const size_t Wanted = std::min<size_t>(Most, std::max<size_t>(1, Count / MinPiece));
  if (Wanted <= 1) {
    if (NonTemporal)
      copyNonTemporal(Dst, Src, Count);
    else
      std::memcpy(Dst, Src, Count);
    return;
  }
  Job J;
  J.Dst = static_cast<char *>(Dst);
  J.Src = static_cast<const char *>(Src);
  J.Count = Count;
  J.Piece = (((Count + Wanted - 1) / Wanted) + Line - 1) & ~(Line - 1);
  J.Pieces = (Count + J.Piece - 1) / J.Piece;
  J.NonTemporal = NonTemporal;
  if (!Started.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Workers.empty())
      startWorkers();
  }
  Slot *Mine = nullptr;
  for (Slot &S : Slots) {
    bool Free = false;
    if (S.Owned.compare_exchange_strong(Free, true, std::memory_order_acquire)) {
      Mine = &S;
      break;
    }
  }
  if (Mine == nullptr) { // as many large copies at once as slots: this one goes alone
    std::atomic<size_t> Next{0};
    runPieces(J, Next);
    return;
  }
  // No worker reads the counter before the job is posted: every earlier user is out.
  Mine->Next.store(0, std::memory_order_relaxed);
  Mine->Pieces.store(J.Pieces, std::memory_order_relaxed);
  Mine->Posted.store(&J, std::memory_order_seq_cst);
  Generation.fetch_add(1, std::memory_order_seq_cst);
  if (const unsigned Asleep = Sleepers.load(std::memory_order_seq_cst); Asleep != 0) {
    // Wake as many sleepers as the job has pieces for besides the caller's (a read may
    // take 15 threads, a write 8 of the same pool); the caller copies whatever no
    // worker claims.
    const size_t Helpers = J.Pieces - 1;
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Helpers >= Asleep) {
      Wake.notify_all();
    } else {
      for (size_t I = 0; I < Helpers; ++I)
        Wake.notify_one();
    }
  }
  runPieces(J, Mine->Next);
  // No worker enters the job from now on; wait for those inside to finish their pieces.
  Mine->Posted.store(nullptr, std::memory_order_seq_cst);
  for (unsigned Spins = 0; Mine->Users.load(std::memory_order_seq_cst) != 0; ++Spins) {
    if (Spins < 4096)
      relax();
    else
      std::this_thread::yield();
  }
  Mine->Owned.store(false, std::memory_order_release);
}

void HostCopyPool::startWorkers() {
  Stopping.store(false, std::memory_order_seq_cst);
  for (unsigned I = 1; I < Threads; ++I)
    Workers.emplace_back([this] { work(); });
  Started.store(true, std::memory_order_release);
}

void HostCopyPool::stop() {
  std::vector<std::thread> Joining;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stopping.store(true, std::memory_order_seq_cst);
    Generation.fetch_add(1, std::memory_order_seq_cst);
    Wake.notify_all();
    Joining.swap(Workers);
    Started.store(false, std::memory_order_release);
  }
  for (std::thread &T : Joining)
    T.join();
}

unsigned HostCopyPool::runningWorkers() {
  std::lock_guard<std::mutex> Lock(Mutex);
  return static_cast<unsigned>(Workers.size());
}

void HostCopyPool::work() {
  using Clock = std::chrono::steady_clock;
  for (;;) {
    // Read before looking at the slots: a job posted after the look changes it.
    const uint64_t Seen = Generation.load(std::memory_order_seq_cst);
    bool Worked = false;
    for (Slot &S : Slots) {
      // Reads only: a slot with no job, or a job whose pieces are all claimed (its owner
      // finishing the last ones), is passed without a write to its lines.
      if (S.Posted.load(std::memory_order_relaxed) == nullptr || exhausted(S))
        continue;
      S.Users.fetch_add(1, std::memory_order_seq_cst);
      const Job *J = S.Posted.load(std::memory_order_seq_cst);
      if (J != nullptr && !exhausted(S)) {
        runPieces(*J, S.Next);
        Worked = true;
      }
      // The last touch of the job: its owner may return once every user is out.
      S.Users.fetch_sub(1, std::memory_order_seq_cst);
    }
    if (Worked)
      continue;
    if (Stopping.load(std::memory_order_seq_cst))
      return;
    // Nothing to do: spin a little for the next job, then sleep.
    const Clock::time_point Deadline = Clock::now() + std::chrono::microseconds(SpinMicroseconds);
    bool Posted = false;
    for (unsigned Spins = 0;; ++Spins) {
      if (Generation.load(std::memory_order_acquire) != Seen) {
        Posted = true;
        break;
      }
      if (Spins % 64 == 0 && Clock::now() >= Deadline)
        break;
      relax();
    }
    if (Posted)
      continue;
    std::unique_lock<std::mutex> Lock(Mutex);
    Sleepers.fetch_add(1, std::memory_order_seq_cst);
    Wake.wait(Lock, [&] {
      return Stopping.load(std::memory_order_seq_cst) ||
             Generation.load(std::memory_order_seq_cst) != Seen;
    });
    Sleepers.fetch_sub(1, std::memory_order_seq_cst);
  }
}

} // namespace dglink::stream
