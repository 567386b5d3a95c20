// CUDA arrays for the stream backend's images: the device's limits, arrays that kernels
// may load from and store to (surfaces), and the 2-D, 3-D and peer copies between them
// and linear memory.
#include "cuda_stream.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace dglink::cuda {
namespace {

CUarray_format arrayFormat(stream::ArrayElement Element) {
  switch (Element) {
  case stream::ArrayElement::Unsigned8:
    return CU_AD_FORMAT_UNSIGNED_INT8;
  case stream::ArrayElement::Unsigned16:
    return CU_AD_FORMAT_UNSIGNED_INT16;
  case stream::ArrayElement::Unsigned32:
    return CU_AD_FORMAT_UNSIGNED_INT32;
  case stream::ArrayElement::Signed8:
    return CU_AD_FORMAT_SIGNED_INT8;
  case stream::ArrayElement::Signed16:
    return CU_AD_FORMAT_SIGNED_INT16;
  case stream::ArrayElement::Signed32:
    return CU_AD_FORMAT_SIGNED_INT32;
  case stream::ArrayElement::Half:
    return CU_AD_FORMAT_HALF;
  case stream::ArrayElement::Float:
    break;
  }
  return CU_AD_FORMAT_FLOAT;
}

// One side of a copy in the fields every CUDA copy descriptor names alike; the 3-D ones
// also have a slice (srcZ) and rows per slice (srcHeight).
template <bool ThreeD, typename Descriptor>
void describeSource(const stream::ArraySide &Side, Descriptor &Out) {
  if (Side.Array != nullptr) {
    Out.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    Out.srcArray = reinterpret_cast<CUarray>(Side.Array);
    Out.srcXInBytes = Side.Offset[0];
    Out.srcY = Side.Offset[1];
    if constexpr (ThreeD)
      Out.srcZ = Side.Offset[2];
    return;
  }
  // Unified addressing: host (pageable or pinned) and device memory alike.
  Out.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  Out.srcDevice = reinterpret_cast<CUdeviceptr>(Side.Pointer);
  Out.srcPitch = Side.Pitch;
  if constexpr (ThreeD)
    Out.srcHeight = Side.Rows;
}

template <bool ThreeD, typename Descriptor>
void describeDestination(const stream::ArraySide &Side, Descriptor &Out) {
  if (Side.Array != nullptr) {
    Out.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    Out.dstArray = reinterpret_cast<CUarray>(Side.Array);
    Out.dstXInBytes = Side.Offset[0];
    Out.dstY = Side.Offset[1];
    if constexpr (ThreeD)
      Out.dstZ = Side.Offset[2];
    return;
  }
  Out.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  Out.dstDevice = reinterpret_cast<CUdeviceptr>(Side.Pointer);
  Out.dstPitch = Side.Pitch;
  if constexpr (ThreeD)
    Out.dstHeight = Side.Rows;
}

} // namespace

void readImageLimits(int Ordinal, stream::DeviceInfo::ImageLimits &Out) {
  Out = {};
  CUdevice Device = 0;
  if (!cu().hasImages() || cu().cuDeviceGet(&Device, Ordinal) != CUDA_SUCCESS)
    return;
  // What both a texture and a surface of the array may be: an image is both (read through
  // a sampler, written as a surface).
  const auto both = [&](CUdevice_attribute Texture, CUdevice_attribute Surface) {
    int T = 0, S = 0;
    if (cu().cuDeviceGetAttribute(&T, Texture, Device) != CUDA_SUCCESS ||
        cu().cuDeviceGetAttribute(&S, Surface, Device) != CUDA_SUCCESS)
      return size_t{0};
    return static_cast<size_t>(std::max(0, std::min(T, S)));
  };
  Out.Width1D = both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH,
                     CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH);
  Out.Max2D[0] = both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH,
                      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH);
  Out.Max2D[1] = both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT,
                      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT);
  Out.Max3D[0] = both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH,
                      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH);
  Out.Max3D[1] = both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT,
                      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT);
  Out.Max3D[2] = both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH,
                      CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH);
  Out.Layers = std::min(both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS,
                             CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS),
                        both(CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS,
                             CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS));
  Out.Supported =
      Out.Width1D > 0 && Out.Max2D[0] > 0 && Out.Max2D[1] > 0 && Out.Max3D[0] > 0 && Out.Layers > 0;
}

CUresult createArray(const stream::ArrayShape &Shape, CUarray &Out) {
  CUDA_ARRAY3D_DESCRIPTOR Descriptor{};
  Descriptor.Width = Shape.Width;
  Descriptor.Height = Shape.Height;
  Descriptor.Depth = Shape.Depth;
  Descriptor.Format = arrayFormat(Shape.Element);
  Descriptor.NumChannels = Shape.Channels;
  // Every image may be a kernel's surface argument.
  Descriptor.Flags = CUDA_ARRAY3D_SURFACE_LDST | (Shape.Layered ? CUDA_ARRAY3D_LAYERED : 0u);
  return cu().cuArray3DCreate(&Out, &Descriptor);
}

