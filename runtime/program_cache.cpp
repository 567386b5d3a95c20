// The in-memory program cache: lookups, builds in progress, and forgetting modules.
#include "program_cache.h"

#include <algorithm>
#include <set>

namespace dglink::runtime::detail {

bool BuiltProgram::uses(ModuleId Id) const {
  return std::any_of(Modules.begin(), Modules.end(),
                     [Id](const std::shared_ptr<const Module> &M) { return M->Id == Id; });
}

void PendingBuild::finish(std::shared_ptr<const BuiltProgram> Built, Status Failed) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Program = std::move(Built);
    Failure = std::move(Failed);
    Done = true;
  }
  Finished.notify_all();
}

Expected<std::shared_ptr<const BuiltProgram>> PendingBuild::wait() {
  std::unique_lock<std::mutex> Lock(Mutex);
  Finished.wait(Lock, [this] { return Done; });
  if (Program == nullptr)
    return Failure;
  return Program;
}

ProgramCache::Lookup ProgramCache::acquire(const std::string &Kernel, const ProgramKey &Key) {
  std::lock_guard<std::mutex> Lock(Mutex);
  std::vector<Entry> &Entries = ByKernel[Kernel];
  // A program first: another kernel's build may have entered one beside a build of this
  // kernel still in progress.
  for (const Entry &Candidate : Entries)
    if (Candidate.Key == Key && Candidate.Program != nullptr)
      return {Candidate.Program, nullptr, false};
  for (const Entry &Candidate : Entries)
    if (Candidate.Key == Key)
      return {nullptr, Candidate.Pending, false};
  auto Pending = std::make_shared<PendingBuild>();
  Entries.push_back({Key, nullptr, Pending});
  return {nullptr, std::move(Pending), true};
}

std::shared_ptr<const BuiltProgram> ProgramCache::built(const std::string &Kernel,
                                                        const ProgramKey &Key) const {
  std::lock_guard<std::mutex> Lock(Mutex);
  const auto Found = ByKernel.find(Kernel);
  if (Found != ByKernel.end())
    for (const Entry &Candidate : Found->second)
      if (Candidate.Key == Key && Candidate.Program != nullptr)
        return Candidate.Program;
  return nullptr;
}

void ProgramCache::complete(const std::string &Kernel, const ProgramKey &Key,
                            const std::shared_ptr<PendingBuild> &Pending,
                            const std::shared_ptr<const BuiltProgram> &Program,
                            const Status &Failure) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    std::vector<Entry> &Entries = ByKernel[Kernel];
    Entries.erase(std::remove_if(Entries.begin(), Entries.end(),
                                 [&](const Entry &E) { return E.Pending == Pending; }),
                  Entries.end());
    // A module unregistered during the build took its entries with it; this program
    // must not come back into the cache.
    const bool Current =
        Program != nullptr &&
        std::all_of(Program->Modules.begin(), Program->Modules.end(),
                    [](const std::shared_ptr<const Module> &M) { return M->Registered.load(); });
    if (Current) {
      auto Enter = [&](const std::string &Name, const ProgramKey &EntryKey) {
        std::vector<Entry> &List = ByKernel[Name];
        if (std::none_of(List.begin(), List.end(),
                         [&](const Entry &E) { return E.Key == EntryKey && E.Program != nullptr; }))
          List.push_back({EntryKey, Program, nullptr});
      };
      Enter(Kernel, Key);
      Generation.fetch_add(1, std::memory_order_acq_rel);
      for (const std::string &Name : Program->Kernels)
        for (const auto &M : Program->Modules) {
          ProgramKey Other = Key;
          Other.Module = M->Id;
          Enter(Name, Other);
        }
    }
  }
  Pending->finish(Program, Failure);
}

template <typename Predicate>
std::vector<std::shared_ptr<const BuiltProgram>> ProgramCache::dropIf(Predicate &&Drop) {
  std::vector<std::shared_ptr<const BuiltProgram>> Dropped;
  std::lock_guard<std::mutex> Lock(Mutex);
  for (auto It = ByKernel.begin(); It != ByKernel.end();) {
    std::vector<Entry> &Entries = It->second;
    for (auto E = Entries.begin(); E != Entries.end();) {
      if (E->Program != nullptr && Drop(*E)) {
        Dropped.push_back(std::move(E->Program));
        E = Entries.erase(E);
      } else {
        ++E;
      }
    }
    It = Entries.empty() ? ByKernel.erase(It) : std::next(It);
  }
  if (!Dropped.empty())
    Generation.fetch_add(1, std::memory_order_acq_rel);
  return Dropped;
}

std::vector<std::shared_ptr<const BuiltProgram>> ProgramCache::forgetModule(ModuleId Module) {
  return dropIf(
      [Module](const Entry &E) { return E.Key.Module == Module || E.Program->uses(Module); });
}

std::vector<std::shared_ptr<const BuiltProgram>> ProgramCache::forgetContext(pi_context Context) {
  return dropIf([Context](const Entry &E) { return E.Key.Context == Context; });
}

std::vector<std::shared_ptr<const BuiltProgram>>
ProgramCache::forgetDeclaring(const std::vector<std::string> &Ids) {
  return dropIf([&Ids](const Entry &E) {
    return std::any_of(Ids.begin(), Ids.end(),
                       [&E](const std::string &Id) { return E.Program->Globals.count(Id) != 0; });
  });
}

std::vector<std::shared_ptr<const BuiltProgram>> ProgramCache::clear() {
  std::vector<std::shared_ptr<const BuiltProgram>> Dropped;
  std::lock_guard<std::mutex> Lock(Mutex);
  for (auto &[Name, Entries] : ByKernel)
    for (Entry &E : Entries)
      if (E.Program != nullptr)
        Dropped.push_back(std::move(E.Program));
  ByKernel.clear();
  Generation.fetch_add(1, std::memory_order_acq_rel);
  return Dropped;
}

std::vector<std::shared_ptr<const BuiltProgram>> ProgramCache::programsOn(pi_context Context,
                                                                          pi_device Device) const {
  std::lock_guard<std::mutex> Lock(Mutex);
  std::vector<std::shared_ptr<const BuiltProgram>> Found;
  for (const auto &[Name, Entries] : ByKernel)
    for (const Entry &E : Entries)
      if (E.Program != nullptr && (Context == nullptr || E.Key.Context == Context) &&
          (Device == nullptr || E.Key.Device == Device) &&
          std::find(Found.begin(), Found.end(), E.Program) == Found.end())
        Found.push_back(E.Program);
  return Found;
}

size_t ProgramCache::programCount() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  std::set<const BuiltProgram *> Distinct;
  for (const auto &[Name, Entries] : ByKernel)
    for (const Entry &E : Entries)
      if (E.Program != nullptr)
        Distinct.insert(E.Program.get());
  return Distinct.size();
}

} // namespace dglink::runtime::detail
