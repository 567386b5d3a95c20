// `dglink bench`: piextEnqueueDeviceGlobalVariableRead/Write latency per device
// through the dispatch layer, measured with Google Benchmark beside the same
// adapter's plain host<->device copy (USM memcpy, or a buffer copy where the device
// has no USM) of the same size in the same run. The raw-driver comparison for CUDA
// lives in benchmarks/ (dglink_bench_device_global), which needs libcuda directly.
#include "bench.h"

#include "devices.h"
#include "dglink_timing.h"
#include "handles.h"
#include "images.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

namespace dglink::tools {
namespace {

using namespace dglink::conformance;
using dglink::bench::add;
using dglink::bench::timeEachCall;
using dglink::bench::timeEnqueues;

// The conformance image with a 1 MiB device global (conformance/device_code).
constexpr const char *BenchImageName = "dg_bench";
constexpr const char *BenchGlobal = "dg_bench_data";
constexpr size_t BenchGlobalBytes = size_t(1) << 20;
constexpr int EnqueuesPerWait = 100;

std::string lastError() {
  char *Message = nullptr;
  piPluginGetLastError(&Message);
  return Message == nullptr ? "" : Message;
}

// One device, ready to measure, or the reason it is not.
struct BenchDevice {
  DeviceParam Param;
  std::string SkipReason;
  std::string Format;
  std::string CopyHow;
  std::unique_ptr<DeviceImage> Image;
  ContextHandle Context;
  QueueHandle Queue;
  ProgramHandle Program;
  UsmPointer DeviceMemory; // the plain copy's target where the device has USM
  MemHandle Buffer;        // otherwise
  std::vector<unsigned char> Host = std::vector<unsigned char>(BenchGlobalBytes, 0x5A);

  int copyIn(pi_bool Blocking, size_t Size) {
    if (DeviceMemory.get() != nullptr)
      return piextUSMEnqueueMemcpy(Queue.get(), Blocking, DeviceMemory.get(), Host.data(), Size, 0,
                                   nullptr, nullptr);
    return piEnqueueMemBufferWrite(Queue.get(), Buffer.get(), Blocking, 0, Size, Host.data(), 0,
                                   nullptr, nullptr);
  }
  int copyOut(pi_bool Blocking, size_t Size) {
    if (DeviceMemory.get() != nullptr)
      return piextUSMEnqueueMemcpy(Queue.get(), Blocking, Host.data(), DeviceMemory.get(), Size, 0,
                                   nullptr, nullptr);
    return piEnqueueMemBufferRead(Queue.get(), Buffer.get(), Blocking, 0, Size, Host.data(), 0,
                                  nullptr, nullptr);
  }
  int write(pi_bool Blocking, size_t Size, pi_program On) {
    return piextEnqueueDeviceGlobalVariableWrite(Queue.get(), On, BenchGlobal, Blocking, Size, 0,
                                                 Host.data(), 0, nullptr, nullptr);
  }
  int read(pi_bool Blocking, size_t Size) {
    return piextEnqueueDeviceGlobalVariableRead(Queue.get(), Program.get(), BenchGlobal, Blocking,
                                                Size, 0, Host.data(), 0, nullptr, nullptr);
  }
  int finish() { return piQueueFinish(Queue.get()); }
};

// A fresh program of the bench image, built for the device.
pi_result buildBenchProgram(BenchDevice &D, ProgramHandle &Out) {
  pi_device Device = D.Param.Device;
  if (pi_result Result =
          piextProgramCreateWithImage(D.Context.get(), 1, &Device, D.Image->get(), Out.out());
      Result != PI_SUCCESS)
    return Result;
  return piProgramBuild(Out.get(), 1, &Device, "", nullptr, nullptr);
}

std::string failure(const char *What, pi_result Result) {
  return fmt::format("{} failed ({}): {}", What, static_cast<int>(Result), lastError());
}

void setUp(BenchDevice &D) {
  pi_device Device = D.Param.Device;
  pi_device_global_mechanism Mechanism = PI_DEVICE_GLOBAL_MECHANISM_NONE;
  if (piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM, sizeof(Mechanism),
                      &Mechanism, nullptr) != PI_SUCCESS ||
      Mechanism == PI_DEVICE_GLOBAL_MECHANISM_NONE) {
    D.SkipReason = "no device-global access on this device (mechanism none)";
    return;
  }
  std::string Formats;
  deviceInfoString(Device, PI_EXT_DEVICE_INFO_IMAGE_FORMATS, Formats);
  // "lowered" devices (OpenCL) run the image whose device globals the shim moved into
  // adapter-owned storage; the others the image that keeps them at program scope.
  const bool Lowered = Mechanism == PI_DEVICE_GLOBAL_MECHANISM_LOWERED;
  for (const std::string &Format : splitWords(Formats))
    if (const EmbeddedImage *Image = findImage(BenchImageName, Format, Lowered)) {
      D.Format = Format;
      D.Image = std::make_unique<DeviceImage>(*Image, *findLinkFormat(Format));
      break;
    }
  if (!D.Image) {
    D.SkipReason = "no bench image for the formats this device builds ('" + Formats + "')";
    return;
  }
  if (pi_result R = piContextCreate(nullptr, 1, &Device, D.Context.out()); R != PI_SUCCESS)
    return void(D.SkipReason = failure("piContextCreate", R));
  if (pi_result R = piQueueCreate(D.Context.get(), Device, 0, D.Queue.out()); R != PI_SUCCESS)
    return void(D.SkipReason = failure("piQueueCreate", R));
  if (pi_result R = buildBenchProgram(D, D.Program); R != PI_SUCCESS)
    return void(D.SkipReason = failure("building the bench program", R));
  pi_usm_mechanism Usm = PI_USM_MECHANISM_NONE;
  piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_USM_MECHANISM, sizeof(Usm), &Usm, nullptr);
  if (Usm != PI_USM_MECHANISM_NONE &&
      piextUSMDeviceAlloc(D.DeviceMemory.out(D.Context.get()), D.Context.get(), Device, nullptr,
                          BenchGlobalBytes, 0) == PI_SUCCESS) {
    D.CopyHow = "piextUSMEnqueueMemcpy to device USM";
  } else if (pi_result R = piMemBufferCreate(D.Context.get(), PI_MEM_FLAGS_ACCESS_RW,
                                             BenchGlobalBytes, nullptr, D.Buffer.out());
             R == PI_SUCCESS) {
    D.CopyHow = "piEnqueueMemBuffer{Write,Read}";
  } else {
    D.SkipReason = failure("piMemBufferCreate", R);
  }
}

