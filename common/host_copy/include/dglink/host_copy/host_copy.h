// Host-side copies for staging through pinned memory (the stream backend's copy engine,
// the OpenCL adapter's staging): a copy with non-temporal (streaming) stores, which
// leaves clean memory behind for the DMA engine to read, and a bounded pool of the
// adapter's own threads that splits one large copy among several cores. The
// threads start on the first copy that needs them, spin briefly on their own mailbox
// after each job (so that back-to-back copies do not pay a wake-up), then sleep;
// stop() joins them. A caller picks idle workers itself and posts its job to them
// alone, without a lock: workers not picked never see the job.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace dglink::host_copy {

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
  // Threads: the pool's threads, the callers' places included (Threads - 1 workers; 1:
  // the caller alone, no worker is ever started). SpinMicroseconds: how long an idle
  // worker spins on its mailbox after a job before it sleeps. ShareWindowMicroseconds:
  // a caller's share counts every thread that copied through the pool within about this
  // long (one to two windows), not only those inside copy() at that instant; 0: only
  // those (see copy()).
  HostCopyPool(unsigned Threads, unsigned SpinMicroseconds, unsigned ShareWindowMicroseconds = 0);
  ~HostCopyPool();
  HostCopyPool(const HostCopyPool &) = delete;
  HostCopyPool &operator=(const HostCopyPool &) = delete;

  // Copies Count bytes from Src to Dst in pieces of at least MinPiece bytes, with up to
  // threads() threads (MaxThreads, if not 0 and fewer), the caller one of them; with
  // streaming stores when NonTemporal. Returns when every byte is copied (and, when
  // NonTemporal, in memory). Safe to call from many threads at once: each caller takes
  // idle workers for its own copy, at most its fair share of the pool (fairShare) and
  // only workers idle at that moment; with none idle it copies alone. The share divides
  // the pool among the callers inside copy() now or, with a share window, among every
  // thread that copied within it, whichever is more: threads that copy in turns (one
  // copy each to its own GPU, say) each get the same share, where counting only those
  // inside at that instant gave the first of them the whole pool. A copy that fits
  // one piece never touches the workers. Returns how many workers the job was handed to
  // (0: the caller copied alone).
  unsigned copy(void *Dst, const void *Src, size_t Count, size_t MinPiece, bool NonTemporal,
                unsigned MaxThreads = 0);

  // What a paced copy's Progress answers to end it early (a driver failed, say).
  static constexpr size_t Stop = ~size_t{0};
  // The most pieces a paced copy is cut into (larger copies get larger pieces).
  static constexpr size_t MaxPacedPieces = 256;
  // Copies Count bytes from Src to Dst like copy(), in pieces of about PieceBytes, but
  // copies a piece only once the source is ready up to its end, and tells the caller
  // how far the copy has come, so that the source can fill (a DMA landing in staging)
  // while the threads copy what has landed, or the caller can hand the driver each part
  // the threads have filled, with no stop of the threads in between. Progress(Copied)
  // runs on the calling thread only, between its own pieces: Copied is how many bytes
  // from the start are copied (every piece up to there); it returns how many bytes from
  // the start of Src may be copied now (Count or more: all), or Stop to end the copy
  // (pieces not begun are left uncopied; the call returns once no helper touches Dst or
  // Src any more). Unless it stopped, Progress is called last with Copied == Count.
  // Returns how many workers the job was handed to.
  unsigned copyPaced(void *Dst, const void *Src, size_t Count, size_t PieceBytes, bool NonTemporal,
                     unsigned MaxThreads, const std::function<size_t(size_t Copied)> &Progress);
  // Joins the workers (after the jobs they hold); the next large copy starts them
  // again. Callers must not be inside copy() on other threads.
  void stop();

  unsigned threads() const { return Threads; }
  // How many workers run now (0 until the first copy that needs them).
  unsigned runningWorkers();
  // How many callers are inside copy() with a job for the workers now.
  unsigned callers() const { return Callers.Value.load(std::memory_order_relaxed); }
  // How many threads copied through the pool within the share window (0 without one).
  unsigned recentCallers() const;

  // The most workers a caller may take for a copy that wants Wanted threads (its own
  // included) while Callers callers (itself included) use a pool of PoolThreads
  // threads: an equal share of the pool, the caller's own place counted, at least none.
  static unsigned fairShare(unsigned Wanted, unsigned PoolThreads, unsigned Callers);

