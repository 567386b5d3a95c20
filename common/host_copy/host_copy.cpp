// Streaming-store copies and the bounded pool of host threads that splits large copies,
// each caller handing its job to idle workers it picks itself.
#include <dglink/host_copy/host_copy.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define DGLINK_HAVE_STREAMING_STORES 1
#else
#define DGLINK_HAVE_STREAMING_STORES 0
#endif

namespace dglink::host_copy {
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

HostCopyPool::HostCopyPool(unsigned TheThreads, unsigned TheSpinMicroseconds,
                           unsigned ShareWindowMicroseconds)
    : Threads(std::max(TheThreads, 1U)), SpinMicroseconds(TheSpinMicroseconds),
      ShareWindowNanoseconds(uint64_t{ShareWindowMicroseconds} * 1000), WorkerCount(Threads - 1),
      Words((WorkerCount + WordBits - 1) / WordBits),
      // At least one of each: a pool of one thread has no worker, and an empty array of
      // an over-aligned type leaves only a pointer one past its allocation (LeakSanitizer
      // took a process-lifetime pool's for a leak).
      Mailboxes(new Mailbox[std::max(WorkerCount, 1U)]), Idle(new WorkerBits[std::max(Words, 1U)]),
      Awake(new WorkerBits[std::max(Words, 1U)]) {}

HostCopyPool::~HostCopyPool() { stop(); }

unsigned HostCopyPool::fairShare(unsigned Wanted, unsigned PoolThreads, unsigned Callers) {
  const unsigned Share = std::max(PoolThreads / std::max(Callers, 1U), 1U);
  return std::min(Wanted, Share) - 1;
}

namespace {

// The calling thread's bit in the recent-caller sets: threads take bits in the order
// they first copy with workers (the 65th shares the first's).
uint64_t callerBit() {
  static std::atomic<unsigned> NextBit{0};
  thread_local const uint64_t Bit = uint64_t{1}
                                    << (NextBit.fetch_add(1, std::memory_order_relaxed) % 64);
  return Bit;
}

uint64_t steadyNanoseconds() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

} // namespace

unsigned HostCopyPool::noteCaller() {
  const uint64_t Now = steadyNanoseconds() / ShareWindowNanoseconds;
  uint64_t Seen = Recent.Epoch.load(std::memory_order_acquire);
  if (Seen < Now && Recent.Epoch.compare_exchange_strong(Seen, Now, std::memory_order_acq_rel)) {
    // A new window: its word held the window before the last; both words are stale
    // when more than one window passed without a copy. A thread that marked itself in
    // a word just cleared is missed for this window only.
    Recent.Bits[Now & 1].store(0, std::memory_order_relaxed);
    if (Now != Seen + 1)
      Recent.Bits[(Now + 1) & 1].store(0, std::memory_order_relaxed);
  }
  std::atomic<uint64_t> &Mine = Recent.Bits[Now & 1];
  const uint64_t Bit = callerBit();
  // Written only when not yet marked: callers that copy again read the line, not own it.
  if ((Mine.load(std::memory_order_relaxed) & Bit) == 0)
    Mine.fetch_or(Bit, std::memory_order_relaxed);
  return static_cast<unsigned>(
      __builtin_popcountll(Recent.Bits[0].load(std::memory_order_relaxed) |
                           Recent.Bits[1].load(std::memory_order_relaxed)));
}

unsigned HostCopyPool::recentCallers() const {
  if (ShareWindowNanoseconds == 0)
    return 0;
  const uint64_t Now = steadyNanoseconds() / ShareWindowNanoseconds;
  const uint64_t Epoch = Recent.Epoch.load(std::memory_order_acquire);
  if (Epoch + 1 < Now)
    return 0; // no copy in the last two windows
  const uint64_t Current = Recent.Bits[Epoch & 1].load(std::memory_order_relaxed);
  const uint64_t Before =
      Epoch + 1 == Now ? 0 : Recent.Bits[(Epoch + 1) & 1].load(std::memory_order_relaxed);
  return static_cast<unsigned>(__builtin_popcountll(Current | Before));
}

size_t HostCopyPool::pieceBegin(const Job &J, size_t K) {
  if (K == 0)
    return 0;
  if (K >= J.Pieces)
    return J.Count;
  // Piece boundaries on destination lines, so that no line is shared by two threads.
  const auto Base = reinterpret_cast<uintptr_t>(J.Dst);
  const size_t Raw = K * J.Piece;
  const size_t Aligned = ((Base + Raw + Line - 1) & ~uintptr_t(Line - 1)) - Base;
  return std::min(Aligned, J.Count);
}

void HostCopyPool::copyPiece(Job &J, size_t I) {
  const size_t Begin = pieceBegin(J, I);
  const size_t End = pieceBegin(J, I + 1);
  if (J.Paced) {
    // The owner opens the source as it lands; a halted job copies nothing more.
    for (unsigned Spins = 0;; ++Spins) {
      if (J.Halted.load(std::memory_order_acquire))
        return;
      if (J.Ready.load(std::memory_order_acquire) >= End)
        break;
      if (Spins < 4096)
        relax();
      else
        std::this_thread::yield();
    }
  }
  if (End > Begin) {
    if (J.NonTemporal)
      copyNonTemporal(J.Dst + Begin, J.Src + Begin, End - Begin); // fenced
    else
      std::memcpy(J.Dst + Begin, J.Src + Begin, End - Begin);
  }
  if (J.Paced) // after the copy (and its fence): the owner may hand the bytes on
    J.Copied[I / 64].fetch_or(uint64_t{1} << (I % 64), std::memory_order_release);
}

void HostCopyPool::runPieces(Job &J) {
  for (;;) {
    const size_t I = J.Next.fetch_add(1, std::memory_order_relaxed);
    if (I >= J.Pieces)
      return;
    copyPiece(J, I);
  }
}

bool HostCopyPool::copyReadyPiece(Job &J) {
  size_t I = J.Next.load(std::memory_order_relaxed);
  if (I >= J.Pieces || pieceBegin(J, I + 1) > J.Ready.load(std::memory_order_relaxed))
    return false;
  // Another thread may take it first: then there is still work, just not this piece.
  if (J.Next.compare_exchange_strong(I, I + 1, std::memory_order_relaxed))
    copyPiece(J, I);
  return true;
}

size_t HostCopyPool::copiedPrefix(const Job &J) {
  size_t Done = 0;
  for (const std::atomic<uint64_t> &Word : J.Copied) {
    const uint64_t Bits = Word.load(std::memory_order_acquire);
    if (Bits == ~uint64_t{0}) {
      Done += 64;
      continue;
    }
    Done += static_cast<size_t>(__builtin_ctzll(~Bits));
    break;
  }
  return pieceBegin(J, std::min(Done, J.Pieces));
}

unsigned HostCopyPool::claim(unsigned Wanted, unsigned *Chosen) {
  unsigned Got = 0;
  // Workers still spinning take a job at once; a sleeping one costs a wake-up.
  for (const bool AwakeOnly : {true, false})
    for (unsigned W = 0; W < Words && Got < Wanted; ++W) {
      std::atomic<uint64_t> &Set = Idle[W].Bits;
      uint64_t Free = Set.load(std::memory_order_relaxed);
      while (Got < Wanted) {
        uint64_t Candidates = Free;
        if (AwakeOnly)
          Candidates &= Awake[W].Bits.load(std::memory_order_relaxed);
        if (Candidates == 0)
          break;
        // The lowest first: the same few workers stay warm while the others sleep.
        uint64_t Take = 0;
        for (unsigned N = Got; N < Wanted && Candidates != 0; ++N) {
          const uint64_t Lowest = Candidates & (~Candidates + 1);
          Take |= Lowest;
          Candidates ^= Lowest;
        }
        if (!Set.compare_exchange_weak(Free, Free & ~Take, std::memory_order_acquire,
                                       std::memory_order_relaxed))
          continue; // Free holds the set as it is now
        Free &= ~Take;
        for (; Take != 0; Take &= Take - 1)
          Chosen[Got++] = W * WordBits + static_cast<unsigned>(__builtin_ctzll(Take));
      }
    }
  return Got;
}

void HostCopyPool::release(unsigned Worker) {
  Idle[Worker / WordBits].Bits.fetch_or(uint64_t{1} << (Worker % WordBits),
                                        std::memory_order_release);
}

void HostCopyPool::post(const unsigned *Chosen, unsigned Helpers, Job &J) {
  // Every mailbox first: the workers that spin start at once.
  for (unsigned I = 0; I < Helpers; ++I)
    Mailboxes[Chosen[I]].Mail.store(&J, std::memory_order_seq_cst);
  // Then the sleepers, each a system call of the caller's. With the worker's store to
  // Sleeping and its look at Mail under its mutex (both sequentially consistent): either
  // it sees the job before it waits, or this sees it asleep and wakes it. None once
  // every piece is claimed: the owner takes the job back from those still asleep.
  for (unsigned I = 0; I < Helpers; ++I) {
    if (J.Next.load(std::memory_order_relaxed) >= J.Pieces)
      return;
    Mailbox &Box = Mailboxes[Chosen[I]];
    if (Box.Sleeping.load(std::memory_order_seq_cst)) {
      std::lock_guard<std::mutex> Lock(Box.Mutex);
      Box.Wake.notify_one();
    }
  }
}

unsigned HostCopyPool::enlist(Job &J, size_t Wanted, unsigned *Chosen) {
  if (!Started.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Workers.empty())
      startWorkers();
  }
  const unsigned Inside = Callers.Value.fetch_add(1, std::memory_order_relaxed) + 1;
  const unsigned Present = ShareWindowNanoseconds != 0 ? std::max(Inside, noteCaller()) : Inside;
  const unsigned Share = fairShare(static_cast<unsigned>(Wanted), Threads, Present);
  const unsigned Helpers = claim(std::min(Share, MostHelpers), Chosen);
  J.Left.store(Helpers, std::memory_order_relaxed);
  post(Chosen, Helpers, J);
  return Helpers;
}

