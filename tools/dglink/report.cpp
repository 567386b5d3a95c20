// The progress listener, the conformance matrix and the JUnit XML of `dglink conform`.
#include "report.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>

#include <sys/ioctl.h>
#include <unistd.h>

namespace dglink::tools {

size_t ConformResults::failed() const {
  return std::count_if(Tests.begin(), Tests.end(),
                       [](const TestRecord &T) { return T.Result == Outcome::Failed; });
}
size_t ConformResults::skipped() const {
  return std::count_if(Tests.begin(), Tests.end(),
                       [](const TestRecord &T) { return T.Result == Outcome::Skipped; });
}
size_t ConformResults::passed() const {
  return std::count_if(Tests.begin(), Tests.end(),
                       [](const TestRecord &T) { return T.Result == Outcome::Passed; });
}

void splitTestName(const std::string &Suite, const std::string &Name, std::string &Scenario,
                   std::string &Device) {
  const size_t Slash = Name.find('/');
  Scenario = Suite + "." + Name.substr(0, Slash);
  Device = Slash == std::string::npos ? "" : Name.substr(Slash + 1);
}

namespace {
std::string trim(const std::string &Text) {
  const size_t Begin = Text.find_first_not_of(" \n\t");
  if (Begin == std::string::npos)
    return "";
  return Text.substr(Begin, Text.find_last_not_of(" \n\t") - Begin + 1);
}

std::string firstLine(const std::string &Text) { return Text.substr(0, Text.find('\n')); }

// Source paths from the repository root ("conformance/scenarios/linking.cpp"):
// the build machine's checkout folder means nothing to the reader.
std::string sourcePath(const std::string &Path) {
  const size_t At = Path.rfind("/conformance/");
  return At == std::string::npos ? Path : Path.substr(At + 1);
}

std::string describe(const TestRecord &T) {
  return T.Device.empty() ? T.Scenario : T.Scenario + " on " + T.Device;
}
} // namespace

// ---- ProgressListener ----

ProgressListener::ProgressListener(ConformResults &R) : Results(R) {
  Terminal = isatty(STDERR_FILENO) != 0;
}

void ProgressListener::OnTestIterationStart(const ::testing::UnitTest &Unit, int) {
  Total = Unit.test_to_run_count();
  Index = 0;
}

void ProgressListener::OnTestStart(const ::testing::TestInfo &Info) {
  Results.Tests.emplace_back();
  Current = &Results.Tests.back();
  splitTestName(Info.test_suite_name(), Info.name(), Current->Scenario, Current->Device);
  std::ostringstream Line;
  Line << "[" << ++Index << "/" << Total << "] " << describe(*Current);
  if (Terminal) {
    clearLine();
    // A line longer than the terminal wraps, and "\r" would then not erase it.
    std::string Text = Line.str();
    winsize Size{};
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &Size) == 0 && Size.ws_col > 1 &&
        Text.size() >= Size.ws_col)
      Text.resize(Size.ws_col - 1);
    std::fputs(Text.c_str(), stderr);
    LineLength = Text.size();
  } else {
    std::fprintf(stderr, "%s\n", Line.str().c_str());
  }
  std::fflush(stderr);
}

void ProgressListener::OnTestPartResult(const ::testing::TestPartResult &Part) {
  if (Part.skipped()) {
    if (Current != nullptr && Current->SkipReason.empty())
      Current->SkipReason = trim(Part.message());
    return;
  }
  if (!Part.failed())
    return;
  std::ostringstream Text;
  if (Part.file_name() != nullptr)
    Text << sourcePath(Part.file_name()) << ":" << Part.line_number() << ": ";
  // FAIL() and ADD_FAILURE() put a bare "Failed" line before the message.
  std::string Message = trim(Part.message());
  if (Message.rfind("Failed\n", 0) == 0)
    Message = trim(Message.substr(7));
  Text << Message;
  std::string Indented = Text.str();
  for (size_t At = Indented.find('\n'); At != std::string::npos; At = Indented.find('\n', At + 1))
    Indented.insert(At + 1, "  ");
  clearLine();
  std::fprintf(stderr, "FAIL %s\n  %s\n",
               Current != nullptr ? describe(*Current).c_str() : "(outside any test)",
               Indented.c_str());
  std::fflush(stderr);
  if (Current != nullptr)
    Current->Failures.push_back(Text.str());
  else
    Results.GlobalFailures.push_back(Text.str());
}

