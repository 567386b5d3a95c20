// The device-global database: variables by host address and unique id, the USM buffer
// of each shared variable per context and device, and the usmptr patch of programs.
#include "device_global_db.h"

#include <algorithm>
#include <cstdio>

namespace dglink::runtime::detail {

namespace {

std::string describe(const DeviceGlobalRecord &Record) {
  return "device global '" + Record.UniqueId + "' (host address " +
         hostAddressText(Record.HostAddress) + ")";
}

// The images of Program that declare Id, for messages.
std::string imagesDeclaring(const BuiltProgram &Program, const std::string &Id) {
  std::string Names;
  for (const ImageInfo &Image : Program.Images)
    if (std::find(Image.DeviceGlobals.begin(), Image.DeviceGlobals.end(), Id) !=
        Image.DeviceGlobals.end())
      Names += (Names.empty() ? "" : ", ") + Image.Name;
  return Names;
}

} // namespace

std::string hostAddressText(const void *Pointer) {
  char Text[32];
  std::snprintf(Text, sizeof(Text), "%p", Pointer);
  return Text;
}

DeviceGlobalDatabase::~DeviceGlobalDatabase() {
  for (auto &[Id, Record] : ById)
    freeInstances(*Record, nullptr);
  for (auto &[Key, Queue] : Queues)
    Table.piQueueRelease(Queue);
}

std::string DeviceGlobalDatabase::lastError() const {
  char *Message = nullptr;
  if (Table.piPluginGetLastError(&Message) >= 0 && Message != nullptr)
    return Message;
  return "";
}

Expected<std::shared_ptr<DeviceGlobalRecord>>
DeviceGlobalDatabase::add(const void *HostAddress, const std::string &UniqueId, size_t Size,
                          bool ImageScope, ModuleId Owner) {
  if (HostAddress == nullptr || UniqueId.empty() || Size == 0)
    return Status{PI_ERROR_INVALID_VALUE,
                  "addDeviceGlobal: " +
                      std::string(HostAddress == nullptr ? "the host address is null"
                                  : UniqueId.empty()     ? "the unique id is empty"
                                                         : "the size is 0") +
                      (UniqueId.empty() ? "" : " (device global '" + UniqueId + "')")};
  auto Record = std::make_shared<DeviceGlobalRecord>();
  Record->HostAddress = HostAddress;
  Record->UniqueId = UniqueId;
  Record->Size = Size;
  Record->ImageScope = ImageScope;
  Record->Owner = Owner;
  std::unique_lock<std::shared_mutex> Lock(Mutex);
  if (auto Taken = ByHost.find(HostAddress); Taken != ByHost.end())
    return Status{PI_ERROR_INVALID_VALUE, "addDeviceGlobal: host address " +
                                              hostAddressText(HostAddress) + " of device global '" +
                                              UniqueId + "' is " + describe(*Taken->second) +
                                              " already"};
  if (auto Taken = ById.find(UniqueId); Taken != ById.end())
    return Status{PI_ERROR_INVALID_VALUE, "addDeviceGlobal: unique id '" + UniqueId +
                                              "' (host address " + hostAddressText(HostAddress) +
                                              ") is taken by " + describe(*Taken->second)};
  ByHost.emplace(HostAddress, Record);
  ById.emplace(UniqueId, Record);
  return Record;
}

std::shared_ptr<DeviceGlobalRecord> DeviceGlobalDatabase::find(const void *HostAddress) const {
  std::shared_lock<std::shared_mutex> Lock(Mutex);
  auto It = ByHost.find(HostAddress);
  return It == ByHost.end() ? nullptr : It->second;
}

std::shared_ptr<DeviceGlobalRecord> DeviceGlobalDatabase::findId(const std::string &Id) const {
  std::shared_lock<std::shared_mutex> Lock(Mutex);
  auto It = ById.find(Id);
  return It == ById.end() ? nullptr : It->second;
}

Expected<pi_queue> DeviceGlobalDatabase::queue(pi_context Context, pi_device Device) {
  std::lock_guard<std::mutex> Lock(QueuesMutex);
  auto It = Queues.find({Context, Device});
  if (It != Queues.end())
    return It->second;
  pi_queue Made = nullptr;
  if (const pi_result Result = Table.piQueueCreate(Context, Device, 0, &Made); Result != PI_SUCCESS)
    return Status{Result, "piQueueCreate for the device-global database failed: " + lastError()};
  Queues.emplace(std::make_pair(Context, Device), Made);
  return Made;
}

Expected<void *> DeviceGlobalDatabase::instance(DeviceGlobalRecord &Record, pi_context Context,
                                                pi_device Device, const DeviceTraits &Traits) {
  auto Lookup = [&]() -> void * {
    std::shared_lock<std::shared_mutex> Lock(Record.InstancesMutex);
    for (const DeviceGlobalRecord::Instance &Existing : Record.Instances)
      if (Existing.Context == Context && Existing.Device == Device)
        return Existing.Usm;
    return nullptr;
  };
  if (void *Found = Lookup())
    return Found;
  std::lock_guard<std::mutex> Allocating(Record.AllocationMutex);
  if (void *Found = Lookup()) // another thread allocated it meanwhile
    return Found;
  if (Traits.Usm == PI_USM_MECHANISM_NONE)
    return Status{PI_ERROR_INVALID_OPERATION,
                  describe(Record) +
                      " has no device_image_scope, so its value lives in USM, "
                      "and device '" +
                      Traits.Name + "' has none (PI_USM_MECHANISM_NONE)"};
  Expected<pi_queue> Queue = queue(Context, Device);
  if (!Queue)
    return Queue.status();
  void *Usm = nullptr;
  if (const pi_result Result =
          Table.piextUSMDeviceAlloc(&Usm, Context, Device, nullptr, Record.Size, 0);
      Result != PI_SUCCESS || Usm == nullptr)
    return Status{Result == PI_SUCCESS ? PI_ERROR_OUT_OF_RESOURCES : Result,
                  describe(Record) + ": piextUSMDeviceAlloc of " + std::to_string(Record.Size) +
                      " bytes on device '" + Traits.Name + "' failed: " + lastError()};
  ++Allocations;
  const uint8_t Zero = 0;
  pi_result Result =
      Table.piextUSMEnqueueFill(*Queue, Usm, &Zero, 1, Record.Size, 0, nullptr, nullptr);
  if (Result == PI_SUCCESS)
    Result = Table.piQueueFinish(*Queue);
  if (Result != PI_SUCCESS) {
    const std::string Why = lastError();
    Table.piextUSMFree(Context, Usm);
    ++Frees;
    return Status{Result, describe(Record) + ": zero-filling its USM buffer on device '" +
                              Traits.Name + "' failed: " + Why};
  }
  std::unique_lock<std::shared_mutex> Lock(Record.InstancesMutex);
  Record.Instances.push_back({Context, Device, Usm});
  return Usm;
}

Status DeviceGlobalDatabase::patch(const BuiltProgram &Program, const DeviceTraits &Traits,
                                   const std::string &OnlyId) {
  for (const auto &[Id, Declared] : Program.Globals) {
    if (!OnlyId.empty() && Id != OnlyId)
      continue;
    std::shared_ptr<DeviceGlobalRecord> Record = findId(Id);
    if (Record == nullptr)
      continue; // not the database's: an adapter-level variable, copied by name
    if (Record->ImageScope != Declared.DeviceImageScope)
      return {PI_ERROR_INVALID_OPERATION,
              describe(*Record) + " was added with device_image_scope " +
                  (Record->ImageScope ? "1" : "0") + " but image " + imagesDeclaring(Program, Id) +
                  " declares " + (Declared.DeviceImageScope ? "1" : "0")};
    if (Record->ImageScope)
      continue;
    // The image records the value's size (sycl-device-global-size, sizeof(T), as DPC++
    // does); the device instance is a pointer to it (usmptr), which the write below
    // checks against the module.
    if (Declared.Size != Record->Size)
      return {PI_ERROR_INVALID_OPERATION,
              describe(*Record) + " was added with " + std::to_string(Record->Size) +
                  " bytes, but image " + imagesDeclaring(Program, Id) + " declares a value of " +
                  std::to_string(Declared.Size) + " bytes"};
    Expected<void *> Usm = instance(*Record, Program.Context, Program.Device, Traits);
    if (!Usm)
      return Usm.status();
    Expected<pi_queue> Queue = queue(Program.Context, Program.Device);
    if (!Queue)
      return Queue.status();
    void *Pointer = *Usm;
    if (const pi_result Result = Table.piextEnqueueDeviceGlobalVariableWrite(
            *Queue, Program.Handle, Id.c_str(), PI_TRUE, sizeof(Pointer), 0, &Pointer, 0, nullptr,
            nullptr);
        Result != PI_SUCCESS)
      return {Result, describe(*Record) + ": writing its usmptr into the program of " +
                          imagesDeclaring(Program, Id) + " failed: " + lastError()};
    ++Patches;
  }
  return {};
}

void DeviceGlobalDatabase::freeInstances(DeviceGlobalRecord &Record, pi_context OnlyContext) {
  std::unique_lock<std::shared_mutex> Lock(Record.InstancesMutex);
  auto Kept = Record.Instances.begin();
  for (const DeviceGlobalRecord::Instance &Existing : Record.Instances) {
    if (OnlyContext == nullptr || Existing.Context == OnlyContext) {
      Table.piextUSMFree(Existing.Context, Existing.Usm);
      ++Frees;
    } else {
      *Kept++ = Existing;
    }
  }
  Record.Instances.erase(Kept, Record.Instances.end());
}

void DeviceGlobalDatabase::remove(const std::shared_ptr<DeviceGlobalRecord> &Record) {
  {
    std::unique_lock<std::shared_mutex> Lock(Mutex);
    auto It = ById.find(Record->UniqueId);
    if (It == ById.end() || It->second != Record)
      return;
    ById.erase(It);
    ByHost.erase(Record->HostAddress);
  }
  freeInstances(*Record, nullptr);
}

size_t DeviceGlobalDatabase::size() const {
  std::shared_lock<std::shared_mutex> Lock(Mutex);
  return ById.size();
}

std::vector<std::string> DeviceGlobalDatabase::removeOwnedBy(ModuleId Owner) {
  std::vector<std::shared_ptr<DeviceGlobalRecord>> Removed;
  {
    std::unique_lock<std::shared_mutex> Lock(Mutex);
    for (auto It = ById.begin(); It != ById.end();) {
      if (It->second->Owner == Owner) {
        Removed.push_back(It->second);
        ByHost.erase(It->second->HostAddress);
        It = ById.erase(It);
      } else {
        ++It;
      }
    }
  }
  std::vector<std::string> Ids;
  for (const auto &Record : Removed) {
    freeInstances(*Record, nullptr);
    Ids.push_back(Record->UniqueId);
  }
  return Ids;
}

void DeviceGlobalDatabase::forgetContext(pi_context Context) {
  std::vector<std::shared_ptr<DeviceGlobalRecord>> All;
  {
    std::shared_lock<std::shared_mutex> Lock(Mutex);
    for (const auto &[Id, Record] : ById)
      All.push_back(Record);
  }
  for (const auto &Record : All)
    freeInstances(*Record, Context);
  std::lock_guard<std::mutex> Lock(QueuesMutex);
  for (auto It = Queues.begin(); It != Queues.end();) {
    if (It->first.first == Context) {
      Table.piQueueRelease(It->second);
      It = Queues.erase(It);
    } else {
      ++It;
    }
  }
}

} // namespace dglink::runtime::detail
