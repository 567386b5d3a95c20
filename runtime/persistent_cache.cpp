// The persistent program cache: entry files, their checks, eviction.
//
// An entry file (<16 hex digits of the key's hash>.dglc), little-endian:
//   0  char[8]  "DGLCACHE"
//   8  uint32   version (PersistentEntryVersion)
//  12  uint32   0
//  16  uint64   key bytes
//  24  uint64   binary bytes
//  32  uint64   FNV-1a 64 of bytes [0, 32) and of everything after the header
//  40  key, then binary
#include "persistent_cache.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include <unistd.h>

namespace dglink::runtime::detail {

namespace fs = std::filesystem;

namespace {

void put64(std::vector<uint8_t> &Out, size_t At, uint64_t Value, size_t Bytes = 8) {
  for (size_t I = 0; I < Bytes; ++I)
    Out[At + I] = static_cast<uint8_t>(Value >> (8 * I));
}

uint64_t get64(const std::vector<uint8_t> &In, size_t At, size_t Bytes = 8) {
  uint64_t Value = 0;
  for (size_t I = 0; I < Bytes; ++I)
    Value |= static_cast<uint64_t>(In[At + I]) << (8 * I);
  return Value;
}

std::string hex(uint64_t Value) {
  static const char Digits[] = "0123456789abcdef";
  std::string Text(16, '0');
  for (int I = 15; I >= 0; --I, Value >>= 4)
    Text[static_cast<size_t>(I)] = Digits[Value & 15];
  return Text;
}

uint64_t checksum(const std::vector<uint8_t> &File) {
  const uint64_t Head = fnv1a(File.data(), 32);
  return fnv1a(File.data() + PersistentHeaderSize, File.size() - PersistentHeaderSize, Head);
}

bool isEntry(const fs::path &Path) { return Path.extension() == PersistentEntrySuffix; }
bool isUnfinished(const fs::path &Path) {
  return Path.filename().string().find(std::string(PersistentEntrySuffix) + ".tmp.") !=
         std::string::npos;
}

int64_t secondsSinceEpoch(fs::file_time_type Time) {
  // file_time_type's clock has no portable epoch in C++17: measure from now.
  const auto Age = fs::file_time_type::clock::now() - Time;
  const auto Now = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::seconds>(Now - Age).count();
}

} // namespace

uint64_t fnv1a(const void *Data, size_t Size, uint64_t Seed) {
  uint64_t Hash = Seed;
  const auto *Bytes = static_cast<const uint8_t *>(Data);
  for (size_t I = 0; I < Size; ++I) {
    Hash ^= Bytes[I];
    Hash *= 0x100000001b3ULL;
  }
  return Hash;
}

std::string persistentKey(const DeviceTraits &Traits, const std::string &Options,
                          const std::vector<uint8_t> &SpecConstants,
                          const std::vector<const RegisteredImage *> &Images) {
  // The seed: images sorted by the names of the symbols they define, so that the key
  // does not depend on the order the collection met them in.
  std::vector<std::string> Lines;
  for (const RegisteredImage *Image : Images) {
    const _pi_device_binary_struct &Binary = *Image->Binary;
    const size_t Size = static_cast<size_t>(Binary.BinaryEnd - Binary.BinaryStart);
    std::string Defined = Image->DefinedSymbols;
    std::replace(Defined.begin(), Defined.end(), '\n', ' ');
    Lines.push_back("image: " + Defined + "| " + Image->Info.Target + " format " +
                    std::to_string(static_cast<int>(Image->Info.Format)) + " | " +
                    std::to_string(Size) + " bytes fnv " + hex(fnv1a(Binary.BinaryStart, Size)) +
                    " | compile options " +
                    (Binary.CompileOptions == nullptr ? "" : Binary.CompileOptions) +
                    " | link options " + (Binary.LinkOptions == nullptr ? "" : Binary.LinkOptions));
  }
  std::sort(Lines.begin(), Lines.end());
  std::string Spec;
  for (const uint8_t Byte : SpecConstants)
    Spec += hex(Byte).substr(14);
  // The backend too: CUDA and HIP's NVIDIA platform serve one device with one driver.
  std::string Key = "dglink program\nbackend: " + Traits.Backend + "\ndevice: " + Traits.Name +
                    "\ndriver: " + Traits.DriverVersion + "\noptions: " + Options +
                    "\nspec constants: " + Spec + "\n";
  for (const std::string &Line : Lines)
    Key += Line + "\n";
  return Key;
}

void readEntry(const std::string &Path, std::string &Key, std::vector<uint8_t> &Binary,
               std::string &Why) {
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    Why = "cannot be read";
    return;
  }
  const std::vector<uint8_t> File((std::istreambuf_iterator<char>(In)),
                                  std::istreambuf_iterator<char>());
  if (File.size() < PersistentHeaderSize) {
    Why = "truncated: " + std::to_string(File.size()) + " bytes, the header alone is " +
          std::to_string(PersistentHeaderSize);
    return;
  }
  if (std::memcmp(File.data(), PersistentEntryMagic, sizeof(PersistentEntryMagic)) != 0) {
    Why = "not a dglink cache entry (wrong magic)";
    return;
  }
  const uint64_t Version = get64(File, 8, 4);
  if (Version != PersistentEntryVersion) {
    Why = "entry version " + std::to_string(Version) + ", this dglink reads version " +
          std::to_string(PersistentEntryVersion);
    return;
  }
  const uint64_t KeySize = get64(File, 16);
  const uint64_t BinarySize = get64(File, 24);
  const uint64_t Payload = File.size() - PersistentHeaderSize;
  if (KeySize > Payload || BinarySize > Payload - KeySize || KeySize + BinarySize != Payload) {
    Why = "truncated or padded: the header promises " + std::to_string(KeySize) +
          " key bytes and " + std::to_string(BinarySize) + " binary bytes, the file holds " +
          std::to_string(Payload) + " after the header";
    return;
  }
  if (get64(File, 32) != checksum(File)) {
    Why = "checksum mismatch: the entry is corrupt";
    return;
  }
  if (BinarySize == 0) {
    Why = "empty binary";
    return;
  }
  const auto *KeyStart = File.data() + PersistentHeaderSize;
  Key.assign(KeyStart, KeyStart + KeySize);
  Binary.assign(KeyStart + KeySize, File.data() + File.size());
  Why.clear();
}

