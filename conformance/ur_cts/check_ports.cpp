// Runs the ports of UR's CTS device programs (conformance/ur_cts, docs/ur.md) that the CTS
// itself cannot run on every adapter yet (their tests zero buffers with
// urEnqueueMemBufferFill, or need command buffers) through the UR loader, with the
// argument lists the CTS uses, and checks what each writes.
//   dglink_ur_cts_check_ports KERNEL_DIR [TRIPLE]
// KERNEL_DIR: <program>/<triple>.bin.0 as UR's build made them with dpcxx-standin;
// TRIPLE: spir64 (default; urProgramCreateWithIL) or nvptx64-nvidia-cuda
// (urProgramCreateWithBinary). The first device of the first platform the loader gives
// (UR_ADAPTERS_FORCE_LOAD, ONEAPI_DEVICE_SELECTOR) runs them. Exit status 0 when every
// port wrote what the original program writes.
#include <unified-runtime/ur_api.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

namespace {

int Failures = 0;

#define CHECK_UR(Call)                                                                             \
  do {                                                                                             \
    const ur_result_t Result_ = (Call);                                                            \
    if (Result_ != UR_RESULT_SUCCESS) {                                                            \
      std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #Call,                    \
                   static_cast<int>(Result_));                                                     \
      return false;                                                                                \
    }                                                                                              \
  } while (0)

const std::string CghPrefix = "_ZTSZZ4mainENKUlRN4sycl3_V17handlerEE_clES2_E";

struct Env {
  std::string Dir, Triple;
  ur_platform_handle_t Platform = nullptr;
  ur_device_handle_t Device = nullptr;
  ur_context_handle_t Context = nullptr;
  ur_queue_handle_t Queue = nullptr;
};

struct Id1 {
  uint64_t Offset = 0;
};

// The arguments of the next launch of a kernel (UR 0.12 sets them with the launch:
// urEnqueueKernelLaunchWithArgsExp), values stored until then.
struct Args {
  ur_kernel_handle_t Kernel = nullptr;
  std::vector<ur_exp_kernel_arg_properties_t> List;
  std::vector<std::vector<uint8_t>> Values;

  void add(uint32_t Index, ur_exp_kernel_arg_type_t Type, size_t Size,
           ur_exp_kernel_arg_value_t Value) {
    ur_exp_kernel_arg_properties_t Arg{};
    Arg.stype = UR_STRUCTURE_TYPE_EXP_KERNEL_ARG_PROPERTIES;
    Arg.type = Type;
    Arg.index = Index;
    Arg.size = Size;
    Arg.value = Value;
    List.push_back(Arg);
  }
  void addValue(uint32_t Index, const void *Data, size_t Size) {
    auto &Stored = Values.emplace_back(static_cast<const uint8_t *>(Data),
                                       static_cast<const uint8_t *>(Data) + Size);
    ur_exp_kernel_arg_value_t Value{};
    Value.value = Stored.data();
    add(Index, UR_EXP_KERNEL_ARG_TYPE_VALUE, Size, Value);
  }
};

std::vector<Args> Pending;

Args &argsOf(ur_kernel_handle_t K) {
  for (Args &A : Pending)
    if (A.Kernel == K)
      return A;
  Pending.emplace_back().Kernel = K;
  Pending.back().Values.reserve(16); // stored values stay where List points
  return Pending.back();
}

bool build(Env &E, const std::string &Program, const std::string &Kernel, ur_program_handle_t &P,
           ur_kernel_handle_t &K) {
  const std::string Path = E.Dir + "/" + Program + "/" + E.Triple + ".bin.0";
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    std::fprintf(stderr, "%s: cannot read %s\n", Program.c_str(), Path.c_str());
    return false;
  }
  std::vector<uint8_t> Bytes((std::istreambuf_iterator<char>(In)),
                             std::istreambuf_iterator<char>());
  if (E.Triple == "spir64") {
    CHECK_UR(urProgramCreateWithIL(E.Context, Bytes.data(), Bytes.size(), nullptr, &P));
  } else {
    size_t Size = Bytes.size();
    const uint8_t *Data = Bytes.data();
    CHECK_UR(urProgramCreateWithBinary(E.Context, 1, &E.Device, &Size, &Data, nullptr, &P));
  }
  CHECK_UR(urProgramBuild(E.Context, P, nullptr));
  CHECK_UR(urKernelCreate(P, Kernel.c_str(), &K));
  return true;
}