void ProgressListener::OnTestEnd(const ::testing::TestInfo &Info) {
  if (Current == nullptr)
    return;
  const ::testing::TestResult &Result = *Info.result();
  if (Result.Failed())
    Current->Result = Outcome::Failed;
  else if (Result.Skipped())
    Current->Result = Outcome::Skipped;
  else
    Current->Result = Outcome::Passed;
  if (Current->Result == Outcome::Skipped && Current->SkipReason.empty())
    Current->SkipReason = "no reason given";
  Current->Seconds = static_cast<double>(Result.elapsed_time()) / 1000.0;
  Current = nullptr;
}

void ProgressListener::OnTestIterationEnd(const ::testing::UnitTest &Unit, int) {
  clearLine();
  Results.Seconds = static_cast<double>(Unit.elapsed_time()) / 1000.0;
}

void ProgressListener::clearLine() {
  if (Terminal && LineLength != 0) {
    std::fputs("\r\033[K", stderr);
    LineLength = 0;
  }
}

// ---- the matrix ----

namespace {
constexpr size_t MaxSkipCell = 48;

std::string cellText(const TestRecord &T, bool &Truncated) {
  Truncated = false;
  switch (T.Result) {
  case Outcome::Passed:
    return "pass";
  case Outcome::Failed:
    return "FAIL";
  case Outcome::Skipped:
    break;
  }
  std::string Reason = firstLine(T.SkipReason);
  const size_t Room = MaxSkipCell - std::string("skip(...)").size();
  if (Reason.size() > Room || Reason.size() != T.SkipReason.size()) {
    // Keep whole clauses where one fits: "no image built for target amdgcn".
    size_t Cut = std::string::npos;
    for (const char *Boundary : {"; ", " ("}) {
      const size_t At = Reason.rfind(Boundary, Room);
      if (At != std::string::npos && At > Room / 2) {
        Cut = At;
        break;
      }
    }
    Reason = Reason.substr(0, Cut == std::string::npos ? Room : Cut) + "...";
    Truncated = true;
  }
  return "skip(" + Reason + ")";
}

std::string paint(const std::string &Text, Outcome Result, bool Color) {
  if (!Color)
    return Text;
  const char *Code = Result == Outcome::Passed   ? "\033[32m"
                     : Result == Outcome::Failed ? "\033[1;31m"
                                                 : "\033[33m";
  return Code + Text + "\033[0m";
}

std::string pad(const std::string &Text, size_t Width) {
  return Text.size() >= Width ? Text : Text + std::string(Width - Text.size(), ' ');
}

template <typename T> std::vector<T> uniqueInOrder(const std::vector<T> &Values) {
  std::vector<T> Out;
  for (const T &V : Values)
    if (std::find(Out.begin(), Out.end(), V) == Out.end())
      Out.push_back(V);
  return Out;
}
} // namespace