PersistentCache::PersistentCache(PersistentCacheSettings Chosen) : Settings(std::move(Chosen)) {
  if (!Settings.Enabled)
    return;
  std::error_code Error;
  fs::create_directories(Settings.Directory, Error);
  if (Settings.Directory.empty() || !fs::is_directory(Settings.Directory, Error))
    Settings.Enabled = false; // no usable directory: programs are built as without it
}

std::string PersistentCache::pathOf(const std::string &Key) const {
  return (fs::path(Settings.Directory) /
          (hex(fnv1a(Key.data(), Key.size())) + PersistentEntrySuffix))
      .string();
}

std::optional<std::vector<uint8_t>> PersistentCache::load(const std::string &Key,
                                                          std::string &Why) {
  Why.clear();
  const std::string Path = pathOf(Key);
  std::error_code Error;
  if (!fs::exists(Path, Error))
    return std::nullopt;
  std::string Stored;
  std::vector<uint8_t> Binary;
  readEntry(Path, Stored, Binary, Why);
  if (Why.empty() && Stored != Key)
    Why = "built from another key (a hash collision or a foreign entry)";
  if (!Why.empty()) {
    fs::remove(Path, Error);
    return std::nullopt;
  }
  fs::last_write_time(Path, fs::file_time_type::clock::now(), Error); // used now
  return Binary;
}

Status PersistentCache::store(const std::string &Key, const std::vector<uint8_t> &Binary) {
  const uint64_t Size = PersistentHeaderSize + Key.size() + Binary.size();
  if (Size > Settings.MaxBytes)
    return {}; // bigger than the whole cache: not kept
  std::vector<uint8_t> File(Size, 0);
  std::memcpy(File.data(), PersistentEntryMagic, sizeof(PersistentEntryMagic));
  put64(File, 8, PersistentEntryVersion, 4);
  put64(File, 16, Key.size());
  put64(File, 24, Binary.size());
  std::memcpy(File.data() + PersistentHeaderSize, Key.data(), Key.size());
  std::memcpy(File.data() + PersistentHeaderSize + Key.size(), Binary.data(), Binary.size());
  put64(File, 32, checksum(File));

  // A name no other writer uses; the rename makes the entry appear whole or not at all.
  static std::atomic<uint64_t> Counter{0};
  const std::string Path = pathOf(Key);
  const std::string Temporary =
      Path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(++Counter);
  {
    std::ofstream Out(Temporary, std::ios::binary | std::ios::trunc);
    Out.write(reinterpret_cast<const char *>(File.data()), static_cast<std::streamsize>(Size));
    Out.close();
    if (!Out) {
      std::error_code Ignored;
      fs::remove(Temporary, Ignored);
      return {PI_ERROR_OUT_OF_RESOURCES, "persistent cache: cannot write " + Temporary};
    }
  }
  std::error_code Error;
  fs::rename(Temporary, Path, Error);
  if (Error) {
    fs::remove(Temporary, Error);
    return {PI_ERROR_OUT_OF_RESOURCES, "persistent cache: cannot rename to " + Path};
  }
  evict();
  return {};
}

void PersistentCache::evict() {
  std::lock_guard<std::mutex> Lock(EvictionMutex);
  struct File {
    fs::path Path;
    uint64_t Size;
    fs::file_time_type Used;
  };
  std::vector<File> Files;
  uint64_t Total = 0;
  std::error_code Error;
  const auto Now = fs::file_time_type::clock::now();
  for (fs::directory_iterator It(Settings.Directory, Error), End; !Error && It != End;
       It.increment(Error)) {
    const fs::path Path = It->path();
    std::error_code StatError;
    const auto Used = fs::last_write_time(Path, StatError);
    if (StatError)
      continue;
    // An unfinished write older than an hour belongs to a process that died.
    if (isUnfinished(Path)) {
      if (Now - Used > std::chrono::hours(1))
        fs::remove(Path, StatError);
      continue;
    }
    if (!isEntry(Path))
      continue;
    const uint64_t Size = fs::file_size(Path, StatError);
    if (StatError)
      continue;
    Files.push_back({Path, Size, Used});
    Total += Size;
  }
  if (Total <= Settings.MaxBytes)
    return;
  std::sort(Files.begin(), Files.end(),
            [](const File &A, const File &B) { return A.Used < B.Used; });
  for (const File &Oldest : Files) {
    if (Total <= Settings.MaxBytes)
      break;
    if (fs::remove(Oldest.Path, Error))
      Total -= Oldest.Size;
  }
}