void setMem(ur_kernel_handle_t K, uint32_t Index, ur_mem_handle_t Mem) {
  ur_exp_kernel_arg_value_t Value{};
  Value.memObjTuple = {Mem, UR_MEM_FLAG_READ_WRITE};
  argsOf(K).add(Index, UR_EXP_KERNEL_ARG_TYPE_MEM_OBJ, sizeof(ur_mem_handle_t), Value);
  const Id1 Offset;
  argsOf(K).addValue(Index + 1, &Offset, sizeof(Offset));
}

// A buffer with Init's contents, set as accessor argument Index (pointer, then id<1>).
bool bufferArg(Env &E, ur_kernel_handle_t K, uint32_t Index, const void *Init, size_t Size,
               ur_mem_handle_t &Mem) {
  CHECK_UR(urMemBufferCreate(E.Context, UR_MEM_FLAG_READ_WRITE, Size, nullptr, &Mem));
  CHECK_UR(urEnqueueMemBufferWrite(E.Queue, Mem, true, 0, Size, Init, 0, nullptr, nullptr));
  setMem(K, Index, Mem);
  return true;
}

template <typename T> bool value(ur_kernel_handle_t K, uint32_t Index, T Value) {
  argsOf(K).addValue(Index, &Value, sizeof(T));
  return true;
}

bool launch(Env &E, ur_kernel_handle_t K, uint32_t Dims, const size_t *Global,
            const size_t *Local = nullptr, const size_t *Offset = nullptr) {
  const size_t Zero[3] = {0, 0, 0};
  Args &A = argsOf(K);
  const ur_result_t Result = urEnqueueKernelLaunchWithArgsExp(
      E.Queue, K, Dims, Offset ? Offset : Zero, Global, Local, static_cast<uint32_t>(A.List.size()),
      A.List.empty() ? nullptr : A.List.data(), nullptr, 0, nullptr, nullptr);
  A.List.clear();
  A.Values.clear();
  CHECK_UR(Result);
  CHECK_UR(urQueueFinish(E.Queue));
  return true;
}

template <typename T> bool read(Env &E, ur_mem_handle_t Mem, std::vector<T> &Out) {
  CHECK_UR(urEnqueueMemBufferRead(E.Queue, Mem, true, 0, Out.size() * sizeof(T), Out.data(), 0,
                                  nullptr, nullptr));
  return true;
}

template <typename T>
bool expect(const char *Port, const std::vector<T> &Got, const std::function<T(size_t)> &Want) {
  for (size_t I = 0; I < Got.size(); ++I)
    if (Got[I] != Want(I)) {
      std::fprintf(stderr, "%s: element %zu is %llu, want %llu\n", Port, I,
                   static_cast<unsigned long long>(Got[I]),
                   static_cast<unsigned long long>(Want(I)));
      return false;
    }
  return true;
}

// One port: Body builds, runs and checks it; its objects are released after.
void port(Env &E, const char *Name, const std::function<bool(Env &)> &Body) {
  const bool Ok = Body(E);
  std::printf("%-24s %s\n", Name, Ok ? "ok" : "FAILED");
  if (!Ok)
    ++Failures;
}