void printMatrix(const ConformResults &Results, std::ostream &Out, bool Color) {
  std::vector<std::string> Scenarios, Devices, GlobalScenarios;
  std::map<std::pair<std::string, std::string>, const TestRecord *> Cells;
  for (const TestRecord &T : Results.Tests) {
    (T.Device.empty() ? GlobalScenarios : Scenarios).push_back(T.Scenario);
    if (!T.Device.empty())
      Devices.push_back(T.Device);
    Cells[{T.Scenario, T.Device}] = &T;
  }
  Scenarios = uniqueInOrder(Scenarios);
  Devices = uniqueInOrder(Devices);
  GlobalScenarios = uniqueInOrder(GlobalScenarios);

  size_t NameWidth = std::string("Scenario").size();
  for (const std::string &S : Scenarios)
    NameWidth = std::max(NameWidth, S.size());
  for (const std::string &S : GlobalScenarios)
    NameWidth = std::max(NameWidth, S.size());
  NameWidth += 2;

  std::vector<std::pair<const TestRecord *, std::string>> TruncatedSkips;
  auto Cell = [&](const TestRecord &T) {
    bool Truncated = false;
    std::string Text = cellText(T, Truncated);
    if (Truncated)
      TruncatedSkips.push_back({&T, T.SkipReason});
    return Text;
  };

  if (!GlobalScenarios.empty()) {
    Out << "Dispatch layer (not per device: each runs once)\n";
    // No columns here, so skip reasons are shown whole.
    for (const std::string &S : GlobalScenarios) {
      const TestRecord &T = *Cells[{S, ""}];
      const std::string Text = T.Result == Outcome::Passed   ? "pass"
                               : T.Result == Outcome::Failed ? "FAIL"
                                                             : "skip(" + T.SkipReason + ")";
      Out << "  " << pad(S, NameWidth) << paint(Text, T.Result, Color) << "\n";
    }
    if (!Devices.empty())
      Out << "\n";
  }

  if (!Devices.empty()) {
    // Column widths: the device id or the widest cell.
    std::vector<std::vector<std::string>> Texts(Scenarios.size(),
                                                std::vector<std::string>(Devices.size()));
    std::vector<size_t> Widths;
    for (size_t D = 0; D < Devices.size(); ++D) {
      size_t Width = Devices[D].size();
      for (size_t S = 0; S < Scenarios.size(); ++S) {
        auto Found = Cells.find({Scenarios[S], Devices[D]});
        Texts[S][D] = Found == Cells.end() ? "-" : Cell(*Found->second);
        Width = std::max(Width, Texts[S][D].size());
      }
      Widths.push_back(Width + 2);
    }
    // Cells are padded outside their colour codes, and lines lose trailing blanks.
    auto Emit = [&Out](std::string Line) {
      Line.erase(Line.find_last_not_of(' ') + 1);
      Out << Line << "\n";
    };
    std::string Line = pad("Scenario", NameWidth);
    for (size_t D = 0; D < Devices.size(); ++D)
      Line += pad(Devices[D], Widths[D]);
    Emit(Line);
    Line = std::string(NameWidth - 2, '-') + "  ";
    for (size_t D = 0; D < Devices.size(); ++D)
      Line += std::string(Widths[D] - 2, '-') + "  ";
    Emit(Line);
    for (size_t S = 0; S < Scenarios.size(); ++S) {
      Line = pad(Scenarios[S], NameWidth);
      for (size_t D = 0; D < Devices.size(); ++D) {
        auto Found = Cells.find({Scenarios[S], Devices[D]});
        const std::string &Text = Texts[S][D];
        Line += (Found == Cells.end() ? Text : paint(Text, Found->second->Result, Color)) +
                std::string(Widths[D] - Text.size(), ' ');
      }
      Emit(Line);
    }
    // Per-device totals.
    Line = pad("", NameWidth);
    for (size_t D = 0; D < Devices.size(); ++D)
      Line += std::string(Widths[D] - 2, '-') + "  ";
    Emit(Line);
    Line = pad("Totals per device", NameWidth);
    for (size_t D = 0; D < Devices.size(); ++D) {
      size_t Pass = 0, Fail = 0, Skip = 0;
      for (const TestRecord &T : Results.Tests)
        if (T.Device == Devices[D])
          (T.Result == Outcome::Passed ? Pass : T.Result == Outcome::Failed ? Fail : Skip)++;
      std::ostringstream Text;
      Text << Pass << " pass, " << Fail << " FAIL, " << Skip << " skip";
      Line += pad(Text.str(), Widths[D]);
    }
    Emit(Line);
  }

  if (!TruncatedSkips.empty()) {
    // Cells shorten the reasons; here they are whole, each once.
    Out << "\nSkip reasons\n";
    std::vector<std::string> Reasons;
    for (const auto &Entry : TruncatedSkips)
      Reasons.push_back(Entry.second);
    for (const std::string &Reason : uniqueInOrder(Reasons)) {
      std::vector<std::string> Where;
      for (const auto &Entry : TruncatedSkips)
        if (Entry.second == Reason)
          Where.push_back(describe(*Entry.first));
      Out << "  " << Reason << "\n";
      for (const std::string &W : uniqueInOrder(Where))
        Out << "      " << W << "\n";
    }
  }

  const size_t Failed = Results.failed();
  if (Failed != 0 || !Results.GlobalFailures.empty()) {
    Out << "\nFailures\n";
    for (const TestRecord &T : Results.Tests) {
      if (T.Result != Outcome::Failed)
        continue;
      Out << "  " << describe(T) << "\n";
      for (const std::string &F : T.Failures)
        Out << "      " << firstLine(F) << "\n";
    }
    for (const std::string &F : Results.GlobalFailures)
      Out << "  (outside any test)\n      " << firstLine(F) << "\n";
  }

  std::ostringstream Summary;
  Summary << Results.Tests.size() << " tests on " << Devices.size()
          << (Devices.size() == 1 ? " device" : " devices") << " in " << std::fixed
          << std::setprecision(1) << Results.Seconds << " s: " << Results.passed() << " passed, "
          << Failed << " failed, " << Results.skipped() << " skipped";
  const bool Ok = Failed == 0 && Results.GlobalFailures.empty();
  Out << "\n"
      << (Color ? (Ok ? "\033[1;32m" : "\033[1;31m") : "") << (Ok ? "PASSED " : "FAILED ")
      << (Color ? "\033[0m" : "") << Summary.str() << "\n";
  // The two kinds of test, so that the matrix's per-device totals and the sum above add
  // up where the reader can see it.
  const auto Counts = [&Results](bool PerDevice) {
    size_t Tests = 0, Passed = 0, Failing = 0, Skipped = 0;
    for (const TestRecord &T : Results.Tests) {
      if (T.Device.empty() == PerDevice)
        continue;
      ++Tests;
      (T.Result == Outcome::Passed ? Passed : T.Result == Outcome::Failed ? Failing : Skipped)++;
    }
    std::ostringstream Text;
    Text << Tests << (Tests == 1 ? " test" : " tests") << ": " << Passed << " passed, " << Failing
         << " failed, " << Skipped << " skipped";
    return Text.str();
  };
  Out << "  per device (" << Scenarios.size()
      << (Scenarios.size() == 1 ? " scenario" : " scenarios") << " x " << Devices.size()
      << (Devices.size() == 1 ? " device" : " devices")
      << ", the matrix's totals): " << Counts(true) << "\n"
      << "  not per device (" << GlobalScenarios.size()
      << (GlobalScenarios.size() == 1 ? " scenario" : " scenarios")
      << " of the dispatch layer): " << Counts(false) << "\n";
}

