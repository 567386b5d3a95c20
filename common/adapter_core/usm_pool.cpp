// USM pools (UR's urUSMPool*), written once for every backend: a pool takes blocks of
// USM from the backend's allocateUsm hook and serves allocations out of them, one size
// class per (kind, device, power-of-two chunk size); memory freed into the pool is handed
// out again only after the context's queues finished (urUSMFree's promise that commands
// which used it are done); the last release returns every block to the driver.
#include "entry.h"

#include <dglink/support/log.h>

#include <algorithm>
#include <cstring>
#include <tuple>

namespace dglink::core {
namespace {

// The smallest chunk a pool hands out, and the granularity of its blocks: whole pages,
// which drivers hand out page-aligned, so allocations of two pools never share a page
// (UR's spec asks for that).
constexpr size_t MinChunkSize = 64;
constexpr size_t PageSize = 4096;

size_t roundUp(size_t Value, size_t Multiple) {
  return (Value + Multiple - 1) / Multiple * Multiple;
}

size_t powerOfTwoAtLeast(size_t Value) {
  size_t Power = MinChunkSize;
  while (Power < Value)
    Power <<= 1;
  return Power;
}

// One block of the driver's memory cut into chunks of one size.
struct Slab {
  void *Base = nullptr;
  size_t Size = 0;
  size_t ChunkSize = 0;
  UsmKind Kind = UsmKind::Host;
  _pi_device *Device = nullptr;
  size_t Unused = 0;           // chunks from this index on were never handed out
  std::vector<size_t> Ready;   // indices of freed chunks that may be handed out again
  std::vector<size_t> Pending; // freed; ready once the context's queues finished
  size_t Live = 0;

  bool hasReady() const { return !Ready.empty() || Unused < chunks(); }

