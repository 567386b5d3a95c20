// nvJitLink through dlopen, and the driver's cuLink* as the fallback.
#include "jit_link.h"

#include "cuda_driver.h"

#include <dglink/support/error.h>
#include <dglink/support/image.h>
#include <dglink/support/log.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace dglink::cuda {

const char *nativeFormatName(NativeFormat Format) {
  switch (Format) {
  case NativeFormat::Ptx:
    return "PTX";
  case NativeFormat::Cubin:
    return "cubin";
  case NativeFormat::Fatbin:
    return "fatbin";
  }
  return "unknown";
}

bool detectNativeFormat(const void *Data, size_t Size, NativeFormat &Format) {
  if (Data == nullptr || Size < 4)
    return false;
  uint32_t Magic;
  std::memcpy(&Magic, Data, 4);
  if (Magic == 0xBA55ED50u) { // fatbin header
    Format = NativeFormat::Fatbin;
    return true;
  }
  switch (detectFormat(Data, Size)) {
  case ImageFormat::Ptx:
    Format = NativeFormat::Ptx;
    return true;
  case ImageFormat::Elf:
    Format = NativeFormat::Cubin;
    return true;
  default:
    return false;
  }
}

namespace {

// nvJitLink's C interface, declared here so that building needs no nvJitLink.h
// (values as in nvJitLink.h of CUDA 12 and 13).
using NvJitLinkHandle = void *;
using NvJitLinkResult = int;
constexpr NvJitLinkResult NvJitLinkSuccess = 0;
enum NvJitLinkInputType {
  NvJitLinkInputCubin = 1,
  NvJitLinkInputPtx = 2,
  NvJitLinkInputFatbin = 4
};

struct NvJitLink {
  NvJitLinkResult (*Create)(NvJitLinkHandle *, uint32_t, const char **) = nullptr;
  NvJitLinkResult (*Destroy)(NvJitLinkHandle *) = nullptr;
  NvJitLinkResult (*AddData)(NvJitLinkHandle, int, const void *, size_t, const char *) = nullptr;
  NvJitLinkResult (*Complete)(NvJitLinkHandle) = nullptr;
  NvJitLinkResult (*GetLinkedCubinSize)(NvJitLinkHandle, size_t *) = nullptr;
  NvJitLinkResult (*GetLinkedCubin)(NvJitLinkHandle, void *) = nullptr;
  NvJitLinkResult (*GetErrorLogSize)(NvJitLinkHandle, size_t *) = nullptr;
  NvJitLinkResult (*GetErrorLog)(NvJitLinkHandle, char *) = nullptr;
  NvJitLinkResult (*GetInfoLogSize)(NvJitLinkHandle, size_t *) = nullptr;
  NvJitLinkResult (*GetInfoLog)(NvJitLinkHandle, char *) = nullptr;
  bool Loaded = false;
  std::string Where;
};

template <typename Function> bool resolve(void *Library, const char *Name, Function &Out) {
  // The plain name (CUDA 12 and 13), then the versioned one of CUDA 13.
  void *Address = dlsym(Library, Name);
  if (Address == nullptr)
    Address = dlsym(Library, ("__" + std::string(Name) + "_13_0").c_str());
  if (Address == nullptr)
    return false;
  std::memcpy(&Out, &Address, sizeof(Out));
  return true;
}

NvJitLink loadNvJitLink() {
  NvJitLink Api;
  std::vector<std::string> Candidates;
  const char *Override = std::getenv("DGLINK_CUDA_NVJITLINK");
  if (Override != nullptr && std::strcmp(Override, "off") == 0) {
    logger().info("cuda: nvJitLink disabled by DGLINK_CUDA_NVJITLINK=off");
    return Api;
  }
  if (Override != nullptr && *Override != '\0')
    Candidates.push_back(Override);
  Candidates.push_back("libnvJitLink.so.13");
  Candidates.push_back("libnvJitLink.so");
  if (const char *CudaPath = std::getenv("CUDA_PATH"))
    Candidates.push_back(std::string(CudaPath) + "/lib64/libnvJitLink.so.13");
  Candidates.push_back("/usr/local/cuda/lib64/libnvJitLink.so.13");
  Candidates.push_back("/usr/local/cuda/lib64/libnvJitLink.so");
  for (const std::string &Candidate : Candidates) {
    void *Library = dlopen(Candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (Library == nullptr)
      continue;
    bool Complete = resolve(Library, "nvJitLinkCreate", Api.Create) &&
                    resolve(Library, "nvJitLinkDestroy", Api.Destroy) &&
                    resolve(Library, "nvJitLinkAddData", Api.AddData) &&
                    resolve(Library, "nvJitLinkComplete", Api.Complete) &&
                    resolve(Library, "nvJitLinkGetLinkedCubinSize", Api.GetLinkedCubinSize) &&
                    resolve(Library, "nvJitLinkGetLinkedCubin", Api.GetLinkedCubin) &&
                    resolve(Library, "nvJitLinkGetErrorLogSize", Api.GetErrorLogSize) &&
                    resolve(Library, "nvJitLinkGetErrorLog", Api.GetErrorLog) &&
                    resolve(Library, "nvJitLinkGetInfoLogSize", Api.GetInfoLogSize) &&
                    resolve(Library, "nvJitLinkGetInfoLog", Api.GetInfoLog);
    if (!Complete) {
      logger().info("cuda: {} lacks nvJitLink functions; not used", Candidate);
      dlclose(Library);
      Api = NvJitLink();
      continue;
    }
    Api.Loaded = true;
    Api.Where = Candidate;
    logger().debug("cuda: nvJitLink from {}", Candidate);
    return Api;
  }
  logger().info("cuda: libnvJitLink not found; linking uses the driver's cuLink*");
  return Api;
}

const NvJitLink &nvJitLink() {
  static const NvJitLink Api = loadNvJitLink();
  return Api;
}

std::string readLog(NvJitLinkHandle Handle, NvJitLinkResult (*SizeOf)(NvJitLinkHandle, size_t *),
                    NvJitLinkResult (*Read)(NvJitLinkHandle, char *)) {
  size_t Size = 0;
  if (SizeOf(Handle, &Size) != NvJitLinkSuccess || Size <= 1)
    return {};
  std::string Text(Size, '\0');
  if (Read(Handle, Text.data()) != NvJitLinkSuccess)
    return {};
  Text.resize(std::strlen(Text.c_str()));
  return Text;
}

} // namespace

bool nvJitLinkAvailable(std::string *Where) {
  const NvJitLink &Api = nvJitLink();
  if (Where != nullptr)
    *Where = Api.Where;
  return Api.Loaded;
}

pi_result linkWithNvJitLink(const std::vector<LinkInput> &Inputs, int Major, int Minor,
                            std::vector<char> &Cubin, std::string &Log) {
  const NvJitLink &Api = nvJitLink();
  if (!Api.Loaded)
    return fail(PI_ERROR_LINKER_NOT_AVAILABLE, "piProgramLink: libnvJitLink is not available");
  const std::string Arch = "-arch=sm_" + std::to_string(Major) + std::to_string(Minor);
  const char *Options[] = {Arch.c_str()};
  NvJitLinkHandle Handle = nullptr;
  NvJitLinkResult Result = Api.Create(&Handle, 1, Options);
  if (Result != NvJitLinkSuccess)
    return fail(PI_ERROR_LINK_PROGRAM_FAILURE, "piProgramLink: nvJitLinkCreate({}) failed ({})",
                Arch, Result);
  struct Cleanup {
    const NvJitLink &Api;
    NvJitLinkHandle &Handle;
    ~Cleanup() { Api.Destroy(&Handle); }
  } DestroyAtExit{Api, Handle};

  for (const LinkInput &Input : Inputs) {
    const int Type = Input.Format == NativeFormat::Ptx     ? NvJitLinkInputPtx
                     : Input.Format == NativeFormat::Cubin ? NvJitLinkInputCubin
                                                           : NvJitLinkInputFatbin;
    Result = Api.AddData(Handle, Type, Input.Data, Input.Size, Input.Name.c_str());
    if (Result != NvJitLinkSuccess) {
      Log += readLog(Handle, Api.GetErrorLogSize, Api.GetErrorLog);
      return fail(PI_ERROR_LINK_PROGRAM_FAILURE,
                  "piProgramLink: nvJitLink refused input '{}' ({}, error {}): {}", Input.Name,
                  nativeFormatName(Input.Format), Result, Log);
    }
  }
  Result = Api.Complete(Handle);
  const std::string Info = readLog(Handle, Api.GetInfoLogSize, Api.GetInfoLog);
  const std::string Errors = readLog(Handle, Api.GetErrorLogSize, Api.GetErrorLog);
  Log += Errors;
  if (!Info.empty())
    Log += (Log.empty() || Log.back() == '\n' ? "" : "\n") + Info;
  if (Result != NvJitLinkSuccess)
    return fail(PI_ERROR_LINK_PROGRAM_FAILURE, "piProgramLink: nvJitLink failed (error {}): {}",
                Result, Errors);
  size_t Size = 0;
  if (Api.GetLinkedCubinSize(Handle, &Size) != NvJitLinkSuccess || Size == 0)
    return fail(PI_ERROR_LINK_PROGRAM_FAILURE, "piProgramLink: nvJitLink produced no cubin");
  Cubin.resize(Size);
  if (Api.GetLinkedCubin(Handle, Cubin.data()) != NvJitLinkSuccess)
    return fail(PI_ERROR_LINK_PROGRAM_FAILURE, "piProgramLink: cannot read nvJitLink's cubin");
  return PI_SUCCESS;
}

pi_result linkWithDriver(const std::vector<LinkInput> &Inputs, std::vector<char> &Cubin,
                         std::string &Log) {
  const CudaDriver &Cu = cu();
  if (!Cu.hasLinker())
    return fail(PI_ERROR_LINKER_NOT_AVAILABLE,
                "piProgramLink: neither libnvJitLink nor the driver's cuLink* is available");
  std::vector<char> ErrorLog(16384, '\0');
  std::vector<char> InfoLog(16384, '\0');
  CUjit_option Options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *Values[] = {ErrorLog.data(), reinterpret_cast<void *>(ErrorLog.size()), InfoLog.data(),
                    reinterpret_cast<void *>(InfoLog.size())};
  CUlinkState State = nullptr;
  CUresult Result = Cu.cuLinkCreate(4, Options, Values, &State);
  if (Result != CUDA_SUCCESS)
    return cudaError(Result, "cuLinkCreate", PI_ERROR_LINK_PROGRAM_FAILURE);
  auto Finish = [&](pi_result Code) {
    Log += ErrorLog.data();
    if (InfoLog[0] != '\0')
      Log += std::string(Log.empty() || Log.back() == '\n' ? "" : "\n") + InfoLog.data();
    Cu.cuLinkDestroy(State);
    return Code;
  };
  for (const LinkInput &Input : Inputs) {
    const CUjitInputType Type = Input.Format == NativeFormat::Ptx     ? CU_JIT_INPUT_PTX
                                : Input.Format == NativeFormat::Cubin ? CU_JIT_INPUT_CUBIN
                                                                      : CU_JIT_INPUT_FATBINARY;
    Result = Cu.cuLinkAddData(State, Type, const_cast<void *>(Input.Data), Input.Size,
                              Input.Name.c_str(), 0, nullptr, nullptr);
    if (Result != CUDA_SUCCESS)
      return Finish(fail(PI_ERROR_LINK_PROGRAM_FAILURE,
                         "piProgramLink: cuLinkAddData refused input '{}' (CUresult {}): {}",
                         Input.Name, static_cast<int>(Result), ErrorLog.data()));
  }
  void *Linked = nullptr;
  size_t Size = 0;
  Result = Cu.cuLinkComplete(State, &Linked, &Size);
  if (Result != CUDA_SUCCESS)
    return Finish(fail(PI_ERROR_LINK_PROGRAM_FAILURE,
                       "piProgramLink: cuLinkComplete failed (CUresult {}): {}",
                       static_cast<int>(Result), ErrorLog.data()));
  // The cubin belongs to the link state: copy it before destroying the state.
  Cubin.assign(static_cast<const char *>(Linked), static_cast<const char *>(Linked) + Size);
  return Finish(PI_SUCCESS);
}

} // namespace dglink::cuda