// ---- JUnit XML ----

namespace {
std::string xmlEscape(const std::string &Text) {
  std::string Out;
  for (char C : Text) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    case '\'':
      Out += "&apos;";
      break;
    default:
      // XML 1.0 allows no control characters but tab, newline and return.
      if (static_cast<unsigned char>(C) < 0x20 && C != '\n' && C != '\t' && C != '\r')
        Out += '?';
      else
        Out += C;
    }
  }
  return Out;
}

std::string seconds(double Value) {
  std::ostringstream Out;
  Out << std::fixed << std::setprecision(3) << Value;
  return Out.str();
}
} // namespace

bool writeJunit(const ConformResults &Results, const std::string &Path, std::string &Error) {
  std::vector<std::string> Groups;
  for (const TestRecord &T : Results.Tests)
    Groups.push_back(T.Device);
  Groups = uniqueInOrder(Groups);

  std::ostringstream Xml;
  Xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"dglink conform\" tests=\"" << Results.Tests.size() << "\" failures=\""
      << Results.failed() << "\" errors=\"" << Results.GlobalFailures.size() << "\" skipped=\""
      << Results.skipped() << "\" time=\"" << seconds(Results.Seconds) << "\">\n";
  for (const std::string &Group : Groups) {
    size_t Count = 0, Failed = 0, Skipped = 0;
    double Time = 0;
    for (const TestRecord &T : Results.Tests) {
      if (T.Device != Group)
        continue;
      ++Count;
      Failed += T.Result == Outcome::Failed;
      Skipped += T.Result == Outcome::Skipped;
      Time += T.Seconds;
    }
    Xml << "  <testsuite name=\"" << xmlEscape(Group.empty() ? "dispatch" : Group) << "\" tests=\""
        << Count << "\" failures=\"" << Failed << "\" errors=\"0\" skipped=\"" << Skipped
        << "\" time=\"" << seconds(Time) << "\">\n";
    for (const TestRecord &T : Results.Tests) {
      if (T.Device != Group)
        continue;
      const size_t Dot = T.Scenario.find('.');
      Xml << "    <testcase classname=\"" << xmlEscape(T.Scenario.substr(0, Dot)) << "\" name=\""
          << xmlEscape(T.Scenario.substr(Dot + 1)) << "\" time=\"" << seconds(T.Seconds) << "\"";
      if (T.Result == Outcome::Passed) {
        Xml << "/>\n";
        continue;
      }
      Xml << ">\n";
      if (T.Result == Outcome::Skipped) {
        Xml << "      <skipped message=\"" << xmlEscape(T.SkipReason) << "\"/>\n";
      } else {
        std::string Text;
        for (const std::string &F : T.Failures)
          Text += F + "\n";
        Xml << "      <failure message=\""
            << xmlEscape(T.Failures.empty() ? "failed" : firstLine(T.Failures.front()))
            << "\" type=\"failure\">" << xmlEscape(Text) << "</failure>\n";
      }
      Xml << "    </testcase>\n";
    }
    Xml << "  </testsuite>\n";
  }
  if (!Results.GlobalFailures.empty()) {
    Xml << "  <testsuite name=\"setup\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n"
        << "    <testcase classname=\"setup\" name=\"outside any test\">\n"
        << "      <error message=\"" << xmlEscape(firstLine(Results.GlobalFailures.front()))
        << "\">";
    for (const std::string &F : Results.GlobalFailures)
      Xml << xmlEscape(F) << "\n";
    Xml << "</error>\n    </testcase>\n  </testsuite>\n";
  }
  Xml << "</testsuites>\n";

  std::ofstream File(Path, std::ios::binary | std::ios::trunc);
  if (!File) {
    Error = "cannot open " + Path + " for writing";
    return false;
  }
  File << Xml.str();
  File.close();
  if (!File) {
    Error = "cannot write " + Path;
    return false;
  }
  return true;
}

} // namespace dglink::tools
