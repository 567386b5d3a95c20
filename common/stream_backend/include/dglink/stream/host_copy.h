// Host-side copies for the copy engine: a copy with non-temporal (streaming) stores,
// which leaves clean memory behind for the DMA engine to read, and a bounded pool of
// the adapter's own threads that splits one large copy among several cores. The
// threads start on the first copy that needs them, spin briefly after each job (so
// that back-to-back copies do not pay a wake-up), then sleep; stop() joins them. A job
// reaches the workers without a lock.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace dglink::stream {

// Copies Count bytes from Src to Dst (not overlapping) with streaming stores where the
// CPU has them (AVX, else SSE2; plain memcpy elsewhere and for the unaligned head and
// tail), then fences them, so that every byte is in memory when it returns.
void copyNonTemporal(void *Dst, const void *Src, size_t Count);

// Which streaming stores copyNonTemporal uses here: "avx", "sse2" or "none".
const char *nonTemporalKind();

// Host memory the adapter allocated pinned (its piextUSMHostAlloc), so that copies from
// and to it skip staging. Safe from many threads: lookups share a lock, and take none
// while no range is held.
class PinnedRanges {
public:
  void add(const void *Start, size_t Size);
  // Forgets the range that starts at Start; false if there is none.
  bool remove(const void *Start);
  // Whether [Host, Host + Size) lies inside one range.
  bool contains(const void *Host, size_t Size) const;

private:
  mutable std::shared_mutex Mutex;
  std::map<uintptr_t, size_t> Ranges; // start -> bytes
  std::atomic<size_t> Count{0};       // Ranges.size(), read without the lock
};

class HostCopyPool {
public:
  // Threads: how many threads one copy may use, the caller's included (1: the caller
  // alone, no worker is ever started). SpinMicroseconds: how long an idle worker
  // spins for the next job before it sleeps.
  HostCopyPool(unsigned Threads, unsigned SpinMicroseconds);
  ~HostCopyPool();
  HostCopyPool(const HostCopyPool &) = delete;
  HostCopyPool &operator=(const HostCopyPool &) = delete;

  // Copies Count bytes from Src to Dst in pieces of at least MinPiece bytes, with up to
  // threads() threads (MaxThreads, if not 0 and fewer), the caller one of them; with
  // streaming stores when NonTemporal. Returns when every byte is copied (and, when
  // NonTemporal, in memory). Safe to call from many threads at once: each caller works
  // on its own copy and shares the workers. A copy that fits one piece never touches
  // the workers.
  void copy(void *Dst, const void *Src, size_t Count, size_t MinPiece, bool NonTemporal,
            unsigned MaxThreads = 0);

  // Joins the workers (after the jobs they hold); the next large copy starts them
  // again. Callers must not be inside copy() on other threads.
  void stop();

  unsigned threads() const { return Threads; }
  // How many workers run now (0 until the first copy that needs them).
  unsigned runningWorkers();

private:
  struct Job {
    char *Dst = nullptr;
    const char *Src = nullptr;
    size_t Count = 0;
    size_t Piece = 0;  // bytes per piece, the last one shorter
    size_t Pieces = 0; // how many
    bool NonTemporal = false;
  };
  // Where a caller posts its job for the workers, without a lock: a worker counts itself
  // in Users before it reads Posted, and the owner clears Posted, then waits until Users
  // is 0 before its job (on its stack) goes away and the slot is free again. The job's
  // pieces are claimed from the slot's Next, on a line of its own: an idle worker reads
  // Next and Pieces and passes a job with nothing left to claim without writing to any
  // line the job's threads use (Users is written only by workers that will copy).
  struct alignas(64) Slot {
    std::atomic<bool> Owned{false};
    std::atomic<Job *> Posted{nullptr};
    std::atomic<unsigned> Users{0};
    std::atomic<size_t> Pieces{0};           // the posted job's, set before it is posted
    alignas(64) std::atomic<size_t> Next{0}; // the next piece to claim
  };
  static constexpr unsigned SlotCount = 8; // concurrent large copies the workers share
  static void runPieces(const Job &J, std::atomic<size_t> &Next);
  static bool exhausted(const Slot &S) {
    return S.Next.load(std::memory_order_relaxed) >= S.Pieces.load(std::memory_order_relaxed);
  }
  void startWorkers(); // with Mutex held
  void work();

  const unsigned Threads;
  const unsigned SpinMicroseconds;
  Slot Slots[SlotCount];
  std::atomic<bool> Started{false};
  std::atomic<uint64_t> Generation{0}; // bumped when a job is posted or at stop
  std::atomic<unsigned> Sleepers{0};   // workers waiting on Wake
  std::atomic<bool> Stopping{false};
  std::mutex Mutex; // Workers, and the sleepers' Wake
  std::condition_variable Wake;
  std::vector<std::thread> Workers;
};

} // namespace dglink::stream
