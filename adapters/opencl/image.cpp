// Images and samplers (the core's image hooks, common/adapter_core/image.cpp): OpenCL
// images through clCreateImage (formats the driver lists for the image type and access,
// clGetSupportedImageFormats), their commands through clEnqueue{Read,Write,Copy}Image,
// samplers through clCreateSamplerWithProperties, and both adopted from the caller's
// cl_mem / cl_sampler.
#include "backend.h"

#include <algorithm>
#include <iterator>

namespace dglink::opencl {

namespace {

// What CL_MEM_CONTEXT / CL_SAMPLER_CONTEXT write: a handle.
constexpr size_t ContextBytes = sizeof(cl_context); // NOLINT(bugprone-sizeof-expression)

// The core's enumerations (UR's numbering) against OpenCL's.
constexpr cl_channel_order ClOrders[core::ChannelOrderCount] = {
    CL_A,    CL_R,         CL_RG,        CL_RA, CL_RGB, CL_RGBA, CL_BGRA, CL_ARGB,
    CL_ABGR, CL_INTENSITY, CL_LUMINANCE, CL_Rx, CL_RGx, CL_RGBx, CL_sRGBA};
constexpr cl_channel_type ClTypes[core::ChannelTypeCount] = {
    CL_SNORM_INT8,      CL_SNORM_INT16,      CL_UNORM_INT8,     CL_UNORM_INT16,  CL_UNORM_SHORT_565,
    CL_UNORM_SHORT_555, CL_UNORM_INT_101010, CL_SIGNED_INT8,    CL_SIGNED_INT16, CL_SIGNED_INT32,
    CL_UNSIGNED_INT8,   CL_UNSIGNED_INT16,   CL_UNSIGNED_INT32, CL_HALF_FLOAT,   CL_FLOAT};

cl_image_format clFormat(const core::PixelFormat &Format) {
  return {ClOrders[static_cast<uint32_t>(Format.Order)],
          ClTypes[static_cast<uint32_t>(Format.Type)]};
}

cl_mem_object_type clType(core::ImageType Type) {
  switch (Type) {
  case core::ImageType::Image1D:
    return CL_MEM_OBJECT_IMAGE1D;
  case core::ImageType::Image1DArray:
    return CL_MEM_OBJECT_IMAGE1D_ARRAY;
  case core::ImageType::Image2D:
    return CL_MEM_OBJECT_IMAGE2D;
  case core::ImageType::Image2DArray:
    return CL_MEM_OBJECT_IMAGE2D_ARRAY;
  case core::ImageType::Image3D:
    break;
  }
  return CL_MEM_OBJECT_IMAGE3D;
}

cl_mem_flags clFlags(pi_mem_flags Flags) {
  const cl_mem_flags Access = (Flags & PI_MEM_FLAGS_ACCESS_READ_ONLY) != 0    ? CL_MEM_READ_ONLY
                              : (Flags & PI_MEM_FLAGS_ACCESS_WRITE_ONLY) != 0 ? CL_MEM_WRITE_ONLY
                                                                              : CL_MEM_READ_WRITE;
  return Access | ((Flags & PI_MEM_FLAGS_HOST_PTR_USE) != 0 ? CL_MEM_USE_HOST_PTR : 0) |
         ((Flags & PI_MEM_FLAGS_HOST_PTR_COPY) != 0 ? CL_MEM_COPY_HOST_PTR : 0);
}

// Whether the driver lists Format for images of Type with Access in Context.
pi_result formatListed(const char *Function, cl_context Context, cl_mem_flags Access,
                       cl_mem_object_type Type, const cl_image_format &Format, bool &Listed) {
  cl_uint Count = 0;
  cl_int Error = clGetSupportedImageFormats(Context, Access, Type, 0, nullptr, &Count);
  std::vector<cl_image_format> Formats(Count);
  if (Error == CL_SUCCESS && Count != 0)
    Error = clGetSupportedImageFormats(Context, Access, Type, Count, Formats.data(), nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function, "clGetSupportedImageFormats");
  Listed = false;
  for (const cl_image_format &Each : Formats)
    Listed = Listed || (Each.image_channel_order == Format.image_channel_order &&
                        Each.image_channel_data_type == Format.image_channel_data_type);
  return PI_SUCCESS;
}

// What the driver says of an image: its layout into Image, its bytes into Size.
pi_result describeLayout(const char *Function, cl_mem Mem, core::ImageDescription &Image,
                         size_t &Size) {
  cl_int Error =
      clGetImageInfo(Mem, CL_IMAGE_ELEMENT_SIZE, sizeof(size_t), &Image.ElementSize, nullptr);
  if (Error == CL_SUCCESS)
    Error = clGetImageInfo(Mem, CL_IMAGE_ROW_PITCH, sizeof(size_t), &Image.RowPitch, nullptr);
  if (Error == CL_SUCCESS)
    Error = clGetImageInfo(Mem, CL_IMAGE_SLICE_PITCH, sizeof(size_t), &Image.SlicePitch, nullptr);
  if (Error == CL_SUCCESS)
    Error = clGetMemObjectInfo(Mem, CL_MEM_SIZE, sizeof(size_t), &Size, nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function, "clGetImageInfo");
  return PI_SUCCESS;
}

template <typename T, size_t N> bool indexOf(const T (&Table)[N], T Value, uint32_t &Out) {
  for (uint32_t I = 0; I < N; ++I)
    if (Table[I] == Value) {
      Out = I;
      return true;
    }
  return false;
}

constexpr cl_addressing_mode ClAddressing[] = {CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE,
                                               CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT,
                                               CL_ADDRESS_MIRRORED_REPEAT};
constexpr cl_filter_mode ClFilters[] = {CL_FILTER_NEAREST, CL_FILTER_LINEAR};

} // namespace

pi_result ClContext::createImage(const char *Function, pi_mem_flags Flags,
                                 core::ImageDescription &Image, void *Host, size_t &Size,
                                 std::unique_ptr<core::MemImpl> &Impl) {
  const cl_image_format Format = clFormat(Image.Format);
  const cl_mem_object_type Type = clType(Image.Type);
  const cl_mem_flags ClFlags = clFlags(Flags);
  bool Listed = false;
  DGLINK_TRY(formatListed(Function, Context,
                          ClFlags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY),
                          Type, Format, Listed));
  if (!Listed)
    return fail(PI_ERROR_IMAGE_FORMAT_NOT_SUPPORTED,
                "{}: the OpenCL driver lists no image format {{channel order {:#x}, channel type "
                "{:#x}}} for this image type and access (clGetSupportedImageFormats)",
                Function, Format.image_channel_order, Format.image_channel_data_type);
  cl_image_desc Desc{};
  Desc.image_type = Type;
  Desc.image_width = Image.Width;
  const bool OneD =
      Image.Type == core::ImageType::Image1D || Image.Type == core::ImageType::Image1DArray;
  const bool Array =
      Image.Type == core::ImageType::Image1DArray || Image.Type == core::ImageType::Image2DArray;
  Desc.image_height = OneD ? 0 : Image.Height;
  Desc.image_depth = Image.Type == core::ImageType::Image3D ? Image.Depth : 0;
  Desc.image_array_size = Array ? Image.ArraySize : 0;
  Desc.image_row_pitch = Host != nullptr ? Image.RowPitch : 0;
  Desc.image_slice_pitch = Host != nullptr ? Image.SlicePitch : 0;
  auto Made = std::make_unique<ClMem>(nullptr);
  Made->ObjectType = Type;
  cl_int Error = CL_SUCCESS;
  Made->Mem = clCreateImage(Context, ClFlags, &Format, &Desc, Host, &Error);
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function, "clCreateImage");
  DGLINK_TRY(describeLayout(Function, Made->Mem, Image, Size));
  Impl = std::move(Made);
  return PI_SUCCESS;
}

