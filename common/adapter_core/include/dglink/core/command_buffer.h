// Command buffers (UR's command-buffer extension), written once in the core: a command
// buffer records commands with their arguments checked and captured at append time, and
// replays them on a queue at each submission, in the order they were appended.
//
// Why in-order replay is enough: every queue of the core runs its commands in order, so
// a command replayed after the commands it depends on (its sync points name only
// commands appended before it) starts after they completed. Sync points are checked and
// then honoured by that order; the backend needs no hook of its own. A submission
// waits for the previous submission of the same command buffer (on any queue), as UR
// requires, and ends with a marker whose event is the submission's.
//
// Events of commands (UR's phEventWaitList / phEvent on appends): a command with a wait
// list is replayed after a marker that waits for it; a command with a signal event is
// followed by a marker whose event becomes the command's event's current execution
// (CommandEventImpl). Updates (updatable command buffers) change a command between
// submissions: a kernel launch's arguments, shape and kernel, a command's wait list and
// signal event.
#pragma once

#include <dglink/core/backend.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace dglink::core {

// cl_khr_command_buffer_mutable_dispatch's CL_INVALID_MUTABLE_COMMAND_KHR, which PI's
// enumeration does not name (PI has no command buffers): a command handle that is none
// of the command buffer's commands, or of another kind of command (UR's
// INVALID_COMMAND_BUFFER_COMMAND_HANDLE_EXP).
inline constexpr pi_result InvalidMutableCommand = static_cast<pi_result>(-1141);

class RecordedCommand;

// The handle of one command of an updatable command buffer (UR's
// ur_exp_command_buffer_command_handle_t). It lives as long as its command: the
// command buffer's last release moves it into the quarantine.
struct CommandHandle : HandleHeader {
  static constexpr HandleKind Kind = HandleKind::Command;
  CommandHandle() : HandleHeader(Kind) {}
  _pi_command_buffer *CommandBuffer = nullptr; // not retained: it owns the command
  RecordedCommand *Command = nullptr;
};
void release(CommandHandle *Handle);

// One recorded command: what it holds alive (a private kernel with the captured
// arguments, buffers, its events) is released with it.
class RecordedCommand {
public:
  RecordedCommand() = default;
  RecordedCommand(const RecordedCommand &) = delete;
  RecordedCommand &operator=(const RecordedCommand &) = delete;
  virtual ~RecordedCommand(); // releases the events and the handle
  // Submits the command on Queue (a queue of the command buffer's context and device)
  // without a wait list or an event: the queue's order makes it wait.
  virtual pi_result replay(_pi_queue &Queue) = 0;
  // The command type its event reports.
  virtual pi_command_type type() const = 0;
  std::vector<_pi_event *> Waits;  // retained: events the command waits for
  _pi_event *Signal = nullptr;     // retained: the command's event (CommandEventImpl), or null
  CommandHandle *Handle = nullptr; // owned, or null
};

// The event of a command of a command buffer: a handle made at the append whose state
// is that of the command in the command buffer's latest submission (complete before the
// first). Each submission replaces the execution it follows. Where such an event is in
// a wait list, the core's submit waits for its current execution instead.
class CommandEventImpl final : public EventImpl {
public:
  ~CommandEventImpl() override;
  pi_result wait() override;
  pi_result status(pi_int32 &Status) override;
  pi_result profilingInfo(pi_profiling_info Point, pi_uint64 &Nanoseconds) override;
  bool nativeHandle(uintptr_t &Out) const override;
  // The latest execution's event, retained for the caller; null before the first.
  _pi_event *current() const;
  // Execution (whose reference it takes) becomes the latest.
  void follow(_pi_event *Execution);

private:
  mutable std::mutex Mutex;
  _pi_event *Current = nullptr; // retained; guarded by Mutex
};

// A command's dependencies within its command buffer: the sync points (indices of
// commands appended before it) of UR's pSyncPointWaitList, and where its own goes; and
// what UR's appends add: events it waits for, where its event goes, where its handle
// goes (an updatable command buffer only: PI_ERROR_INVALID_OPERATION otherwise).
struct SyncPoints {
  pi_uint32 Count = 0;
  const pi_uint32 *List = nullptr;
  pi_uint32 *Out = nullptr; // optional
  pi_uint32 NumEvents = 0;
  const pi_event *Events = nullptr;
  pi_event *Event = nullptr;         // optional
  CommandHandle **Command = nullptr; // optional
};

// Drops the commands of a command buffer whose last reference went: waits for its last
// submission first (handles.cpp's release).
void dropCommands(_pi_command_buffer &CommandBuffer);