void registerDevice(BenchDevice &D, const std::vector<size_t> &Sizes, int Iterations) {
  const std::string Prefix = D.Param.Id + "/";
  for (size_t Size : Sizes) {
    const std::string Bytes = std::to_string(Size);
    const int N = Iterations > 0 ? Iterations : (Size >= BenchGlobalBytes ? 200 : 2000);
    BenchDevice *P = &D;
    add(Prefix + "Write/dglink/" + Bytes, N, [=](benchmark::State &State) {
      timeEachCall(State, Size, [=] { return P->write(PI_TRUE, Size, P->Program.get()); });
    });
    add(Prefix + "Write/copy/" + Bytes, N, [=](benchmark::State &State) {
      timeEachCall(State, Size, [=] { return P->copyIn(PI_TRUE, Size); });
    });
    add(Prefix + "Read/dglink/" + Bytes, N, [=](benchmark::State &State) {
      timeEachCall(State, Size, [=] { return P->read(PI_TRUE, Size); });
    });
    add(Prefix + "Read/copy/" + Bytes, N, [=](benchmark::State &State) {
      timeEachCall(State, Size, [=] { return P->copyOut(PI_TRUE, Size); });
    });
    const int Batches = std::max(5, N / 20);
    add(Prefix + "WriteNonBlocking/dglink/" + Bytes, Batches, [=](benchmark::State &State) {
      timeEnqueues(
          State, Size, EnqueuesPerWait,
          [=] { return P->write(PI_FALSE, Size, P->Program.get()); }, [=] { return P->finish(); });
    });
    add(Prefix + "WriteNonBlocking/copy/" + Bytes, Batches, [=](benchmark::State &State) {
      timeEnqueues(
          State, Size, EnqueuesPerWait, [=] { return P->copyIn(PI_FALSE, Size); },
          [=] { return P->finish(); });
    });
  }
  // The first access of a fresh program pays the lookup; Write/dglink/4 is the warm case.
  BenchDevice *P = &D;
  add(Prefix + "FirstWrite/dglink/4", 50, [=](benchmark::State &State) {
    std::vector<double> Samples;
    for (auto _ : State) {
      ProgramHandle Fresh;
      if (buildBenchProgram(*P, Fresh) != PI_SUCCESS) {
        State.SkipWithError(("building the bench program failed: " + lastError()).c_str());
        break;
      }
      const auto Begin = dglink::bench::Clock::now();
      const int Result = P->write(PI_TRUE, 4, Fresh.get());
      const auto End = dglink::bench::Clock::now();
      if (Result != PI_SUCCESS) {
        State.SkipWithError(("first write failed: " + lastError()).c_str());
        break;
      }
      State.SetIterationTime(dglink::bench::seconds(Begin, End));
      Samples.push_back(dglink::bench::seconds(Begin, End) * 1e6);
    }
    State.counters["median_us"] = dglink::bench::median(Samples);
  });
}