struct Objects {
  ur_program_handle_t P = nullptr;
  ur_kernel_handle_t K = nullptr;
  std::vector<ur_mem_handle_t> Mems;
  std::vector<void *> Usm;
  ur_context_handle_t Context = nullptr;
  ~Objects() {
    for (ur_mem_handle_t M : Mems)
      urMemRelease(M);
    for (void *U : Usm)
      urUSMFree(Context, U);
    if (K) {
      argsOf(K) = Args{K, {}, {}};
      urKernelRelease(K);
    }
    if (P)
      urProgramRelease(P);
  }
  ur_mem_handle_t &mem() { return Mems.emplace_back(nullptr); }
};

bool fillN(Env &E, const char *Program, const std::string &Kernel, uint32_t Dims,
           const size_t *Global) {
  Objects O;
  O.Context = E.Context;
  if (!build(E, Program, Kernel, O.P, O.K))
    return false;
  const size_t N = Global[0] * (Dims > 1 ? Global[1] : 1) * (Dims > 2 ? Global[2] : 1);
  std::vector<uint32_t> Data(N, 1);
  if (!bufferArg(E, O.K, 0, Data.data(), N * 4, O.mem()) || !value<uint32_t>(O.K, 2, 42) ||
      !launch(E, O.K, Dims, Global) || !read(E, O.Mems[0], Data))
    return false;
  return expect<uint32_t>(Program, Data, [](size_t) { return 42u; });
}

bool usmAlloc(Env &E, Objects &O, size_t Size, void *&Ptr) {
  CHECK_UR(urUSMSharedAlloc(E.Context, E.Device, nullptr, nullptr, Size, &Ptr));
  O.Usm.push_back(Ptr);
  return true;
}

bool pointer(ur_kernel_handle_t K, uint32_t Index, const void *Ptr) {
  ur_exp_kernel_arg_value_t Value{};
  Value.pointer = Ptr;
  argsOf(K).add(Index, UR_EXP_KERNEL_ARG_TYPE_POINTER, sizeof(Ptr), Value);
  return true;
}

bool local(ur_kernel_handle_t K, uint32_t Index, size_t Size) {
  argsOf(K).add(Index, UR_EXP_KERNEL_ARG_TYPE_LOCAL, Size, ur_exp_kernel_arg_value_t{});
  return true;
}