pi_result ClContext::adoptImage(const char *Function, uintptr_t Native, bool Owned,
                                const core::ImageDescription *, core::ImageDescription &Image,
                                size_t &Size, std::unique_ptr<core::MemImpl> &Impl) {
  auto *Mem = reinterpret_cast<cl_mem>(Native);
  cl_mem_object_type Type = 0;
  DGLINK_TRY(callersMem(Function, Native, "image", Type));
  const std::pair<cl_mem_object_type, core::ImageType> Types[] = {
      {CL_MEM_OBJECT_IMAGE1D, core::ImageType::Image1D},
      {CL_MEM_OBJECT_IMAGE1D_ARRAY, core::ImageType::Image1DArray},
      {CL_MEM_OBJECT_IMAGE2D, core::ImageType::Image2D},
      {CL_MEM_OBJECT_IMAGE2D_ARRAY, core::ImageType::Image2DArray},
      {CL_MEM_OBJECT_IMAGE3D, core::ImageType::Image3D}};
  const auto Found = std::find_if(std::begin(Types), std::end(Types),
                                  [&](const auto &Each) { return Each.first == Type; });
  if (Found == std::end(Types))
    return fail(PI_ERROR_INVALID_MEM_OBJECT,
                "{}: the OpenCL memory object is no image of 1 to 3 dimensions (type {:#x})",
                Function, Type);
  cl_image_format Format{};
  cl_int Error = clGetImageInfo(Mem, CL_IMAGE_FORMAT, sizeof(Format), &Format, nullptr);
  size_t Dimensions[4] = {0, 0, 0, 0};
  const cl_image_info Queries[] = {CL_IMAGE_WIDTH, CL_IMAGE_HEIGHT, CL_IMAGE_DEPTH,
                                   CL_IMAGE_ARRAY_SIZE};
  for (size_t I = 0; I < 4 && Error == CL_SUCCESS; ++I)
    Error = clGetImageInfo(Mem, Queries[I], sizeof(size_t), &Dimensions[I], nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function, "clGetImageInfo");
  uint32_t Order = 0, Channel = 0;
  if (!indexOf(ClOrders, Format.image_channel_order, Order) ||
      !indexOf(ClTypes, Format.image_channel_data_type, Channel))
    return fail(PI_ERROR_IMAGE_FORMAT_NOT_SUPPORTED,
                "{}: the image's format {{{:#x}, {:#x}}} has no Unified Runtime name", Function,
                Format.image_channel_order, Format.image_channel_data_type);
  Image.Type = Found->second;
  Image.Format.Order = static_cast<core::ChannelOrder>(Order);
  Image.Format.Type = static_cast<core::ChannelType>(Channel);
  Image.Width = Dimensions[0];
  Image.Height = std::max<size_t>(Dimensions[1], 1);
  Image.Depth = std::max<size_t>(Dimensions[2], 1);
  Image.ArraySize = std::max<size_t>(Dimensions[3], 1);
  DGLINK_TRY(describeLayout(Function, Mem, Image, Size));
  auto Made = std::make_unique<ClMem>(nullptr);
  Made->ObjectType = Type;
  if (!Owned) {
    Error = clRetainMemObject(Mem);
    if (Error != CL_SUCCESS)
      return clFailure(Error, Function, "clRetainMemObject");
  }
  Made->Mem = Mem;
  Impl = std::move(Made);
  return PI_SUCCESS;
}