void HostCopyPool::dismiss(Job &J, const unsigned *Chosen, unsigned Helpers) {
  if (J.Left.load(std::memory_order_acquire) != 0) {
    // Every piece is claimed: a helper that has not picked the job up yet (asleep, or
    // not scheduled) is not waited for; the job is taken back from its mailbox.
    unsigned TakenBack = 0;
    for (unsigned I = 0; I < Helpers; ++I) {
      Job *Expected = &J;
      if (Mailboxes[Chosen[I]].Mail.compare_exchange_strong(Expected, nullptr,
                                                            std::memory_order_acq_rel)) {
        ++TakenBack;
        release(Chosen[I]);
      }
    }
    if (TakenBack != 0)
      J.Left.fetch_sub(TakenBack, std::memory_order_relaxed);
    // The helpers that took the job finish the pieces they hold.
    for (unsigned Spins = 0; J.Left.load(std::memory_order_acquire) != 0; ++Spins) {
      if (Spins < 4096)
        relax();
      else
        std::this_thread::yield();
    }
  }
  Callers.Value.fetch_sub(1, std::memory_order_relaxed);
}

unsigned HostCopyPool::copy(void *Dst, const void *Src, size_t Count, size_t MinPiece,
                            bool NonTemporal, unsigned MaxThreads) {
  if (Count == 0)
    return 0;
  MinPiece = std::max(MinPiece, Line);
  const unsigned Most = MaxThreads != 0 ? std::min(MaxThreads, Threads) : Threads;
  const size_t Wanted = std::min<size_t>(Most, std::max<size_t>(1, Count / MinPiece));
  if (Wanted <= 1) {
    if (NonTemporal)
      copyNonTemporal(Dst, Src, Count);
    else
      std::memcpy(Dst, Src, Count);
    return 0;
  }
  Job J;
  J.Dst = static_cast<char *>(Dst);
  J.Src = static_cast<const char *>(Src);
  J.Count = Count;
  J.Piece = (((Count + Wanted - 1) / Wanted) + Line - 1) & ~(Line - 1);
  J.Pieces = (Count + J.Piece - 1) / J.Piece;
  J.NonTemporal = NonTemporal;
  unsigned Chosen[MostHelpers];
  const unsigned Helpers = enlist(J, Wanted, Chosen);
  runPieces(J);
  dismiss(J, Chosen, Helpers);
  return Helpers;
}

