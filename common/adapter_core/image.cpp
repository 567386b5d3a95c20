// Images and samplers, for a face that has words for them (UR's urMemImage*, urSampler*,
// urEnqueueMemImage*; PI has none): the handles and the checks are the core's, the
// driver's part is the backend's hooks (ContextImpl::createImage / adoptImage /
// createSampler / adoptSampler, QueueImpl::readImage / writeImage / copyImage,
// KernelImpl::setSamplerArgument). A backend without them answers
// UNSUPPORTED_FEATURE, and its devices say Images.Supported false, so the core refuses
// before any hook is reached.
#include "entry.h"

#include <algorithm>

using namespace dglink::core;

namespace dglink::core {

namespace {

pi_result noImages(const char *Function) {
  return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                      "{}: the {} adapter serves no images or samplers (its devices answer "
                      "IMAGE_SUPPORT false)",
                      Function, adapterLabel());
}

const char *typeName(ImageType Type) {
  switch (Type) {
  case ImageType::Image1D:
    return "1-D image";
  case ImageType::Image1DArray:
    return "1-D image array";
  case ImageType::Image2D:
    return "2-D image";
  case ImageType::Image2DArray:
    return "2-D image array";
  case ImageType::Image3D:
    return "3-D image";
  }
  return "image";
}

// Every device of Context has images (what UR's spec names UNSUPPORTED_FEATURE).
pi_result checkImageDevices(const char *Function, const _pi_context &Context) {
  for (const _pi_device *Device : Context.Devices)
    if (!Device->Description.Images.Supported)
      return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                          "{}: device '{}' has no images (UR_DEVICE_INFO_IMAGE_SUPPORT is false)",
                          Function, Device->Description.Name);
  return PI_SUCCESS;
}

// The description in its canonical form (unused dimensions 1) and within every device's
// limits.
pi_result checkImageSize(const char *Function, const _pi_context &Context,
                         ImageDescription &Image) {
  const bool Array = Image.Type == ImageType::Image1DArray || Image.Type == ImageType::Image2DArray;
  if (Image.Type == ImageType::Image1D || Image.Type == ImageType::Image1DArray)
    Image.Height = 1;
  if (Image.Type != ImageType::Image3D)
    Image.Depth = 1;
  if (!Array)
    Image.ArraySize = 1;
  if (Image.Width == 0 || Image.Height == 0 || Image.Depth == 0 || Image.ArraySize == 0)
    return dglink::fail(
        PI_ERROR_INVALID_IMAGE_SIZE, "{}: a {} of {} x {} x {} pixels ({} images) is empty",
        Function, typeName(Image.Type), Image.Width, Image.Height, Image.Depth, Image.ArraySize);
  for (const _pi_device *Device : Context.Devices) {
    const DeviceImages &Limits = Device->Description.Images;
    size_t Max[3] = {Limits.Max2D[0], Limits.Max2D[1], 1};
    if (Image.Type == ImageType::Image3D)
      std::copy(std::begin(Limits.Max3D), std::end(Limits.Max3D), std::begin(Max));
    const bool Fits = Image.Width <= Max[0] && Image.Height <= Max[1] && Image.Depth <= Max[2] &&
                      (!Array || Image.ArraySize <= Limits.MaxArraySize);
    if (!Fits)
      return dglink::fail(PI_ERROR_INVALID_IMAGE_SIZE,
                          "{}: a {} of {} x {} x {} pixels ({} images) exceeds device '{}' "
                          "(at most {} x {} x {}, arrays of {})",
                          Function, typeName(Image.Type), Image.Width, Image.Height, Image.Depth,
                          Image.ArraySize, Device->Description.Name, Max[0], Max[1], Max[2],
                          Limits.MaxArraySize);
  }
  return PI_SUCCESS;
}

// An image argument of a command: live, an image, of the queue's context (or one that
// holds the queue's device).
pi_result checkQueueImage(const char *Function, pi_queue Queue, pi_mem Image,
                          const char *Argument) {
  DGLINK_TRY(checkHandle(Image, PI_ERROR_INVALID_MEM_OBJECT, Function, Argument));
  if (!Image->Image)
    return dglink::fail(PI_ERROR_INVALID_MEM_OBJECT, "{}: '{}' is a buffer, not an image", Function,
                        Argument);
  if (Image->Context != Queue->Context && !Image->Context->hasDevice(Queue->Device))
    return dglink::fail(PI_ERROR_INVALID_CONTEXT, "{}: image '{}' belongs to another device",
                        Function, Argument);
  return PI_SUCCESS;
}