ClSampler::~ClSampler() {
  if (Sampler != nullptr)
    clReleaseSampler(Sampler);
}

pi_result ClContext::createSampler(const char *Function,
                                   const core::SamplerDescription &Description,
                                   std::unique_ptr<core::SamplerImpl> &Impl) {
  const cl_sampler_properties Properties[] = {
      CL_SAMPLER_NORMALIZED_COORDS,
      static_cast<cl_sampler_properties>(Description.Normalized ? CL_TRUE : CL_FALSE),
      CL_SAMPLER_ADDRESSING_MODE,
      ClAddressing[static_cast<uint32_t>(Description.Addressing)],
      CL_SAMPLER_FILTER_MODE,
      ClFilters[static_cast<uint32_t>(Description.Filter)],
      0};
  cl_int Error = CL_SUCCESS;
  auto Made =
      std::make_unique<ClSampler>(clCreateSamplerWithProperties(Context, Properties, &Error));
  const bool Undefined = !Description.Normalized &&
                         (Description.Addressing == core::SamplerAddressing::Repeat ||
                          Description.Addressing == core::SamplerAddressing::MirroredRepeat);
  if (Error == CL_INVALID_VALUE && Undefined) {
    // OpenCL defines no reads through such a sampler (OpenCL C: REPEAT and MIRRORED_REPEAT
    // need normalized coordinates); UR lets it be made. Kept without a driver sampler:
    // a kernel given it is refused.
    Made->Sampler = nullptr;
    Made->Refusal = fmt::format(
        "the OpenCL driver refused the sampler (CL_INVALID_VALUE): OpenCL defines no reads "
        "with unnormalized coordinates and {} addressing",
        Description.Addressing == core::SamplerAddressing::Repeat ? "REPEAT" : "MIRRORED_REPEAT");
  } else if (Error != CL_SUCCESS) {
    return clFailure(Error, Function, "clCreateSamplerWithProperties");
  }
  Impl = std::move(Made);
  return PI_SUCCESS;
}