  size_t chunks() const { return Size / ChunkSize; }
  // The alignment every chunk has: the chunk size, or less where the driver's block is
  // aligned to less (chunk i starts at Base + i * ChunkSize).
  size_t chunkAlignment() const {
    const auto Address = reinterpret_cast<uintptr_t>(Base);
    const size_t BaseAlignment = Address & (~Address + 1);
    return std::min(BaseAlignment, ChunkSize);
  }
  void *chunk(size_t Index) const { return static_cast<char *>(Base) + Index * ChunkSize; }
};

using SizeClass = std::tuple<UsmKind, _pi_device *, size_t>;

} // namespace

class UsmPoolState {
public:
  std::mutex Mutex;
  bool Released = false;                            // guarded by Mutex
  std::map<uintptr_t, std::unique_ptr<Slab>> Slabs; // by base; guarded by Mutex
  std::map<SizeClass, std::vector<Slab *>> Classes; // guarded by Mutex
  std::map<uintptr_t, size_t> Direct;               // too large to pool: base -> size
};

namespace {

// Waits for every command of the context's queues: the memory freed before may be
// handed out again after it.
pi_result finishContextQueues(_pi_context &Context) {
  std::vector<_pi_queue *> Queues;
  {
    const std::lock_guard<std::mutex> Lock(Context.QueuesMutex);
    Queues.reserve(Context.Queues.size());
    for (_pi_queue *Queue : Context.Queues) {
      // A queue whose last release is under way is skipped (it finishes on its own).
      pi_uint32 Count = Queue->RefCount.load(std::memory_order_acquire);
      while (Count != 0 &&
             !Queue->RefCount.compare_exchange_weak(Count, Count + 1, std::memory_order_acq_rel)) {
      }
      if (Count != 0)
        Queues.push_back(Queue);
    }
  }
  pi_result Result = PI_SUCCESS;
  for (_pi_queue *Queue : Queues) {
    if (const pi_result Finished = Queue->Impl->finish();
        Finished != PI_SUCCESS && Result == PI_SUCCESS)
      Result = Finished;
    release(Queue);
  }
  return Result;
}

// Zeroes a block the driver just gave (UR_USM_POOL_FLAG_ZERO_INITIALIZE_BLOCK): host
// memory on the host, device and shared memory with a fill on a queue of its device.
pi_result zeroBlock(_pi_context &Context, _pi_device *Device, UsmKind Kind, void *Base,
                    size_t Size) {
  if (Kind == UsmKind::Host) {
    std::memset(Base, 0, Size);
    return PI_SUCCESS;
  }
  pi_queue Queue = nullptr;
  DGLINK_TRY(piQueueCreate(&Context, Device, 0, &Queue));
  const uint8_t Zero = 0;
  pi_result Result = piextUSMEnqueueFill(Queue, Base, &Zero, 1, Size, 0, nullptr, nullptr);
  if (Result == PI_SUCCESS)
    Result = piQueueFinish(Queue);
  (void)piQueueRelease(Queue);
  return Result;
}

// Frees memory the pool held, naming what failed in the log (a release has no error
// to return it through).
void returnToDriver(_pi_context &Context, void *Base) {
  if (Context.Impl->freeUsm(Base) != PI_SUCCESS)
    logger().warn("USM pool: returning {} to the driver failed: {}", fmt::ptr(Base),
                  lastErrorMessage());
}

void forgetBlock(_pi_context &Context, void *Base) {
  const std::lock_guard<std::mutex> Lock(Context.UsmMutex);
  Context.UsmPoolBlocks.erase(reinterpret_cast<uintptr_t>(Base));
}

// Memory of the driver for the pool; recorded as the pool's block before it is used.
pi_result takeBlock(UsmPool &Pool, const std::shared_ptr<UsmPoolState> &State, _pi_device *Device,
                    UsmKind Kind, size_t Size, pi_uint32 Alignment, void *&Base) {
  _pi_context &Context = *Pool.Context;
  DGLINK_TRY(Context.Impl->allocateUsm(Kind, Device, Size, Alignment, Base));
  try {
    if (Pool.Options.ZeroInitializeBlocks)
      if (const pi_result Zeroed = zeroBlock(Context, Device, Kind, Base, Size);
          Zeroed != PI_SUCCESS) {
        returnToDriver(Context, Base);
        return Zeroed;
      }
    const std::lock_guard<std::mutex> Lock(Context.UsmMutex);
    Context.UsmPoolBlocks[reinterpret_cast<uintptr_t>(Base)] = UsmPoolBlock{Size, &Pool, State};
  } catch (...) {
    returnToDriver(Context, Base);
    throw;
  }
  return PI_SUCCESS;
}

// A chunk of the size class, from a slab with a free one; the freed chunks of every slab
// become free once the context's queues finished; else a new slab.
pi_result takeChunk(UsmPool &Pool, const std::shared_ptr<UsmPoolState> &State, _pi_device *Device,
                    UsmKind Kind, size_t ChunkSize, pi_uint32 Alignment, void *&Pointer) {
  std::vector<Slab *> &Class = State->Classes[SizeClass{Kind, Device, ChunkSize}];
  auto Take = [&](Slab &From) {
    size_t Index = From.Unused;
    if (From.Ready.empty()) {
      ++From.Unused;
    } else {
      Index = From.Ready.back();
      From.Ready.pop_back();
    }
    ++From.Live;
    Pointer = From.chunk(Index);
  };
  auto Usable = [&](const Slab &S) { return S.chunkAlignment() >= Alignment; };
  for (Slab *Each : Class)
    if (Each->hasReady() && Usable(*Each)) {
      Take(*Each);
      return PI_SUCCESS;
    }
  const bool ClassHasPending = std::any_of(
      Class.begin(), Class.end(), [&](const Slab *S) { return !S->Pending.empty() && Usable(*S); });
  if (ClassHasPending) {
    DGLINK_TRY(finishContextQueues(*Pool.Context));
    for (auto &[Base, Each] : State->Slabs) {
      if (Each->Ready.empty())
        Each->Ready.swap(Each->Pending);
      else
        Each->Ready.insert(Each->Ready.end(), Each->Pending.begin(), Each->Pending.end());
      Each->Pending.clear();
    }
    for (Slab *Each : Class)
      if (Each->hasReady() && Usable(*Each)) {
        Take(*Each);
        return PI_SUCCESS;
      }
  }
  // A new slab: at least the pool's smallest driver allocation, whole pages (which a
  // chunk below a page divides) or whole chunks.
  const size_t SlabSize =
      roundUp(std::max(Pool.Options.MinDriverAllocSize, ChunkSize), std::max(ChunkSize, PageSize));
  auto Made = std::make_unique<Slab>();
  Made->Size = SlabSize;
  Made->ChunkSize = ChunkSize;
  Made->Kind = Kind;
  Made->Device = Device;
  Class.reserve(Class.size() + 1);
  void *Base = nullptr;
  // The alignment asked for (which the driver accepts for the allocation itself): the
  // chunks of the block have at least that.
  DGLINK_TRY(takeBlock(Pool, State, Device, Kind, SlabSize, Alignment, Base));
  Made->Base = Base;
  Slab &Added = *Made;
  try {
    State->Slabs.emplace(reinterpret_cast<uintptr_t>(Base), std::move(Made));
  } catch (...) {
    forgetBlock(*Pool.Context, Base);
    returnToDriver(*Pool.Context, Base);
    throw;
  }
  Class.push_back(&Added);
  Take(Added);
  return PI_SUCCESS;
}

// Returns a chunk to its slab (pending until the queues finished). A slab all of whose
// chunks are free goes back to the driver where its size class has another slab with
// free chunks, so a pool does not keep its peak forever.
void giveBackChunk(UsmPool &Pool, UsmPoolState &State, void *Pointer) {
  const auto Address = reinterpret_cast<uintptr_t>(Pointer);
  auto Found = State.Slabs.upper_bound(Address);
  if (Found == State.Slabs.begin())
    return;
  Slab &Owner = *std::prev(Found)->second;
  --Owner.Live;
  try {
    Owner.Pending.push_back((Address - reinterpret_cast<uintptr_t>(Owner.Base)) / Owner.ChunkSize);
  } catch (const std::bad_alloc &) {
    // The chunk is not handed out again; the slab goes back to the driver with the pool.
  }
  if (Owner.Live != 0)
    return;
  std::vector<Slab *> &Class = State.Classes[SizeClass{Owner.Kind, Owner.Device, Owner.ChunkSize}];
  const bool OtherHasRoom = std::any_of(Class.begin(), Class.end(), [&](const Slab *S) {
    return S != &Owner && (S->hasReady() || !S->Pending.empty());
  });
  if (!OtherHasRoom)
    return;
  // The driver's free waits for commands that use the block, as an unpooled free does.
  void *Base = Owner.Base;
  Class.erase(std::find(Class.begin(), Class.end(), &Owner));
  State.Slabs.erase(std::prev(Found));
  forgetBlock(*Pool.Context, Base);
  returnToDriver(*Pool.Context, Base);
}

} // namespace

pi_result createUsmPool(const char *Function, pi_context Context, const UsmPoolOptions &Options,
                        UsmPool **Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  if (Out == nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "{}: argument 'Out' is null", Function);
  for (const _pi_device *Device : Context->Devices) {
    const DeviceDescription &D = Device->Description;
    if ((D.HostUsm | D.DeviceUsm | D.SharedUsm) == 0)
      return fail(PI_ERROR_UNSUPPORTED_FEATURE,
                  "{}: device '{}' of the context has no USM, so no USM pools", Function, D.Name);
  }
  std::unique_ptr<UsmPool> Pool = makeHandle<UsmPool>();
  Pool->Context = Context;
  Pool->Options = Options;
  Pool->State = std::make_shared<UsmPoolState>();
  retain(Context);
  *Out = Pool.release();
  return PI_SUCCESS;
}

pi_result retainUsmPool(const char *Function, UsmPool *Pool) {
  DGLINK_TRY(checkHandle(Pool, PI_ERROR_INVALID_VALUE, Function, "Pool"));
  retain(Pool);
  return PI_SUCCESS;
}

pi_result releaseUsmPool(const char *Function, UsmPool *Pool) {
  DGLINK_TRY(checkHandle(Pool, PI_ERROR_INVALID_VALUE, Function, "Pool"));
  release(Pool);
  return PI_SUCCESS;
}

void dropUsmPoolMemory(UsmPool &Pool) {
  const std::shared_ptr<UsmPoolState> State = std::move(Pool.State);
  _pi_context &Context = *Pool.Context;
  const std::lock_guard<std::mutex> Lock(State->Mutex);
  State->Released = true;
  std::vector<void *> Blocks;
  Blocks.reserve(State->Slabs.size() + State->Direct.size());
  for (const auto &[Base, Each] : State->Slabs)
    Blocks.push_back(Each->Base);
  for (const auto &[Base, Size] : State->Direct)
    Blocks.push_back(reinterpret_cast<void *>(Base));
  size_t Live = 0;
  {
    const std::lock_guard<std::mutex> UsmLock(Context.UsmMutex);
    for (void *Base : Blocks) {
      const auto Start = reinterpret_cast<uintptr_t>(Base);
      auto Block = Context.UsmPoolBlocks.find(Start);
      if (Block == Context.UsmPoolBlocks.end())
        continue;
      const uintptr_t End = Start + Block->second.Size;
      for (auto Record = Context.UsmAllocations.lower_bound(Start);
           Record != Context.UsmAllocations.end() && Record->first < End;) {
        if (Record->second.Pool == &Pool) {
          ++Live;
          Record = Context.UsmAllocations.erase(Record);
        } else {
          ++Record;
        }
      }
      Context.UsmPoolBlocks.erase(Block);
    }
  }
  if (Live != 0)
    logger().warn("USM pool {}: released with {} allocation(s) not freed; their memory goes "
                  "back to the driver with the pool's",
                  fmt::ptr(&Pool), Live);
  for (void *Base : Blocks)
    returnToDriver(Context, Base);
  State->Slabs.clear();
  State->Classes.clear();
  State->Direct.clear();
}

pi_result allocateFromPool(UsmPool &Pool, _pi_device *Device, UsmKind Kind, size_t Size,
                           pi_uint32 Alignment, void *&Pointer) {
  _pi_context &Context = *Pool.Context;
  const std::shared_ptr<UsmPoolState> State = Pool.State;
  const bool Pooled = Size <= Pool.Options.MaxPoolableSize && Size <= (SIZE_MAX >> 2);
  const std::lock_guard<std::mutex> Lock(State->Mutex);
  if (Pooled) {
    DGLINK_TRY(takeChunk(Pool, State, Device, Kind,
                         powerOfTwoAtLeast(std::max<size_t>(Size, Alignment)), Alignment, Pointer));
  } else {
    void *Base = nullptr;
    DGLINK_TRY(takeBlock(Pool, State, Device, Kind, Size, Alignment, Base));
    try {
      State->Direct.emplace(reinterpret_cast<uintptr_t>(Base), Size);
    } catch (...) {
      forgetBlock(Context, Base);
      returnToDriver(Context, Base);
      throw;
    }
    Pointer = Base;
  }
  try {
    const std::lock_guard<std::mutex> UsmLock(Context.UsmMutex);
    Context.UsmAllocations[reinterpret_cast<uintptr_t>(Pointer)] =
        UsmRecord{Size, Kind, Kind == UsmKind::Host ? nullptr : Device, &Pool};
  } catch (...) {
    if (Pooled) {
      giveBackChunk(Pool, *State, Pointer);
    } else {
      State->Direct.erase(reinterpret_cast<uintptr_t>(Pointer));
      forgetBlock(Context, Pointer);
      returnToDriver(Context, Pointer);
    }
    throw;
  }
  return PI_SUCCESS;
}

bool freeToPool(const char *Function, _pi_context &Context, void *Pointer, pi_result &Result) {
  const auto Address = reinterpret_cast<uintptr_t>(Pointer);
  std::shared_ptr<UsmPoolState> State;
  UsmPool *Pool = nullptr;
  {
    const std::lock_guard<std::mutex> Lock(Context.UsmMutex);
    auto After = Context.UsmPoolBlocks.upper_bound(Address);
    if (After == Context.UsmPoolBlocks.begin())
      return false;
    const auto &[Start, Block] = *std::prev(After);
    if (Address - Start >= Block.Size)
      return false;
    auto Record = Context.UsmAllocations.find(Address);
    if (Record == Context.UsmAllocations.end() || Record->second.Pool != Block.Pool) {
      Result = fail(PI_ERROR_INVALID_VALUE,
                    "{}: {} is inside memory of USM pool {} but not the start of a live "
                    "allocation of it (freed already?)",
                    Function, fmt::ptr(Pointer), fmt::ptr(Block.Pool));
      return true;
    }
    Context.UsmAllocations.erase(Record);
    State = Block.State;
    Pool = Block.Pool;
  }
  const std::lock_guard<std::mutex> Lock(State->Mutex);
  Result = PI_SUCCESS;
  if (State->Released) // released meanwhile: its memory went back to the driver
    return true;
  if (auto Direct = State->Direct.find(Address); Direct != State->Direct.end()) {
    State->Direct.erase(Direct);
    forgetBlock(Context, Pointer);
    Result = Context.Impl->freeUsm(Pointer);
    return true;
  }
  giveBackChunk(*Pool, *State, Pointer);
  return true;
}

void registerQueue(_pi_queue &Queue) {
  const std::lock_guard<std::mutex> Lock(Queue.Context->QueuesMutex);
  Queue.Context->Queues.insert(&Queue);
}

} // namespace dglink::core