// Collects each case's median instead of printing Google Benchmark's own table.
class Collector : public benchmark::BenchmarkReporter {
public:
  struct Value {
    double Median = 0, TotalMedian = 0;
    std::string Error;
  };
  std::map<std::string, Value> Values;
  size_t Done = 0, Total = 0;

  bool ReportContext(const Context &) override { return true; }
  void ReportRuns(const std::vector<Run> &Runs) override {
    for (const Run &R : Runs) {
      if (R.run_type != Run::RT_Iteration)
        continue;
      // The registered name; benchmark_name() adds "/iterations:N/manual_time".
      const std::string &Name = R.run_name.function_name;
      Value V;
      if (R.error_occurred)
        V.Error = R.error_message;
      if (auto It = R.counters.find("median_us"); It != R.counters.end())
        V.Median = It->second.value;
      if (auto It = R.counters.find("total_median_us"); It != R.counters.end())
        V.TotalMedian = It->second.value;
      Values[Name] = V;
      std::fprintf(stderr, "\r[%zu/%zu] %-70s", ++Done, Total, Name.c_str());
    }
  }
};

struct Row {
  std::string Device, Operation;
  size_t Bytes = 0;
  double Dglink = 0, Copy = 0;
  std::string Note;
};

std::string cell(double Value) { return Value > 0 ? fmt::format("{:.2f}", Value) : "-"; }
std::string ratio(double A, double B) {
  return A > 0 && B > 0 ? fmt::format("{:.3f}", A / B) : "-";
}

std::string csvText(std::string Text) {
  for (char &C : Text)
    if (C == '"' || C == '\n')
      C = '\'';
  return Text;
}

std::vector<size_t> defaultSizes() { return {4, 64, 4096, 65536, BenchGlobalBytes}; }

} // namespace