unsigned HostCopyPool::copyPaced(void *Dst, const void *Src, size_t Count, size_t PieceBytes,
                                 bool NonTemporal, unsigned MaxThreads,
                                 const std::function<size_t(size_t Copied)> &Progress) {
  size_t Ready = Progress(0);
  if (Count == 0 || Ready == Stop)
    return 0;
  Job J;
  J.Dst = static_cast<char *>(Dst);
  J.Src = static_cast<const char *>(Src);
  J.Count = Count;
  const size_t Least = (Count + MaxPacedPieces - 1) / MaxPacedPieces;
  // Never above the copy (a huge PieceBytes would wrap when rounded up to lines).
  const size_t Wanted = std::min(std::max({PieceBytes, Least, Line}), Count);
  J.Piece = (Wanted + Line - 1) & ~(Line - 1);
  J.Pieces = (Count + J.Piece - 1) / J.Piece;
  J.NonTemporal = NonTemporal;
  J.Paced = true;
  J.Ready.store(std::min(Ready, Count), std::memory_order_relaxed);
  const unsigned Most = MaxThreads != 0 ? std::min(MaxThreads, Threads) : Threads;
  unsigned Chosen[MostHelpers];
  // Workers only where there is more than one piece (Wanted counts the caller).
  const bool Shared = Most > 1 && J.Pieces > 1;
  const unsigned Helpers = Shared ? enlist(J, std::min<size_t>(Most, J.Pieces), Chosen) : 0;
  auto Halt = [&] {
    J.Halted.store(true, std::memory_order_release);
    runPieces(J); // claims what is left, copying none of it
  };
  size_t Copied = 0;
  try {
    for (unsigned Waits = 0;;) {
      const size_t Now = copiedPrefix(J);
      // Asked again whenever more is copied, and while the source is still landing.
      if (Now != Copied || Ready < Count) {
        Copied = Now;
        Ready = Progress(Copied);
        if (Ready == Stop) {
          Halt();
          break;
        }
        if (Ready > J.Ready.load(std::memory_order_relaxed))
          J.Ready.store(std::min(Ready, Count), std::memory_order_release);
      }
      if (Copied >= Count)
        break;
      if (copyReadyPiece(J)) {
        Waits = 0;
      } else if (++Waits < 4096) {
        relax();
      } else {
        std::this_thread::yield(); // helpers hold the rest: let them run
      }
    }
  } catch (...) {
    // The job lives in this frame: no helper may touch it once the exception leaves.
    Halt();
    if (Shared)
      dismiss(J, Chosen, Helpers);
    throw;
  }
  if (Shared)
    dismiss(J, Chosen, Helpers);
  return Helpers;
}