std::vector<PersistentEntry> PersistentCache::list() const {
  std::vector<PersistentEntry> Entries;
  std::error_code Error;
  for (fs::directory_iterator It(Settings.Directory, Error), End; !Error && It != End;
       It.increment(Error)) {
    if (!isEntry(It->path()) && !isUnfinished(It->path()))
      continue;
    PersistentEntry Entry;
    Entry.Path = It->path().string();
    std::error_code StatError;
    Entry.Size = fs::file_size(It->path(), StatError);
    Entry.LastUsed = secondsSinceEpoch(fs::last_write_time(It->path(), StatError));
    if (isUnfinished(It->path())) {
      Entry.Problem = "an unfinished write";
    } else {
      std::vector<uint8_t> Binary;
      readEntry(Entry.Path, Entry.Key, Binary, Entry.Problem);
      if (Entry.Problem.empty() && pathOf(Entry.Key) != Entry.Path)
        Entry.Problem = "its name is not the hash of its key";
    }
    Entry.Valid = Entry.Problem.empty();
    if (!Entry.Valid)
      Entry.Key.clear();
    Entries.push_back(std::move(Entry));
  }
  std::sort(Entries.begin(), Entries.end(),
            [](const PersistentEntry &A, const PersistentEntry &B) { return A.Path < B.Path; });
  return Entries;
}

Status PersistentCache::clear() {
  std::error_code Error;
  std::vector<fs::path> Victims;
  for (fs::directory_iterator It(Settings.Directory, Error), End; !Error && It != End;
       It.increment(Error))
    if (isEntry(It->path()) || isUnfinished(It->path()))
      Victims.push_back(It->path());
  if (Error)
    return {PI_ERROR_INVALID_VALUE,
            "persistent cache: cannot read " + Settings.Directory + ": " + Error.message()};
  for (const fs::path &Victim : Victims)
    if (!fs::remove(Victim, Error) && Error)
      return {PI_ERROR_INVALID_OPERATION,
              "persistent cache: cannot remove " + Victim.string() + ": " + Error.message()};
  return {};
}

} // namespace dglink::runtime::detail

namespace dglink::runtime {

PersistentCacheSettings PersistentCacheSettings::fromEnvironment() {
  PersistentCacheSettings Settings;
  const char *On = std::getenv("DGLINK_CACHE_PERSISTENT");
  Settings.Enabled = On != nullptr && std::strcmp(On, "1") == 0;
  if (const char *Directory = std::getenv("DGLINK_CACHE_DIR"); Directory != nullptr && *Directory)
    Settings.Directory = Directory;
  else if (const char *Xdg = std::getenv("XDG_CACHE_HOME"); Xdg != nullptr && *Xdg)
    Settings.Directory = std::string(Xdg) + "/dglink";
  else if (const char *Home = std::getenv("HOME"); Home != nullptr && *Home)
    Settings.Directory = std::string(Home) + "/.cache/dglink";
  if (const char *Max = std::getenv("DGLINK_CACHE_MAX_SIZE"); Max != nullptr && *Max) {
    char *End = nullptr;
    const unsigned long long Value = std::strtoull(Max, &End, 10);
    uint64_t Scale = 1;
    if (End != nullptr && (*End == 'K' || *End == 'k'))
      Scale = uint64_t(1) << 10;
    else if (End != nullptr && (*End == 'M' || *End == 'm'))
      Scale = uint64_t(1) << 20;
    else if (End != nullptr && (*End == 'G' || *End == 'g'))
      Scale = uint64_t(1) << 30;
    if (End != Max && Value != 0)
      Settings.MaxBytes = static_cast<uint64_t>(Value) * Scale;
  }
  return Settings;
}

Expected<std::vector<PersistentEntry>> listPersistentCache(const std::string &Directory) {
  std::error_code Error;
  if (!std::filesystem::is_directory(Directory, Error))
    return Status{PI_ERROR_INVALID_VALUE, "persistent cache: " + Directory + " is not a directory"};
  PersistentCacheSettings Settings;
  Settings.Directory = Directory;
  return detail::PersistentCache(Settings).list();
}

Status clearPersistentCache(const std::string &Directory) {
  std::error_code Error;
  if (!std::filesystem::is_directory(Directory, Error))
    return {PI_ERROR_INVALID_VALUE, "persistent cache: " + Directory + " is not a directory"};
  PersistentCacheSettings Settings;
  Settings.Directory = Directory;
  return detail::PersistentCache(Settings).clear();
}

} // namespace dglink::runtime