private:
  // One copy handed to workers; on its owner's stack. The owner's fields are written
  // before the job is posted and only read after; the pieces are claimed from Next and
  // every worker handed the job counts itself out of Left as its last touch of it.
  struct alignas(64) Job {
    char *Dst = nullptr;
    const char *Src = nullptr;
    size_t Count = 0;
    size_t Piece = 0;  // bytes per piece, the last one shorter
    size_t Pieces = 0; // how many
    bool NonTemporal = false;
    bool Paced = false;                        // copyPaced: wait for Ready, mark Copied
    alignas(64) std::atomic<size_t> Next{0};   // the next piece to claim
    alignas(64) std::atomic<unsigned> Left{0}; // workers handed the job, not yet out
    // Paced jobs: bytes of Src from the start that may be copied (written by the owner
    // only), whether the owner ended the copy, and which pieces are copied.
    alignas(64) std::atomic<size_t> Ready{0};
    std::atomic<bool> Halted{false};
    alignas(64) std::atomic<uint64_t> Copied[MaxPacedPieces / 64] = {};
  };
  // A worker's own lines: the job posted to it (it spins on nothing else), and what it
  // sleeps on. Mail is written only by the worker (taking the job out) and by the caller
  // that took the worker out of the idle set (the job, or null to take back a job the
  // worker has not picked up).
  struct alignas(64) Mailbox {
    std::atomic<Job *> Mail{nullptr};
    std::atomic<bool> Sleeping{false};
    alignas(64) std::mutex Mutex;
    std::condition_variable Wake;
  };
  // A set of up to 64 workers as bits, on a line of its own.
  struct alignas(64) WorkerBits {
    std::atomic<uint64_t> Bits{0};
  };
  struct alignas(64) Counter {
    std::atomic<unsigned> Value{0};
  };
  // The threads that copied with workers in the current and the previous window, one bit
  // each (threads past 64 share bits): Epoch is the current window's number, Bits[Epoch
  // & 1] its set, the other word the window before.
  struct alignas(64) RecentSet {
    std::atomic<uint64_t> Epoch{0};
    std::atomic<uint64_t> Bits[2] = {};
  };
  static constexpr unsigned WordBits = 64;
  // The knob allows pools of up to 256 threads; a larger one lends no more per copy.
  static constexpr unsigned MostHelpers = 255;
  static void runPieces(Job &J);
  // Where piece K of J begins (on a destination line), J.Count for K == J.Pieces.
  static size_t pieceBegin(const Job &J, size_t K);
  // Copies piece I of J (a paced job: once its source is ready, then marked copied;
  // skipped once the owner halted the job).
  static void copyPiece(Job &J, size_t I);
  // A paced job's owner: copies the next piece if its source is ready; false if none.
  static bool copyReadyPiece(Job &J);
  // How many bytes from the start of a paced job are copied.
  static size_t copiedPrefix(const Job &J);
  // Takes workers for J (at most Wanted, the caller's fair share) and hands them the
  // job; returns how many (Chosen: which).
  unsigned enlist(Job &J, size_t Wanted, unsigned *Chosen);
  // Waits until none of the Helpers workers in Chosen touches J any more, taking the
  // job back from those that have not picked it up.
  void dismiss(Job &J, const unsigned *Chosen, unsigned Helpers);
  // Marks the calling thread in the current window; returns how many threads the last
  // two windows saw.
  unsigned noteCaller();
  // Takes up to Wanted idle workers out of the idle set (awake ones first); their
  // indexes go to Chosen; returns how many.
  unsigned claim(unsigned Wanted, unsigned *Chosen);
  void release(unsigned Worker); // back into the idle set
  // Hands J to the Helpers workers in Chosen, waking those asleep.
  void post(const unsigned *Chosen, unsigned Helpers, Job &J);
  void startWorkers(); // with Mutex held
  void work(unsigned Index);

  const unsigned Threads;
  const unsigned SpinMicroseconds;
  const uint64_t ShareWindowNanoseconds; // 0: no window
  const unsigned WorkerCount;            // Threads - 1
  const unsigned Words;                  // of the bit sets
  std::unique_ptr<Mailbox[]> Mailboxes;
  std::unique_ptr<WorkerBits[]> Idle;  // workers free to be handed a job
  std::unique_ptr<WorkerBits[]> Awake; // workers not asleep (a hint: spinning ones first)
  Counter Callers;                     // callers with a job for the workers now
  RecentSet Recent;
  std::atomic<bool> Started{false};
  std::atomic<bool> Stopping{false};
  std::mutex Mutex; // Workers
  std::vector<std::thread> Workers;
};

} // namespace dglink::host_copy