pi_result ClContext::adoptSampler(const char *Function, uintptr_t Native, bool Owned,
                                  core::SamplerDescription &Description,
                                  std::unique_ptr<core::SamplerImpl> &Impl) {
  auto *Sampler = reinterpret_cast<cl_sampler>(Native);
  cl_context Of = nullptr;
  cl_int Error = clGetSamplerInfo(Sampler, CL_SAMPLER_CONTEXT, ContextBytes, &Of, nullptr);
  if (Error != CL_SUCCESS)
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: native handle {:#x} is no OpenCL sampler (clGetSamplerInfo: {})", Function,
                Native, clErrorName(Error));
  if (Of != Context)
    return fail(PI_ERROR_INVALID_CONTEXT,
                "{}: the sampler belongs to another OpenCL context than the context's", Function);
  cl_bool Normalized = CL_TRUE;
  cl_addressing_mode Addressing = CL_ADDRESS_CLAMP;
  cl_filter_mode Filter = CL_FILTER_NEAREST;
  Error = clGetSamplerInfo(Sampler, CL_SAMPLER_NORMALIZED_COORDS, sizeof(Normalized), &Normalized,
                           nullptr);
  if (Error == CL_SUCCESS)
    Error = clGetSamplerInfo(Sampler, CL_SAMPLER_ADDRESSING_MODE, sizeof(Addressing), &Addressing,
                             nullptr);
  if (Error == CL_SUCCESS)
    Error = clGetSamplerInfo(Sampler, CL_SAMPLER_FILTER_MODE, sizeof(Filter), &Filter, nullptr);
  if (Error != CL_SUCCESS)
    return clFailure(Error, Function, "clGetSamplerInfo");
  uint32_t AddressingIndex = 0, FilterIndex = 0;
  if (!indexOf(ClAddressing, Addressing, AddressingIndex) ||
      !indexOf(ClFilters, Filter, FilterIndex))
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: the sampler's addressing {:#x} or filter {:#x} has no Unified Runtime name",
                Function, Addressing, Filter);
  if (!Owned) {
    Error = clRetainSampler(Sampler);
    if (Error != CL_SUCCESS)
      return clFailure(Error, Function, "clRetainSampler");
  }
  Description.Normalized = Normalized == CL_TRUE;
  Description.Addressing = static_cast<core::SamplerAddressing>(AddressingIndex);
  Description.Filter = static_cast<core::SamplerFilter>(FilterIndex);
  Impl = std::make_unique<ClSampler>(Sampler);
  return PI_SUCCESS;
}

pi_result ClKernel::setSamplerArgument(const char *Function, pi_uint32 Index,
                                       core::Sampler &Value) {
  DGLINK_TRY(checkIndex(Function, Index));
  const auto &Sampler = static_cast<const ClSampler &>(*Value.Impl);
  if (Sampler.Sampler == nullptr)
    return fail(PI_ERROR_INVALID_SAMPLER, "{}: argument {} of kernel '{}': {}", Function, Index,
                clip(Name), Sampler.Refusal);
  const cl_int Error = clSetKernelArg(Kernel, Index, sizeof(cl_sampler), &Sampler.Sampler);
  if (Error != CL_SUCCESS)
    return argumentFailure(Function, "clSetKernelArg", Error, Index);
  return PI_SUCCESS;
}

} // namespace dglink::opencl