int runBench(const BenchOptions &Options) {
  DeviceSelection &Selection = deviceSelection();
  if (!Options.Adapter.empty())
    Selection.Adapter = Options.Adapter;
  if (!Options.Device.empty())
    Selection.Device = Options.Device;
  std::vector<size_t> Sizes = Options.Sizes.empty() ? defaultSizes() : Options.Sizes;
  for (size_t Size : Sizes)
    if (Size == 0 || Size > BenchGlobalBytes) {
      std::cerr << "dglink bench: sizes must be 1.." << BenchGlobalBytes << " bytes, got " << Size
                << "\n";
      return 2;
    }

  std::vector<std::unique_ptr<BenchDevice>> Devices;
  for (const DeviceParam &Param : selectedDevices()) {
    auto D = std::make_unique<BenchDevice>();
    D->Param = Param;
    setUp(*D);
    if (D->SkipReason.empty())
      registerDevice(*D, Sizes, Options.Iterations);
    Devices.push_back(std::move(D));
  }
  if (Devices.empty()) {
    std::cout << "dglink bench: no device selected (" << Selection.describe() << ")"
              << (enumerationError().empty() ? "" : "; " + enumerationError()) << "\n";
    return 0;
  }

  Collector Results;
  for (const auto &D : Devices)
    if (D->SkipReason.empty())
      Results.Total += Sizes.size() * 6 + 1;
  if (Results.Total != 0) {
    int Argc = 1;
    char Name[] = "dglink-bench";
    char *Argv[] = {Name, nullptr};
    benchmark::Initialize(&Argc, Argv);
    benchmark::RunSpecifiedBenchmarks(&Results);
    benchmark::ClearRegisteredBenchmarks();
    std::fprintf(stderr, "\n");
  }

  bool Failed = false;
  std::vector<Row> Rows;
  nlohmann::json Json = nlohmann::json::array();
  std::cout << "\nDevice-global copies, median µs per call (non-blocking: CPU µs per enqueue, "
            << EnqueuesPerWait << " enqueues per wait); 'copy' is the same adapter's plain "
               "host<->device copy of the same size\n";
  for (const auto &D : Devices) {
    std::cout << "\n" << D->Param.Id << " (" << D->Param.Backend << ": " << D->Param.Name << ")";
    if (!D->SkipReason.empty()) {
      std::cout << "\n  skipped: " << D->SkipReason << "\n";
      Json.push_back({{"device", D->Param.Id}, {"skipped", D->SkipReason}});
      continue;
    }
    std::cout << ", " << D->Format << " image, copy = " << D->CopyHow << "\n";
    std::cout << fmt::format("  {:<18} {:>9} {:>10} {:>10} {:>8}\n", "operation", "bytes",
                             "dglink", "copy", "ratio");
    auto Lookup = [&](const std::string &Name) -> Collector::Value {
      auto It = Results.Values.find(D->Param.Id + "/" + Name);
      return It == Results.Values.end() ? Collector::Value{0, 0, "not run"} : It->second;
    };
    for (const char *Operation : {"Write", "Read", "WriteNonBlocking"})
      for (size_t Size : Sizes) {
        const std::string Bytes = std::to_string(Size);
        const Collector::Value Ours = Lookup(std::string(Operation) + "/dglink/" + Bytes);
        const Collector::Value Copy = Lookup(std::string(Operation) + "/copy/" + Bytes);
        std::string Note = Ours.Error.empty() ? Copy.Error : Ours.Error;
        Failed = Failed || !Ours.Error.empty();
        std::cout << fmt::format("  {:<18} {:>9} {:>10} {:>10} {:>8}{}\n", Operation, Size,
                                 cell(Ours.Median), cell(Copy.Median),
                                 ratio(Ours.Median, Copy.Median),
                                 Note.empty() ? "" : "  " + Note);
        Rows.push_back({D->Param.Id, Operation, Size, Ours.Median, Copy.Median, Note});
        Json.push_back({{"device", D->Param.Id},
                        {"operation", Operation},
                        {"bytes", Size},
                        {"dglink_median_us", Ours.Median},
                        {"copy_median_us", Copy.Median},
                        {"dglink_with_wait_us", Ours.TotalMedian},
                        {"copy_with_wait_us", Copy.TotalMedian},
                        {"error", Note}});
      }
    const Collector::Value First = Lookup("FirstWrite/dglink/4");
    const Collector::Value Warm = Lookup("Write/dglink/4");
    Failed = Failed || !First.Error.empty();
    std::cout << fmt::format("  first 4-byte write of a fresh program (lookup included): {} µs; "
                             "warm: {} µs{}\n",
                             cell(First.Median), cell(Warm.Median),
                             First.Error.empty() ? "" : "  " + First.Error);
    Rows.push_back({D->Param.Id, "FirstWrite", 4, First.Median, 0, First.Error});
    Json.push_back({{"device", D->Param.Id},
                    {"operation", "FirstWrite"},
                    {"bytes", 4},
                    {"dglink_median_us", First.Median},
                    {"error", First.Error}});
  }

  if (!Options.Csv.empty()) {
    std::ofstream Csv(Options.Csv);
    Csv << "device,operation,bytes,dglink_median_us,copy_median_us,ratio,error\n";
    for (const Row &R : Rows)
      Csv << R.Device << ',' << R.Operation << ',' << R.Bytes << ',' << R.Dglink << ','
          << R.Copy << ',' << (R.Copy > 0 ? R.Dglink / R.Copy : 0) << ",\"" << csvText(R.Note)
          << "\"\n";
    if (!Csv)
      std::cerr << "dglink bench: could not write " << Options.Csv << "\n";
  }
  if (!Options.Json.empty()) {
    std::ofstream Out(Options.Json);
    Out << Json.dump(2) << "\n";
    if (!Out)
      std::cerr << "dglink bench: could not write " << Options.Json << "\n";
  }
  return Failed ? 1 : 0;
}

} // namespace dglink::tools