// Origin + Region inside the image, in the dimensions it has (the others: origin 0,
// region 1), no dimension empty.
pi_result checkImageBox(const char *Function, const char *Side, const ImageDescription &Image,
                        const size_t Origin[3], const size_t Region[3]) {
  size_t Extent[3];
  Image.extent(Extent);
  for (unsigned I = 0; I < 3; ++I) {
    const bool Used = I < Image.regionDimensions();
    if (Region[I] == 0 || (!Used && (Origin[I] != 0 || Region[I] != 1)) || Origin[I] > Extent[I] ||
        Region[I] > Extent[I] - Origin[I])
      return dglink::fail(PI_ERROR_INVALID_VALUE,
                          "{}: the {} region (origin {}, {}, {}; region {} x {} x {}) is not "
                          "inside the {} of {} x {} x {} pixels",
                          Function, Side, Origin[0], Origin[1], Origin[2], Region[0], Region[1],
                          Region[2], typeName(Image.Type), Extent[0], Extent[1], Extent[2]);
  }
  return PI_SUCCESS;
}

// A read or write: the image, the host pointer, the box and the host's pitches.
pi_result checkImageTransfer(const char *Function, pi_queue Queue, pi_mem Image, const void *Host,
                             const size_t Origin[3], const size_t Region[3], size_t RowPitch,
                             size_t SlicePitch, pi_uint32 NumWaits, const pi_event *Waits,
                             ImageRegion &Out) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkQueueImage(Function, Queue, Image, "Image"));
  if (Host == nullptr || Origin == nullptr || Region == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: the host pointer, origin or region is null",
                        Function);
  const ImageDescription &D = *Image->Image;
  DGLINK_TRY(checkImageBox(Function, "image", D, Origin, Region));
  size_t Row = 0, Slice = 0;
  // A 1-D array's images are its rows: a slice of the host memory is one row.
  const size_t RowsPerSlice = D.Type == ImageType::Image1DArray ? 1 : Region[1];
  if (__builtin_mul_overflow(Region[0], D.ElementSize, &Row) || (RowPitch != 0 && RowPitch < Row))
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: row pitch {} is less than the region's {} pixels of {} bytes",
                        Function, RowPitch, Region[0], D.ElementSize);
  if (RowPitch == 0)
    RowPitch = Row;
  if (__builtin_mul_overflow(RowPitch, RowsPerSlice, &Slice) ||
      (SlicePitch != 0 && SlicePitch < Slice))
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: slice pitch {} is less than {} rows of {} bytes", Function, SlicePitch,
                        RowsPerSlice, RowPitch);
  if (SlicePitch == 0)
    SlicePitch = Slice;
  std::copy(Origin, Origin + 3, Out.Origin);
  std::copy(Region, Region + 3, Out.Region);
  Out.RowPitch = RowPitch;
  Out.SlicePitch = SlicePitch;
  return checkWaitList(NumWaits, Waits);
}

// A memory object of an image: the handle's fields around the backend's part.
pi_result makeImageHandle(_pi_context &Context, pi_mem_flags Flags, void *Host,
                          const ImageDescription &Image, size_t Size, std::unique_ptr<MemImpl> Impl,
                          pi_mem *Out) {
  std::unique_ptr<_pi_mem> Mem = makeHandle<_pi_mem>();
  Mem->Context = &Context;
  Mem->Size = Size;
  Mem->Flags = Flags & (PI_MEM_FLAGS_ACCESS_RW | PI_MEM_FLAGS_ACCESS_READ_ONLY |
                        PI_MEM_FLAGS_ACCESS_WRITE_ONLY | PI_MEM_FLAGS_HOST_PTR_USE);
  Mem->HostPointer = (Flags & PI_MEM_FLAGS_HOST_PTR_USE) != 0 ? Host : nullptr;
  Mem->Image = Image;
  Mem->Impl = std::move(Impl);
  retain(&Context);
  *Out = Mem.release();
  return PI_SUCCESS;
}

bool boxesOverlap(const size_t A[3], const size_t B[3], const size_t Region[3]) {
  for (unsigned I = 0; I < 3; ++I)
    if (!(A[I] < B[I] + Region[I] && B[I] < A[I] + Region[I]))
      return false;
  return true;
}

} // namespace

// ---- the hooks' defaults: no images ----

SamplerImpl::~SamplerImpl() = default;

