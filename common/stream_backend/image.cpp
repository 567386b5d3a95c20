// The stream backend's images and samplers (the core's image hooks, adapter_core/image.cpp):
// an image is the driver's array (Driver::createArray) on the context's first device,
// laid out tightly; reads, writes and copies are the driver's copies with arrays, in
// pixels turned into bytes here; a kernel's image argument is the driver's surface object
// over the array, a sampler argument DPC++'s 32-bit word (what UR's CUDA adapter passes).
#include <dglink/stream/backend.h>

#include <dglink/support/error.h>

#include <algorithm>

namespace dglink::stream {
namespace {

using core::ChannelOrder;
using core::ChannelType;
using core::ImageType;

// The driver's element and channel count of Format, and a channel's bytes; false for a
// format its arrays cannot hold: orders other than R, RG and RGBA (an array has 1, 2 or 4
// channels and no order of its own) and the packed types (565, 555, 101010).
bool arrayFormat(const core::PixelFormat &Format, ArrayElement &Element, unsigned &Channels,
                 size_t &ChannelBytes) {
  switch (Format.Order) {
  case ChannelOrder::R:
    Channels = 1;
    break;
  case ChannelOrder::RG:
    Channels = 2;
    break;
  case ChannelOrder::RGBA:
    Channels = 4;
    break;
  default:
    return false;
  }
  switch (Format.Type) {
  case ChannelType::UnormInt8:
  case ChannelType::UnsignedInt8:
    Element = ArrayElement::Unsigned8;
    ChannelBytes = 1;
    return true;
  case ChannelType::SnormInt8:
  case ChannelType::SignedInt8:
    Element = ArrayElement::Signed8;
    ChannelBytes = 1;
    return true;
  case ChannelType::UnormInt16:
  case ChannelType::UnsignedInt16:
    Element = ArrayElement::Unsigned16;
    ChannelBytes = 2;
    return true;
  case ChannelType::SnormInt16:
  case ChannelType::SignedInt16:
    Element = ArrayElement::Signed16;
    ChannelBytes = 2;
    return true;
  case ChannelType::UnsignedInt32:
    Element = ArrayElement::Unsigned32;
    ChannelBytes = 4;
    return true;
  case ChannelType::SignedInt32:
    Element = ArrayElement::Signed32;
    ChannelBytes = 4;
    return true;
  case ChannelType::HalfFloat:
    Element = ArrayElement::Half;
    ChannelBytes = 2;
    return true;
  case ChannelType::Float:
    Element = ArrayElement::Float;
    ChannelBytes = 4;
    return true;
  case ChannelType::UnormShort565:
  case ChannelType::UnormShort555:
  case ChannelType::UnormInt101010:
    break;
  }
  return false;
}

bool layered(ImageType Type) {
  return Type == ImageType::Image1DArray || Type == ImageType::Image2DArray;
}

// Whether a copy with this image is the driver's 3-D one.
bool volume(ImageType Type) { return Type == ImageType::Image3D || layered(Type); }

// The tight layout OpenCL reports for an image without host memory (row = width x pixel;
// slice = row x height for 3-D images and 2-D arrays, one row for a 1-D array, 0
// otherwise) and the image's bytes.
void layOut(core::ImageDescription &Image, size_t PixelBytes, size_t &Size) {
  Image.ElementSize = PixelBytes;
  Image.RowPitch = Image.Width * Image.ElementSize;
  switch (Image.Type) {
  case ImageType::Image1D:
  case ImageType::Image2D:
    Image.SlicePitch = 0;
    Size = Image.RowPitch * Image.Height;
    break;
  case ImageType::Image1DArray:
    Image.SlicePitch = Image.RowPitch;
    Size = Image.SlicePitch * Image.ArraySize;
    break;
  case ImageType::Image2DArray:
  case ImageType::Image3D:
    Image.SlicePitch = Image.RowPitch * Image.Height;
    Size = Image.SlicePitch * (Image.Type == ImageType::Image3D ? Image.Depth : Image.ArraySize);
    break;
  }
}

// The image type and sizes of an array of Shape (the driver's counting: no height for
// 1-D arrays, layers in the depth).
void imageOfShape(const ArrayShape &Shape, core::ImageDescription &Image) {
  Image.Width = Shape.Width;
  Image.Height = std::max<size_t>(Shape.Height, 1);
  Image.Depth = Image.ArraySize = 1;
  if (Shape.Layered) {
    Image.Type = Shape.Height == 0 ? ImageType::Image1DArray : ImageType::Image2DArray;
    Image.ArraySize = Shape.Depth;
  } else if (Shape.Depth != 0) {
    Image.Type = ImageType::Image3D;
    Image.Depth = Shape.Depth;
  } else {
    Image.Type = Shape.Height == 0 ? ImageType::Image1D : ImageType::Image2D;
  }
}

// The array's side of a box of Image at Origin (pixels, the core's coordinates: a 1-D
// array's images are its rows). The driver counts a layered array's layers as slices, so
// a 1-D array's rows become slices of one row.
ArraySide arraySide(const StreamImage &Image, const size_t Origin[3]) {
  ArraySide Side;
  Side.Array = Image.Array;
  Side.Ordinal = Image.Ordinal;
  Side.Offset[0] = Origin[0] * Image.Image.ElementSize;
  if (Image.Image.Type == ImageType::Image1DArray) {
    Side.Offset[1] = 0;
    Side.Offset[2] = Origin[1];
  } else {
    Side.Offset[1] = Origin[1];
    Side.Offset[2] = Origin[2];
  }
  return Side;
}

// Rows and slices of a Region of an image of Type, as the driver counts them.
void extentOf(ImageType Type, const size_t Region[3], size_t &Height, size_t &Depth) {
  if (Type == ImageType::Image1DArray) {
    Height = 1;
    Depth = Region[1];
  } else {
    Height = Region[1];
    Depth = Region[2];
  }
}

// A copy between Image (at Origin) and host or device memory at Linear (the box's first
// pixel; RowPitch and SlicePitch resolved), Region pixels, ToImage: the direction. One
// driver copy where the memory's slices are whole rows apart, else one per slice.
pi_result linearCopy(Driver &D, const StreamImage &Image, const size_t Origin[3],
                     const size_t Region[3], char *Linear, size_t RowPitch, size_t SlicePitch,
                     bool ToImage, int StreamOrdinal, Stream S) {
  ArrayCopy Copy;
  Copy.Volume = volume(Image.Image.Type);
  Copy.WidthBytes = Region[0] * Image.Image.ElementSize;
  extentOf(Image.Image.Type, Region, Copy.Height, Copy.Depth);
  ArraySide Memory;
  Memory.Pointer = Linear;
  if (Image.Image.Type == ImageType::Image1DArray) {
    // Each image of the array is one row of the memory, a slice pitch apart.
    Memory.Pitch = SlicePitch;
    Memory.Rows = 1;
  } else {
    Memory.Pitch = RowPitch;
    Memory.Rows = Copy.Height;
  }
  ArraySide Array = arraySide(Image, Origin);
  const bool WholeRows = Image.Image.Type == ImageType::Image1DArray || Copy.Depth == 1 ||
                         (SlicePitch % RowPitch == 0 && SlicePitch / RowPitch >= Copy.Height);
  if (WholeRows) {
    if (Copy.Depth > 1 && Image.Image.Type != ImageType::Image1DArray)
      Memory.Rows = SlicePitch / RowPitch;
    Copy.Src = ToImage ? Memory : Array;
    Copy.Dst = ToImage ? Array : Memory;
    return D.copyArray(Copy, StreamOrdinal, S);
  }
  const size_t Slices = Copy.Depth;
  Copy.Depth = 1;
  for (size_t Slice = 0; Slice < Slices; ++Slice) {
    ArraySide At = Memory;
    At.Pointer = Linear + Slice * SlicePitch;
    ArraySide Layer = Array;
    Layer.Offset[2] += Slice;
    Copy.Src = ToImage ? At : Layer;
    Copy.Dst = ToImage ? Layer : At;
    DGLINK_TRY(D.copyArray(Copy, StreamOrdinal, S));
  }
  return PI_SUCCESS;
}

} // namespace

// ---- images ----

StreamImage::~StreamImage() {
  Driver &D = driver();
  if (D.makeCurrent(Ordinal) != PI_SUCCESS)
    return;
  if (Surface != 0)
    D.destroySurface(Surface);
  if (OwnsArray)
    D.destroyArray(Array);
}

pi_result StreamImage::surface(const char *Function, uint64_t &Out) {
  std::lock_guard<std::mutex> Lock(SurfaceMutex);
  if (Surface == 0) {
    Driver &D = driver();
    DGLINK_TRY(D.makeCurrent(Ordinal));
    uint64_t Made = 0;
    if (const pi_result Result = D.createSurface(Array, Made); Result != PI_SUCCESS)
      return fail(Result, "{}: no surface object for the image argument: {}", Function,
                  lastErrorMessage());
    Surface = Made;
  }
  Out = Surface;
  return PI_SUCCESS;
}

// The array on the context's first device (a context of several reaches it from the
// others' queues through the driver's peer copies), laid out tightly: rows of Width
// pixels, slices (and a 2-D array's images) of Height rows, a 1-D array's images one row
// each, as OpenCL lays out an image without host memory. The caller's pixels are copied
// in for ALLOC_COPY_HOST_POINTER and USE_HOST_POINTER alike: an array cannot be the
// caller's memory, and without image maps (UR 0.12) nothing reads the host memory back.
pi_result StreamContext::createImage(const char *Function, pi_mem_flags,
                                     core::ImageDescription &Image, void *Host, size_t &Size,
                                     std::unique_ptr<core::MemImpl> &Impl) {
  ArrayShape Shape;
  size_t ChannelBytes = 0;
  if (!arrayFormat(Image.Format, Shape.Element, Shape.Channels, ChannelBytes))
    return fail(PI_ERROR_IMAGE_FORMAT_NOT_SUPPORTED,
                "{}: {} arrays hold no images of channel order {} and channel type {} (orders "
                "R, RG and RGBA of 8-, 16- and 32-bit integers, half and float)",
                Function, streamBackend().label(), static_cast<uint32_t>(Image.Format.Order),
                static_cast<uint32_t>(Image.Format.Type));
  // The caller's layout of its pixels (0: tight), before the image's own replaces it.
  const size_t HostRowPitch = Image.RowPitch, HostSlicePitch = Image.SlicePitch;
  layOut(Image, ChannelBytes * Shape.Channels, Size);
  Shape.Width = Image.Width;
  Shape.Layered = layered(Image.Type);
  const bool OneD = Image.Type == ImageType::Image1D || Image.Type == ImageType::Image1DArray;
  Shape.Height = OneD ? 0 : Image.Height;
  Shape.Depth = Image.Type == ImageType::Image3D ? Image.Depth
                : Shape.Layered                  ? Image.ArraySize
                                                 : 0;
  Driver &D = driver();
  const int Ordinal = first().Ordinal;
  DGLINK_TRY(D.makeCurrent(Ordinal));
  ImageArray Array = nullptr;
  if (const pi_result Result = D.createArray(Shape, Array); Result != PI_SUCCESS) {
    if (Result == PI_ERROR_UNSUPPORTED_FEATURE)
      return fail(Result, "{}: the {} driver makes no image arrays", Function,
                  streamBackend().label());
    return fail(Result, "{}: {}", Function, lastErrorMessage());
  }
  auto Made = std::make_unique<StreamImage>(Ordinal, Array, Image); // destroys it on failure
  if (Host != nullptr) {
    const size_t Origin[3] = {0, 0, 0};
    size_t Region[3];
    Image.extent(Region);
    const size_t RowsPerSlice = Image.Type == ImageType::Image1DArray ? 1 : Region[1];
    const size_t RowPitch = HostRowPitch != 0 ? HostRowPitch : Image.RowPitch;
    const size_t SlicePitch = HostSlicePitch != 0 ? HostSlicePitch : RowPitch * RowsPerSlice;
    // On the device's default stream, waited for: the image is whole when it is returned.
    DGLINK_TRY(linearCopy(D, *Made, Origin, Region, static_cast<char *>(Host), RowPitch, SlicePitch,
                          true, Ordinal, nullptr));
    DGLINK_TRY(D.synchronize(Stream{nullptr}));
  }
  Impl = std::move(Made);
  return PI_SUCCESS;
}

// The caller's array (its handle from urMemGetNativeHandle, say), taken as an array of the
// context's first device. An array states its sizes, channel count and channel width,
// not the channel order nor whether its integers are normalized (UNORM_INT8 and
// UNSIGNED_INT8 are one array format): those are the caller's description's, which must
// agree with the array in type and in what each pixel holds.
pi_result StreamContext::adoptImage(const char *Function, uintptr_t Native, bool Owned,
                                    const core::ImageDescription *Declared,
                                    core::ImageDescription &Image, size_t &Size,
                                    std::unique_ptr<core::MemImpl> &Impl) {
  const char *Label = streamBackend().label();
  if (Declared == nullptr)
    return fail(PI_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                "{}: a {} array does not state its channel order and type, and the caller's "
                "image format and descriptor are not valid",
                Function, Label);
  Driver &D = driver();
  const int Ordinal = first().Ordinal;
  DGLINK_TRY(D.makeCurrent(Ordinal));
  const auto Array = reinterpret_cast<ImageArray>(Native);
  ArrayShape Shape;
  if (const pi_result Result = D.describeArray(Array, Shape); Result != PI_SUCCESS) {
    if (Result == PI_ERROR_UNSUPPORTED_FEATURE)
      return fail(Result, "{}: the {} driver cannot describe an array", Function, Label);
    return fail(Result, "{}: native handle {:#x} is no {} array: {}", Function, Native, Label,
                lastErrorMessage());
  }
  ArrayShape Wanted;
  size_t ChannelBytes = 0;
  if (!arrayFormat(Declared->Format, Wanted.Element, Wanted.Channels, ChannelBytes))
    return fail(PI_ERROR_IMAGE_FORMAT_NOT_SUPPORTED,
                "{}: {} arrays hold no images of channel order {} and channel type {}", Function,
                Label, static_cast<uint32_t>(Declared->Format.Order),
                static_cast<uint32_t>(Declared->Format.Type));
  imageOfShape(Shape, Image);
  if (Wanted.Element != Shape.Element || Wanted.Channels != Shape.Channels ||
      Image.Type != Declared->Type)
    return fail(PI_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR,
                "{}: the {} array (image type {}, {} channels of element kind {}) is not the "
                "image described (type {}, {} channels of element kind {})",
                Function, Label, static_cast<uint32_t>(Image.Type), Shape.Channels,
                static_cast<int>(Shape.Element), static_cast<uint32_t>(Declared->Type),
                Wanted.Channels, static_cast<int>(Wanted.Element));
  Image.Format = Declared->Format;
  layOut(Image, ChannelBytes * Shape.Channels, Size);
  Impl = std::make_unique<StreamImage>(Ordinal, Array, Image, Owned);
  return PI_SUCCESS;
}

pi_result copyImageLinear(const StreamImage &Image, const core::ImageRegion &Region, char *Linear,
                          bool ToImage, int Ordinal, Stream S) {
  return linearCopy(driver(), Image, Region.Origin, Region.Region, Linear, Region.RowPitch,
                    Region.SlicePitch, ToImage, Ordinal, S);
}

// One driver copy where both images count the region's rows alike, else (a 1-D array,
// whose images the driver counts as layers, with an image whose rows are rows) one copy
// per row.
pi_result copyImageToImage(const StreamImage &From, const StreamImage &To,
                           const core::ImageRegion &Region, int Ordinal, Stream S) {
  Driver &D = driver();
  ArrayCopy Copy;
  Copy.Volume = volume(From.Image.Type) || volume(To.Image.Type);
  Copy.WidthBytes = Region.Region[0] * From.Image.ElementSize;
  const bool SrcRowsAsLayers = From.Image.Type == ImageType::Image1DArray;
  const bool DstRowsAsLayers = To.Image.Type == ImageType::Image1DArray;
  if (SrcRowsAsLayers == DstRowsAsLayers) {
    extentOf(From.Image.Type, Region.Region, Copy.Height, Copy.Depth);
    Copy.Src = arraySide(From, Region.Origin);
    Copy.Dst = arraySide(To, Region.DstOrigin);
    return D.copyArray(Copy, Ordinal, S);
  }
  Copy.Height = Copy.Depth = 1;
  for (size_t Slice = 0; Slice < Region.Region[2]; ++Slice)
    for (size_t Row = 0; Row < Region.Region[1]; ++Row) {
      const size_t SrcAt[3] = {Region.Origin[0], Region.Origin[1] + Row, Region.Origin[2] + Slice};
      const size_t DstAt[3] = {Region.DstOrigin[0], Region.DstOrigin[1] + Row,
                               Region.DstOrigin[2] + Slice};
      Copy.Src = arraySide(From, SrcAt);
      Copy.Dst = arraySide(To, DstAt);
      DGLINK_TRY(D.copyArray(Copy, Ordinal, S));
    }
  return PI_SUCCESS;
}

// ---- samplers ----

namespace {

uint32_t samplerWord(const core::SamplerDescription &Description) {
  return (Description.Normalized ? 1u : 0u) | (static_cast<uint32_t>(Description.Filter) << 1) |
         (static_cast<uint32_t>(Description.Addressing) << 2);
}

} // namespace

pi_result StreamContext::createSampler(const char *, const core::SamplerDescription &Description,
                                       std::unique_ptr<core::SamplerImpl> &Impl) {
  Impl = std::make_unique<StreamSampler>(samplerWord(Description));
  return PI_SUCCESS;
}

// The native handle of a sampler is its word (StreamSampler): any word of the five bits
// with an addressing mode UR names.
pi_result StreamContext::adoptSampler(const char *Function, uintptr_t Native, bool,
                                      core::SamplerDescription &Description,
                                      std::unique_ptr<core::SamplerImpl> &Impl) {
  const uintptr_t Addressing = (Native >> 2) & 7u;
  if ((Native >> 5) != 0 ||
      Addressing > static_cast<uint32_t>(core::SamplerAddressing::MirroredRepeat))
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: {:#x} is no {} sampler (bit 0 normalized coordinates, bit 1 the filter "
                "mode, bits 2-4 the addressing mode 0-4)",
                Function, Native, streamBackend().label());
  Description.Normalized = (Native & 1u) != 0;
  Description.Filter = static_cast<core::SamplerFilter>((Native >> 1) & 1u);
  Description.Addressing = static_cast<core::SamplerAddressing>(Addressing);
  Impl = std::make_unique<StreamSampler>(static_cast<uint32_t>(Native));
  return PI_SUCCESS;
}

// ---- kernel arguments ----

pi_result StreamKernel::setSamplerArgument(const char *Function, pi_uint32 Index,
                                           core::Sampler &Value) {
  const uint32_t Word = samplerWord(Value.Description);
  return setArgument(Function, Index, sizeof(Word), &Word);
}

pi_result StreamKernel::checkImagesOn(int Ordinal, const _pi_device &Device) const {
  for (size_t I = 0; I < Arguments.size(); ++I)
    if (Arguments[I].Set && Arguments[I].ImageOrdinal >= 0 && Arguments[I].ImageOrdinal != Ordinal)
      return fail(PI_ERROR_UNSUPPORTED_FEATURE,
                  "piEnqueueKernelLaunch: argument {} of kernel '{}' is an image of another device "
                  "of the context (the {} adapter keeps an image on the context's first device, "
                  "and a kernel on device '{}' cannot reach it)",
                  I, Name, streamBackend().label(), Device.Description.Name);
  return PI_SUCCESS;
}

} // namespace dglink::stream