// ---- The entry points a face calls. Each checks its handles first (a command buffer
// that is none, released or of another kind: PI_ERROR_INVALID_COMMAND_BUFFER_KHR),
// then its arguments in the contract's order, with messages naming Function; an append
// to a finalized command buffer, a finalize of a finalized one and a submission of one
// not finalized are PI_ERROR_INVALID_OPERATION; a sync point that names no command
// appended before is PI_ERROR_INVALID_SYNC_POINT_WAIT_LIST_KHR (ignored where the
// command buffer is in order, as UR says). A failed call changes nothing.

pi_result createCommandBuffer(const char *Function, pi_context Context, pi_device Device,
                              bool InOrder, bool Profiling, bool Updatable,
                              _pi_command_buffer **Out);
pi_result retainCommandBuffer(const char *Function, _pi_command_buffer *CommandBuffer);
pi_result releaseCommandBuffer(const char *Function, _pi_command_buffer *CommandBuffer);
pi_result finalizeCommandBuffer(const char *Function, _pi_command_buffer *CommandBuffer);

// A kernel launch with the kernel's arguments as set now, Arguments (may be null)
// replacing those of their indices. The launch's shape is checked as
// piEnqueueKernelLaunch checks it, for the command buffer's device. The command runs a
// private kernel of the same program and name that holds the captured arguments, so
// later changes to Kernel's arguments, or Kernel's release, do not touch it. In an
// updatable command buffer the command keeps Kernel and its Alternatives (retained:
// kernels of the command buffer's context and device, PI_ERROR_INVALID_KERNEL
// otherwise) for updateKernelLaunches.
pi_result appendKernelLaunch(const char *Function, _pi_command_buffer *CommandBuffer,
                             pi_kernel Kernel, pi_uint32 WorkDim, const size_t *GlobalWorkOffset,
                             const size_t *GlobalWorkSize, const size_t *LocalWorkSize,
                             const std::map<pi_uint32, KernelArgument> *Arguments,
                             pi_uint32 NumAlternatives, const pi_kernel *Alternatives,
                             const SyncPoints &Waits);

// USM commands: pointers not null (PI_ERROR_INVALID_VALUE), Size not 0, inside the
// allocation where the core knows it (PI_ERROR_INVALID_BUFFER_SIZE: UR's INVALID_SIZE);
// a fill's pattern tiles Size. The pattern is captured; the memory is the caller's.
pi_result appendUsmCopy(const char *Function, _pi_command_buffer *CommandBuffer, void *Dst,
                        const void *Src, size_t Size, const SyncPoints &Waits);
pi_result appendUsmFill(const char *Function, _pi_command_buffer *CommandBuffer, void *Ptr,
                        const void *Pattern, size_t PatternSize, size_t Size,
                        const SyncPoints &Waits);
pi_result appendUsmPrefetch(const char *Function, _pi_command_buffer *CommandBuffer,
                            const void *Ptr, size_t Size, UsmMigration To, const SyncPoints &Waits);
pi_result appendUsmAdvise(const char *Function, _pi_command_buffer *CommandBuffer, const void *Ptr,
                          size_t Size, uint32_t Advice, const SyncPoints &Waits);

// Buffer commands, checked as their enqueue entry points check them (buffers of the
// command buffer's context: PI_ERROR_INVALID_MEM_OBJECT otherwise; ranges, patterns,
// rectangles, overlaps: PI_ERROR_INVALID_VALUE / PI_ERROR_MEM_COPY_OVERLAP). Buffers are
// retained by the command; host memory is the caller's and is read or written when the
// command runs.
pi_result appendBufferCopy(const char *Function, _pi_command_buffer *CommandBuffer, pi_mem Src,
                           pi_mem Dst, size_t SrcOffset, size_t DstOffset, size_t Size,
                           const SyncPoints &Waits);
pi_result appendBufferWrite(const char *Function, _pi_command_buffer *CommandBuffer, pi_mem Buffer,
                            size_t Offset, size_t Size, const void *Src, const SyncPoints &Waits);
pi_result appendBufferRead(const char *Function, _pi_command_buffer *CommandBuffer, pi_mem Buffer,
                           size_t Offset, size_t Size, void *Dst, const SyncPoints &Waits);
pi_result appendBufferFill(const char *Function, _pi_command_buffer *CommandBuffer, pi_mem Buffer,
                           const void *Pattern, size_t PatternSize, size_t Offset, size_t Size,
                           const SyncPoints &Waits);
// Rectangles: Src / Dst as in piEnqueueMemBuffer{Read,Write,Copy}Rect (a buffer, or the
// host memory at Host).
pi_result appendBufferReadRect(const char *Function, _pi_command_buffer *CommandBuffer,
                               pi_mem Buffer, const pi_buff_rect_offset_struct &BufferOrigin,
                               const pi_buff_rect_offset_struct &HostOrigin,
                               const pi_buff_rect_region_struct &Region, size_t BufferRowPitch,
                               size_t BufferSlicePitch, size_t HostRowPitch, size_t HostSlicePitch,
                               void *Dst, const SyncPoints &Waits);