CUresult describeArray(CUarray Array, stream::ArrayShape &Out) {
  if (cu().cuArray3DGetDescriptor == nullptr)
    return CUDA_ERROR_NOT_SUPPORTED;
  CUDA_ARRAY3D_DESCRIPTOR Descriptor{};
  if (const CUresult R = cu().cuArray3DGetDescriptor(&Descriptor, Array); R != CUDA_SUCCESS)
    return R;
  const std::pair<CUarray_format, stream::ArrayElement> Elements[] = {
      {CU_AD_FORMAT_UNSIGNED_INT8, stream::ArrayElement::Unsigned8},
      {CU_AD_FORMAT_UNSIGNED_INT16, stream::ArrayElement::Unsigned16},
      {CU_AD_FORMAT_UNSIGNED_INT32, stream::ArrayElement::Unsigned32},
      {CU_AD_FORMAT_SIGNED_INT8, stream::ArrayElement::Signed8},
      {CU_AD_FORMAT_SIGNED_INT16, stream::ArrayElement::Signed16},
      {CU_AD_FORMAT_SIGNED_INT32, stream::ArrayElement::Signed32},
      {CU_AD_FORMAT_HALF, stream::ArrayElement::Half},
      {CU_AD_FORMAT_FLOAT, stream::ArrayElement::Float}};
  const auto Found = std::find_if(std::begin(Elements), std::end(Elements), [&](const auto &Each) {
    return Each.first == Descriptor.Format;
  });
  if (Found == std::end(Elements) ||
      (Descriptor.NumChannels != 1 && Descriptor.NumChannels != 2 && Descriptor.NumChannels != 4))
    return CUDA_ERROR_INVALID_VALUE;
  Out.Element = Found->second;
  Out.Channels = Descriptor.NumChannels;
  Out.Width = Descriptor.Width;
  Out.Height = Descriptor.Height;
  Out.Depth = Descriptor.Depth;
  Out.Layered = (Descriptor.Flags & CUDA_ARRAY3D_LAYERED) != 0;
  return CUDA_SUCCESS;
}

CUresult copyArray(const stream::ArrayCopy &Copy, int StreamOrdinal, CUstream S,
                   const char *&Call) {
  const CUcontext Here = primaryContext(StreamOrdinal);
  const auto contextOf = [&](const stream::ArraySide &Side) {
    return Side.Array != nullptr ? primaryContext(Side.Ordinal) : Here;
  };
  const CUcontext SrcContext = contextOf(Copy.Src), DstContext = contextOf(Copy.Dst);
  if (SrcContext != Here || DstContext != Here) {
    // An array of another device (a context of several): the driver copies between the
    // two contexts itself.
    CUDA_MEMCPY3D_PEER Peer{};
    describeSource<true>(Copy.Src, Peer);
    describeDestination<true>(Copy.Dst, Peer);
    Peer.srcContext = SrcContext;
    Peer.dstContext = DstContext;
    Peer.WidthInBytes = Copy.WidthBytes;
    Peer.Height = Copy.Height;
    Peer.Depth = Copy.Depth;
    Call = "cuMemcpy3DPeerAsync";
    return cu().cuMemcpy3DPeerAsync(&Peer, S);
  }
  if (!Copy.Volume) {
    CUDA_MEMCPY2D Flat{};
    describeSource<false>(Copy.Src, Flat);
    describeDestination<false>(Copy.Dst, Flat);
    Flat.WidthInBytes = Copy.WidthBytes;
    Flat.Height = Copy.Height;
    Call = "cuMemcpy2DAsync";
    return cu().cuMemcpy2DAsync(&Flat, S);
  }
  CUDA_MEMCPY3D Volume{};
  describeSource<true>(Copy.Src, Volume);
  describeDestination<true>(Copy.Dst, Volume);
  Volume.WidthInBytes = Copy.WidthBytes;
  Volume.Height = Copy.Height;
  Volume.Depth = Copy.Depth;
  Call = "cuMemcpy3DAsync";
  return cu().cuMemcpy3DAsync(&Volume, S);
}

CUresult createSurface(CUarray Array, CUsurfObject &Out) {
  CUDA_RESOURCE_DESC Resource{};
  Resource.resType = CU_RESOURCE_TYPE_ARRAY;
  Resource.res.array.hArray = Array;
  return cu().cuSurfObjectCreate(&Out, &Resource);
}

} // namespace dglink::cuda