void HostCopyPool::startWorkers() {
  Stopping.store(false, std::memory_order_seq_cst);
  // Every worker idle and awake from the start: one handed a job before its thread runs
  // finds the job in its mailbox when it does.
  for (unsigned W = 0; W < Words; ++W) {
    const unsigned InWord = std::min(WorkerCount - W * WordBits, WordBits);
    const uint64_t All = InWord == WordBits ? ~uint64_t{0} : (uint64_t{1} << InWord) - 1;
    Awake[W].Bits.store(All, std::memory_order_relaxed);
    Idle[W].Bits.store(All, std::memory_order_release);
  }
  for (unsigned I = 0; I < WorkerCount; ++I) {
    Mailboxes[I].Mail.store(nullptr, std::memory_order_relaxed);
    Mailboxes[I].Sleeping.store(false, std::memory_order_relaxed);
  }
  for (unsigned I = 0; I < WorkerCount; ++I)
    Workers.emplace_back([this, I] { work(I); });
  Started.store(true, std::memory_order_release);
}

void HostCopyPool::stop() {
  std::vector<std::thread> Joining;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stopping.store(true, std::memory_order_seq_cst);
    for (unsigned I = 0; I < static_cast<unsigned>(Workers.size()); ++I) {
      std::lock_guard<std::mutex> Sleep(Mailboxes[I].Mutex);
      Mailboxes[I].Wake.notify_one();
    }
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

void HostCopyPool::work(unsigned Index) {
  using Clock = std::chrono::steady_clock;
  Mailbox &Box = Mailboxes[Index];
  std::atomic<uint64_t> &AwakeWord = Awake[Index / WordBits].Bits;
  const uint64_t Bit = uint64_t{1} << (Index % WordBits);
  for (;;) {
    if (Box.Mail.load(std::memory_order_acquire) != nullptr) {
      // Taken, unless the owner took it back first (it had copied every piece).
      if (Job *J = Box.Mail.exchange(nullptr, std::memory_order_acq_rel); J != nullptr) {
        runPieces(*J);
        // Idle again before the owner returns (its next copy finds every helper free);
        // a job posted now waits in the mailbox until this one is left.
        release(Index);
        // The last touch of the job: its owner may return once every helper is out.
        J->Left.fetch_sub(1, std::memory_order_release);
      }
      continue;
    }
    if (Stopping.load(std::memory_order_acquire))
      return;
    // Nothing to do: spin on the mailbox a little for the next job, then sleep.
    const Clock::time_point Deadline = Clock::now() + std::chrono::microseconds(SpinMicroseconds);
    bool Posted = false;
    for (unsigned Spins = 0;; ++Spins) {
      if (Box.Mail.load(std::memory_order_acquire) != nullptr) {
        Posted = true;
        break;
      }
      if (Spins % 64 == 0 && (Clock::now() >= Deadline || Stopping.load(std::memory_order_relaxed)))
        break;
      relax();
    }
    if (Posted)
      continue;
    AwakeWord.fetch_and(~Bit, std::memory_order_relaxed);
    {
      std::unique_lock<std::mutex> Lock(Box.Mutex);
      Box.Sleeping.store(true, std::memory_order_seq_cst);
      Box.Wake.wait(Lock, [&] {
        return Box.Mail.load(std::memory_order_seq_cst) != nullptr ||
               Stopping.load(std::memory_order_seq_cst);
      });
      Box.Sleeping.store(false, std::memory_order_relaxed);
    }
    AwakeWord.fetch_or(Bit, std::memory_order_relaxed);
  }
}

} // namespace dglink::host_copy