void runAll(Env &Shared) {
  port(Shared, "fill", [](Env &E) {
    const size_t G[1] = {16};
    return fillN(E, "fill", CghPrefix + "4fill", 1, G);
  });
  port(Shared, "fill_2d", [](Env &E) {
    const size_t G[2] = {8, 4};
    return fillN(E, "fill_2d", CghPrefix + "7fill_2d", 2, G);
  });
  port(Shared, "fill_3d", [](Env &E) {
    const size_t G[3] = {4, 3, 2};
    return fillN(E, "fill_3d", CghPrefix + "7fill_3d", 3, G);
  });
  port(Shared, "saxpy", [](Env &E) {
    Objects O;
    O.Context = E.Context;
    if (!build(E, "saxpy", CghPrefix + "5saxpy", O.P, O.K))
      return false;
    std::vector<uint32_t> Z(16, 0), X(16), Y(16);
    for (size_t I = 0; I < 16; ++I) {
      X[I] = static_cast<uint32_t>(I);
      Y[I] = static_cast<uint32_t>(100 + I);
    }
    const size_t G[1] = {16};
    if (!bufferArg(E, O.K, 0, Z.data(), 64, O.mem()) || !value<uint32_t>(O.K, 2, 42) ||
        !bufferArg(E, O.K, 3, X.data(), 64, O.mem()) ||
        !bufferArg(E, O.K, 5, Y.data(), 64, O.mem()) || !launch(E, O.K, 1, G) ||
        !read(E, O.Mems[0], Z))
      return false;
    return expect<uint32_t>("saxpy", Z, [&](size_t I) { return 42 * X[I] + Y[I]; });
  });
  port(Shared, "cpy_and_mult", [](Env &E) {
    Objects O;
    O.Context = E.Context;
    if (!build(E, "cpy_and_mult", CghPrefix + "12cpy_and_mult", O.P, O.K))
      return false;
    std::vector<uint32_t> Src(16), Dst(16, 0);
    for (size_t I = 0; I < 16; ++I)
      Src[I] = static_cast<uint32_t>(3 * I + 1);
    const size_t G[1] = {16};
    if (!bufferArg(E, O.K, 0, Src.data(), 64, O.mem()) ||
        !bufferArg(E, O.K, 2, Dst.data(), 64, O.mem()) || !launch(E, O.K, 1, G) ||
        !read(E, O.Mems[1], Dst))
      return false;
    return expect<uint32_t>("cpy_and_mult", Dst, [&](size_t I) { return Src[I] * 2; });
  });
  port(Shared, "inc", [](Env &E) {
    Objects O;
    O.Context = E.Context;
    if (!build(E, "inc", "_ZTS3inc", O.P, O.K))
      return false;
    std::vector<uint32_t> V = {5};
    const size_t G[1] = {1};
    if (!bufferArg(E, O.K, 0, V.data(), 4, O.mem()) || !launch(E, O.K, 1, G) ||
        !read(E, O.Mems[0], V))
      return false;
    return expect<uint32_t>("inc", V, [](size_t) { return 6u; });
  });
  port(Shared, "sequence", [](Env &E) {
    Objects O, M;
    O.Context = M.Context = E.Context;
    if (!build(E, "sequence", "_ZTS3Add", O.P, O.K) || !build(E, "sequence", "_ZTS3Mul", M.P, M.K))
      return false;
    std::vector<uint32_t> V = {0};
    const size_t G[1] = {1};
    if (!bufferArg(E, O.K, 0, V.data(), 4, O.mem()) || !launch(E, O.K, 1, G))
      return false;
    setMem(M.K, 0, O.Mems[0]);
    if (!launch(E, M.K, 1, G) || !read(E, O.Mems[0], V))
      return false;
    return expect<uint32_t>("sequence", V, [](size_t) { return 4000u; });
  });
  port(Shared, "standard_types", [](Env &E) {
    Objects O;
    O.Context = E.Context;
    if (!build(E, "standard_types", CghPrefix + "3Foo", O.P, O.K))
      return false;
    struct Pair {
      uint32_t A, B;
    };
    std::vector<uint32_t> V = {0};
    const size_t G[1] = {1};
    if (!bufferArg(E, O.K, 0, V.data(), 4, O.mem()) || !value<uint8_t>(O.K, 2, 1) ||
        !value<uint8_t>(O.K, 3, 2) || !value<uint32_t>(O.K, 4, 3) || !value<uint64_t>(O.K, 5, 5) ||
        !value<Pair>(O.K, 6, {7, 5}) || !value<float>(O.K, 7, 11.0f) || !launch(E, O.K, 1, G) ||
        !read(E, O.Mems[0], V))
      return false;
    return expect<uint32_t>("standard_types", V, [](size_t) { return 2410u; });
  });
  port(Shared, "spec_constant (default)", [](Env &E) {
    Objects O;
    O.Context = E.Context;
    if (!build(E, "spec_constant", CghPrefix + "12SpecConstant", O.P, O.K))
      return false;
    std::vector<uint32_t> V = {0};
    const size_t G[1] = {1};
    if (!bufferArg(E, O.K, 0, V.data(), 4, O.mem()) || !launch(E, O.K, 1, G) ||
        !read(E, O.Mems[0], V))
      return false;
    return expect<uint32_t>("spec_constant", V, [](size_t) { return 1000u; });
  });
  port(Shared, "mean", [](Env &E) {
    Objects O;
    O.Context = E.Context;
    if (!build(E, "mean", CghPrefix + "4mean", O.P, O.K))
      return false;
    std::vector<uint32_t> In(64), Out(16, 0);
    for (size_t I = 0; I < 64; ++I)
      In[I] = static_cast<uint32_t>(I * 4);
    const size_t G[1] = {64}, L[1] = {4};
    if (!local(O.K, 0, 16) || !bufferArg(E, O.K, 1, In.data(), 256, O.mem()) ||
        !bufferArg(E, O.K, 3, Out.data(), 64, O.mem()) || !launch(E, O.K, 1, G, L) ||
        !read(E, O.Mems[1], Out))
      return false;
    // The group's inputs are 16g, 16g+4, 16g+8, 16g+12: their mean is 16g + 6.
    return expect<uint32_t>("mean", Out,
                            [](size_t Group) { return static_cast<uint32_t>(16 * Group + 6); });
  });
  port(Shared, "multiply (USM)", [](Env &E) {
    Objects O;
    O.Context = E.Context;
    void *Ptr = nullptr;
    if (!build(E, "multiply", CghPrefix + "11MultiplyBy2", O.P, O.K) || !usmAlloc(E, O, 64, Ptr))
      return false;
    auto *V = static_cast<uint32_t *>(Ptr);
    for (uint32_t I = 0; I < 16; ++I)
      V[I] = I + 1;
    const size_t G[1] = {16};
    if (!pointer(O.K, 0, Ptr) || !launch(E, O.K, 1, G))
      return false;
    return expect<uint32_t>("multiply", std::vector<uint32_t>(V, V + 16),
                            [](size_t I) { return static_cast<uint32_t>(2 * (I + 1)); });
  });
  port(Shared, "saxpy_usm", [](Env &E) {
    Objects O;
    O.Context = E.Context;
    void *Z = nullptr, *X = nullptr, *Y = nullptr;
    if (!build(E, "saxpy_usm", CghPrefix + "5saxpy", O.P, O.K) || !usmAlloc(E, O, 64, Z) ||
        !usmAlloc(E, O, 64, X) || !usmAlloc(E, O, 64, Y))
      return false;
    auto *Xs = static_cast<uint32_t *>(X), *Ys = static_cast<uint32_t *>(Y);
    for (uint32_t I = 0; I < 16; ++I) {
      Xs[I] = I;
      Ys[I] = 7 * I;
    }
    const size_t G[1] = {16};
    if (!pointer(O.K, 0, Z) || !value<uint32_t>(O.K, 1, 42) || !pointer(O.K, 2, X) ||
        !pointer(O.K, 3, Y) || !launch(E, O.K, 1, G))
      return false;
    auto *Zs = static_cast<uint32_t *>(Z);
    return expect<uint32_t>("saxpy_usm", std::vector<uint32_t>(Zs, Zs + 16),
                            [&](size_t I) { return 42 * Xs[I] + Ys[I]; });
  });
  port(Shared, "saxpy_usm_local_mem", [](Env &E) {
    Objects O;
    O.Context = E.Context;
    void *Z = nullptr, *X = nullptr, *Y = nullptr;
    if (!build(E, "saxpy_usm_local_mem", CghPrefix + "19saxpy_usm_local_mem", O.P, O.K) ||
        !usmAlloc(E, O, 64, Z) || !usmAlloc(E, O, 64, X) || !usmAlloc(E, O, 64, Y))
      return false;
    auto *Xs = static_cast<uint32_t *>(X), *Ys = static_cast<uint32_t *>(Y);
    for (uint32_t I = 0; I < 16; ++I) {
      Xs[I] = I;
      Ys[I] = 7 * I;
    }
    const size_t G[3] = {16, 1, 1}, L[3] = {4, 1, 1};
    if (!local(O.K, 0, 16) || !local(O.K, 1, 32) || !pointer(O.K, 2, Z) ||
        !value<uint32_t>(O.K, 3, 42) || !pointer(O.K, 4, X) || !pointer(O.K, 5, Y) ||
        !launch(E, O.K, 3, G, L))
      return false;
    auto *Zs = static_cast<uint32_t *>(Z);
    return expect<uint32_t>("saxpy_usm_local_mem", std::vector<uint32_t>(Zs, Zs + 16),
                            [&](size_t I) { return 42 * Xs[I] + Ys[I] + 4; });
  });
  port(Shared, "fill_usm_2d", [](Env &E) {
    Objects O;
    O.Context = E.Context;
    void *Ptr = nullptr;
    if (!build(E, "fill_usm_2d", CghPrefix + "7fill_2d", O.P, O.K) ||
        !usmAlloc(E, O, size_t{4} * 48, Ptr))
      return false;
    std::memset(Ptr, 0, size_t{4} * 48);
    const size_t G[2] = {8, 6};
    if (!pointer(O.K, 0, Ptr) || !value<uint32_t>(O.K, 1, 42) || !launch(E, O.K, 2, G))
      return false;
    auto *V = static_cast<uint32_t *>(Ptr);
    return expect<uint32_t>("fill_usm_2d", std::vector<uint32_t>(V, V + 48),
                            [](size_t) { return 42u; });
  });
  port(Shared, "indexers_usm", [](Env &E) {
    Objects O;
    O.Context = E.Context;
    void *Ptr = nullptr;
    const size_t Items = size_t{8} * 8 * 8;
    if (!build(E, "indexers_usm", CghPrefix + "8indexers", O.P, O.K) ||
        !usmAlloc(E, O, Items * 6 * sizeof(int), Ptr))
      return false;
    const size_t G[3] = {8, 8, 8}, L[3] = {2, 2, 2}, Off[3] = {4, 4, 4};
    if (!pointer(O.K, 0, Ptr) || !launch(E, O.K, 3, G, L, Off))
      return false;
    // UR's (x, y, z) item at linear id (z * 8 + y) * 8 + x writes SYCL's order: its
    // global ids z, y, x (offset 4 each), then its local ids z, y, x.
    auto *V = static_cast<int *>(Ptr);
    std::vector<int> Got(V, V + Items * 6);
    return expect<int>("indexers_usm", Got, [](size_t I) {
      const size_t Linear = I / 6, X = Linear % 8, Y = Linear / 8 % 8, Z = Linear / 64;
      const size_t Want[6] = {Z + 4, Y + 4, X + 4, Z % 2, Y % 2, X % 2};
      return static_cast<int>(Want[I % 6]);
    });
  });
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s KERNEL_DIR [TRIPLE]\n", argv[0]);
    return 2;
  }
  Env E;
  E.Dir = argv[1];
  E.Triple = argc == 3 ? argv[2] : "spir64";
  if (urLoaderInit(0, nullptr) != UR_RESULT_SUCCESS) {
    std::fprintf(stderr, "urLoaderInit failed\n");
    return 1;
  }
  uint32_t Count = 0;
  ur_adapter_handle_t Adapter = nullptr;
  if (urAdapterGet(1, &Adapter, &Count) != UR_RESULT_SUCCESS || Count == 0 ||
      urPlatformGet(Adapter, 1, &E.Platform, &Count) != UR_RESULT_SUCCESS || Count == 0 ||
      urDeviceGet(E.Platform, UR_DEVICE_TYPE_ALL, 1, &E.Device, &Count) != UR_RESULT_SUCCESS ||
      Count == 0 || urContextCreate(1, &E.Device, nullptr, &E.Context) != UR_RESULT_SUCCESS ||
      urQueueCreate(E.Context, E.Device, nullptr, &E.Queue) != UR_RESULT_SUCCESS) {
    std::fprintf(stderr, "no adapter, platform, device, context or queue\n");
    return 1;
  }
  runAll(E);
  urQueueRelease(E.Queue);
  urContextRelease(E.Context);
  urAdapterRelease(Adapter);
  urLoaderTearDown();
  std::printf("%d port(s) failed\n", Failures);
  return Failures == 0 ? 0 : 1;
}