pi_result ContextImpl::createImage(const char *Function, pi_mem_flags, ImageDescription &, void *,
                                   size_t &, std::unique_ptr<MemImpl> &) {
  return noImages(Function);
}
pi_result ContextImpl::adoptImage(const char *Function, uintptr_t, bool, const ImageDescription *,
                                  ImageDescription &, size_t &, std::unique_ptr<MemImpl> &) {
  return noImages(Function);
}
pi_result ContextImpl::createSampler(const char *Function, const SamplerDescription &,
                                     std::unique_ptr<SamplerImpl> &) {
  return noImages(Function);
}
pi_result ContextImpl::adoptSampler(const char *Function, uintptr_t, bool, SamplerDescription &,
                                    std::unique_ptr<SamplerImpl> &) {
  return noImages(Function);
}
pi_result QueueImpl::readImage(const char *Function, void *, MemImpl &, const ImageRegion &,
                               const Enqueue &) {
  return noImages(Function);
}
pi_result QueueImpl::writeImage(const char *Function, MemImpl &, const void *, const ImageRegion &,
                                const Enqueue &) {
  return noImages(Function);
}
pi_result QueueImpl::copyImage(const char *Function, MemImpl &, MemImpl &, const ImageRegion &,
                               const Enqueue &) {
  return noImages(Function);
}
pi_result KernelImpl::setSamplerArgument(const char *Function, pi_uint32, Sampler &) {
  return noImages(Function);
}

// ---- images ----

pi_result createImage(const char *Function, pi_context Context, pi_mem_flags Flags,
                      const ImageDescription &Requested, void *Host, pi_mem *Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  if (Out == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: the output handle is null", Function);
  const bool WithHost = (Flags & (PI_MEM_FLAGS_HOST_PTR_COPY | PI_MEM_FLAGS_HOST_PTR_USE)) != 0;
  if (WithHost != (Host != nullptr))
    return dglink::fail(PI_ERROR_INVALID_HOST_PTR,
                        "{}: the host pointer must be given exactly when the image copies or "
                        "uses host memory",
                        Function);
  DGLINK_TRY(checkImageDevices(Function, *Context));
  ImageDescription Image = Requested;
  DGLINK_TRY(checkImageSize(Function, *Context, Image));
  if (Host == nullptr && (Image.RowPitch != 0 || Image.SlicePitch != 0))
    return dglink::fail(PI_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                        "{}: row pitch {} and slice pitch {} describe host memory, but no host "
                        "pointer is given (both must be 0)",
                        Function, Image.RowPitch, Image.SlicePitch);
  size_t Size = 0;
  std::unique_ptr<MemImpl> Impl;
  DGLINK_TRY(Context->Impl->createImage(Function, Flags, Image, Host, Size, Impl));
  return makeImageHandle(*Context, Flags, Host, Image, Size, std::move(Impl), Out);
}

pi_result imageFromNative(const char *Function, uintptr_t Native, pi_context Context, bool Owned,
                          const ImageDescription *Declared, pi_mem *Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  DGLINK_TRY(checkImageDevices(Function, *Context));
  ImageDescription Image;
  size_t Size = 0;
  std::unique_ptr<MemImpl> Impl;
  DGLINK_TRY(Context->Impl->adoptImage(Function, Native, Owned, Declared, Image, Size, Impl));
  return makeImageHandle(*Context, PI_MEM_FLAGS_ACCESS_RW, nullptr, Image, Size, std::move(Impl),
                         Out);
}

pi_result enqueueImageRead(const char *Function, pi_queue Queue, pi_mem Image, bool Blocking,
                           const size_t Origin[3], const size_t Region[3], size_t RowPitch,
                           size_t SlicePitch, void *Dst, pi_uint32 NumWaits, const pi_event *Waits,
                           pi_event *Event) {
  ImageRegion Checked;
  DGLINK_TRY(checkImageTransfer(Function, Queue, Image, Dst, Origin, Region, RowPitch, SlicePitch,
                                NumWaits, Waits, Checked));
  return submit(*Queue, PI_COMMAND_TYPE_IMAGE_READ, NumWaits, Waits, Blocking, Event,
                [&](const Enqueue &Request) {
                  return Queue->Impl->readImage(Function, Dst, *Image->Impl, Checked, Request);
                });
}

pi_result enqueueImageWrite(const char *Function, pi_queue Queue, pi_mem Image, bool Blocking,
                            const size_t Origin[3], const size_t Region[3], size_t RowPitch,
                            size_t SlicePitch, const void *Src, pi_uint32 NumWaits,
                            const pi_event *Waits, pi_event *Event) {
  ImageRegion Checked;
  DGLINK_TRY(checkImageTransfer(Function, Queue, Image, Src, Origin, Region, RowPitch, SlicePitch,
                                NumWaits, Waits, Checked));
  return submit(*Queue, PI_COMMAND_TYPE_IMAGE_WRITE, NumWaits, Waits, Blocking, Event,
                [&](const Enqueue &Request) {
                  return Queue->Impl->writeImage(Function, *Image->Impl, Src, Checked, Request);
                });
}

pi_result enqueueImageCopy(const char *Function, pi_queue Queue, pi_mem Src, pi_mem Dst,
                           const size_t SrcOrigin[3], const size_t DstOrigin[3],
                           const size_t Region[3], pi_uint32 NumWaits, const pi_event *Waits,
                           pi_event *Event) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkQueueImage(Function, Queue, Src, "Src"));
  DGLINK_TRY(checkQueueImage(Function, Queue, Dst, "Dst"));
  if (SrcOrigin == nullptr || DstOrigin == nullptr || Region == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: an origin or the region is null", Function);
  const ImageDescription &S = *Src->Image, &D = *Dst->Image;
  if (S.Format.Order != D.Format.Order || S.Format.Type != D.Format.Type)
    return dglink::fail(PI_ERROR_IMAGE_FORMAT_NOT_SUPPORTED,
                        "{}: the images' formats differ (channel order {} and {}, channel type "
                        "{} and {}); a copy keeps the pixels' bytes",
                        Function, static_cast<uint32_t>(S.Format.Order),
                        static_cast<uint32_t>(D.Format.Order), static_cast<uint32_t>(S.Format.Type),
                        static_cast<uint32_t>(D.Format.Type));
  DGLINK_TRY(checkImageBox(Function, "source", S, SrcOrigin, Region));
  DGLINK_TRY(checkImageBox(Function, "destination", D, DstOrigin, Region));
  if (Src == Dst && boxesOverlap(SrcOrigin, DstOrigin, Region))
    return dglink::fail(PI_ERROR_MEM_COPY_OVERLAP,
                        "{}: the source and destination regions of one image overlap", Function);
  DGLINK_TRY(checkWaitList(NumWaits, Waits));
  ImageRegion Checked;
  std::copy(SrcOrigin, SrcOrigin + 3, Checked.Origin);
  std::copy(DstOrigin, DstOrigin + 3, Checked.DstOrigin);
  std::copy(Region, Region + 3, Checked.Region);
  return submit(*Queue, PI_COMMAND_TYPE_IMAGE_COPY, NumWaits, Waits, false, Event,
                [&](const Enqueue &Request) {
                  return Queue->Impl->copyImage(Function, *Src->Impl, *Dst->Impl, Checked, Request);
                });
}