pi_result appendBufferWriteRect(const char *Function, _pi_command_buffer *CommandBuffer,
                                pi_mem Buffer, const pi_buff_rect_offset_struct &BufferOrigin,
                                const pi_buff_rect_offset_struct &HostOrigin,
                                const pi_buff_rect_region_struct &Region, size_t BufferRowPitch,
                                size_t BufferSlicePitch, size_t HostRowPitch, size_t HostSlicePitch,
                                const void *Src, const SyncPoints &Waits);
pi_result appendBufferCopyRect(const char *Function, _pi_command_buffer *CommandBuffer, pi_mem Src,
                               pi_mem Dst, const pi_buff_rect_offset_struct &SrcOrigin,
                               const pi_buff_rect_offset_struct &DstOrigin,
                               const pi_buff_rect_region_struct &Region, size_t SrcRowPitch,
                               size_t SrcSlicePitch, size_t DstRowPitch, size_t DstSlicePitch,
                               const SyncPoints &Waits);

// Submits a finalized command buffer on Queue (of its context and device, else
// PI_ERROR_INVALID_QUEUE) after the wait list and its previous submission; Event (may be
// null) gets the submission's event (PI_COMMAND_TYPE_EXT_COMMAND_BUFFER), complete once
// every command is. Submissions of one command buffer are serialized.
pi_result enqueueCommandBuffer(const char *Function, pi_queue Queue,
                               _pi_command_buffer *CommandBuffer, pi_uint32 NumEventsInWaitList,
                               const pi_event *EventWaitList, pi_event *Event);

// ---- Updates of an updatable, finalized command buffer (PI_ERROR_INVALID_OPERATION
// otherwise). They apply to later submissions: a kernel launch's update waits for the
// command buffer's last submission first (UR lets it block), so none in flight sees it.

// One kernel launch's update (UR's ur_exp_command_buffer_update_kernel_launch_desc_t).
struct KernelLaunchUpdate {
  CommandHandle *Command = nullptr;
  pi_kernel NewKernel = nullptr; // optional: the command's kernel or one of its alternatives
  std::vector<std::pair<pi_uint32, KernelArgument>> Arguments; // in order: a later one wins
  pi_uint32 WorkDim = 1;
  const size_t *GlobalWorkOffset = nullptr; // optional unless WorkDim changes
  const size_t *GlobalWorkSize = nullptr;   // optional unless WorkDim changes
  const size_t *LocalWorkSize = nullptr;    // optional: null with a new global size: chosen
};

// Checks every update first, then applies them in order: a command that is no live
// handle of this command buffer's commands, or no kernel launch,
// InvalidMutableCommand; a work dimension not 1 to 3,
// PI_ERROR_INVALID_WORK_DIMENSION; a changed work dimension without a global size and
// offset, or a kernel not among the command's, PI_ERROR_INVALID_VALUE; an argument index
// the kernel has not, PI_ERROR_INVALID_ARG_INDEX; the shape as piEnqueueKernelLaunch
// checks it; a global offset where the backend launches with offset 0 only,
// PI_ERROR_UNSUPPORTED_FEATURE (UR's capability GLOBAL_WORK_OFFSET). A failure of the
// backend while arguments are applied leaves the command partly updated (UR's spec leaves
// it undefined).
pi_result updateKernelLaunches(const char *Function, _pi_command_buffer *CommandBuffer,
                               const std::vector<KernelLaunchUpdate> &Updates);
// A new event for the command's next executions (the old one keeps its last state):
// PI_ERROR_INVALID_OPERATION where the command was appended without one.
pi_result updateSignalEvent(const char *Function, CommandHandle *Command, pi_event *Out);
// The command's wait list, replaced by one of as many events
// (PI_ERROR_INVALID_EVENT_WAIT_LIST otherwise).
pi_result updateWaitEvents(const char *Function, CommandHandle *Command, pi_uint32 NumEvents,
                           const pi_event *Events);

} // namespace dglink::core

// A command buffer (UR's ur_exp_command_buffer_handle_t).
struct _pi_command_buffer : dglink::core::HandleHeader {
  static constexpr dglink::core::HandleKind Kind = dglink::core::HandleKind::CommandBuffer;
  _pi_command_buffer() : HandleHeader(Kind) {}
  _pi_context *Context = nullptr; // retained
  _pi_device *Device = nullptr;
  bool InOrder = false;
  bool Profiling = false;
  bool Updatable = false;
  std::atomic<bool> Finalized{false};
  // Appends, the finalize and submissions take the mutex: one at a time, in order.
  std::mutex Mutex;
  std::vector<std::unique_ptr<dglink::core::RecordedCommand>> Commands; // guarded by Mutex
  _pi_event *LastSubmission = nullptr; // retained; guarded by Mutex
};