// ---- samplers ----

pi_result createSampler(const char *Function, pi_context Context,
                        const SamplerDescription &Description, Sampler **Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  DGLINK_TRY(checkImageDevices(Function, *Context));
  std::unique_ptr<Sampler> Made = makeHandle<Sampler>();
  Made->Context = Context;
  Made->Description = Description;
  DGLINK_TRY(Context->Impl->createSampler(Function, Description, Made->Impl));
  retain(Context);
  *Out = Made.release();
  return PI_SUCCESS;
}

pi_result samplerFromNative(const char *Function, uintptr_t Native, pi_context Context, bool Owned,
                            Sampler **Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  DGLINK_TRY(checkImageDevices(Function, *Context));
  std::unique_ptr<Sampler> Made = makeHandle<Sampler>();
  Made->Context = Context;
  DGLINK_TRY(Context->Impl->adoptSampler(Function, Native, Owned, Made->Description, Made->Impl));
  retain(Context);
  *Out = Made.release();
  return PI_SUCCESS;
}

pi_result setSamplerArgument(const char *Function, pi_kernel Kernel, pi_uint32 Index,
                             Sampler *Value) {
  DGLINK_TRY(checkHandle(Kernel, PI_ERROR_INVALID_KERNEL, Function, "Kernel"));
  DGLINK_TRY(checkHandle(Value, PI_ERROR_INVALID_SAMPLER, Function, "sampler"));
  if (Value->Context != Kernel->Program->Context)
    return dglink::fail(PI_ERROR_INVALID_SAMPLER,
                        "{}: argument {} of kernel '{}': the sampler belongs to another context "
                        "than the kernel's program",
                        Function, Index, dglink::clip(Kernel->Name));
  DGLINK_TRY(Kernel->Impl->setSamplerArgument(Function, Index, *Value));
  forgetArgument(*Kernel, Index);
  return PI_SUCCESS;
}

} // namespace dglink::core
