// Latency-against-size plots of the copy benchmark's JSON, as SVG.
#include "plot.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace dglink::tools {
namespace {

// What one panel shows: implementation -> (bytes -> median µs).
using Series = std::map<std::string, std::map<double, double>>;

struct Panel {
  std::string Title;
  Series Lines;
};

const char *const Implementations[] = {"dglink", "raw_pageable", "raw_pinned"};
const char *const Colours[] = {"#d62728", "#1f77b4", "#2ca02c"};
const char *const Operations[] = {"Write", "Read"};

std::string escape(const std::string &Text) {
  std::string Out;
  for (char C : Text) {
    if (C == '<')
      Out += "&lt;";
    else if (C == '>')
      Out += "&gt;";
    else if (C == '&')
      Out += "&amp;";
    else if (C == '"')
      Out += "&quot;";
    else
      Out += C;
  }
  return Out;
}

std::string sizeLabel(double Bytes) {
  if (Bytes >= 1048576)
    return std::to_string(static_cast<long long>(Bytes / 1048576)) + " MiB";
  if (Bytes >= 1024)
    return std::to_string(static_cast<long long>(Bytes / 1024)) + " KiB";
  return std::to_string(static_cast<long long>(Bytes)) + " B";
}

// Google Benchmark writes counters it cannot compute as NaN or inf (a rate of 0 bytes),
// which JSON has no words for: outside strings such a value becomes null.
std::string withoutNonFiniteNumbers(const std::string &Text) {
  static const char *const Words[] = {"-Infinity", "Infinity", "-NaN", "NaN",
                                      "-nan",      "nan",      "-inf", "inf"};
  std::string Out;
  Out.reserve(Text.size());
  bool InString = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    const char C = Text[I];
    if (InString) {
      Out += C;
      if (C == '\\' && I + 1 < Text.size())
        Out += Text[++I];
      else if (C == '"')
        InString = false;
      continue;
    }
    if (C == '"') {
      InString = true;
      Out += C;
      continue;
    }
    bool Replaced = false;
    for (const char *Word : Words) {
      const size_t Length = std::strlen(Word);
      const size_t End = I + Length;
      if (Text.compare(I, Length, Word) == 0 &&
          (End == Text.size() || std::strchr(",]} \t\r\n", Text[End]) != nullptr)) {
        Out += "null";
        I = End - 1;
        Replaced = true;
        break;
      }
    }
    if (!Replaced)
      Out += C;
  }
  return Out;
}

// The rows of one input: "<Operation>/<implementation>/<bytes>" with median_us; with
// repetitions, the median aggregate.
bool readPanels(const PlotInput &Input, std::vector<Panel> &Panels, std::string &Error) {
  nlohmann::json Data;
  try {
    Data = nlohmann::json::parse(withoutNonFiniteNumbers(Input.Json));
  } catch (const nlohmann::json::exception &Problem) {
    Error = "'" + Input.Name + "' is not JSON: " + Problem.what();
    return false;
  }
  if (!Data.is_object() || !Data.contains("benchmarks") || !Data["benchmarks"].is_array()) {
    Error = "'" + Input.Name +
            "' has no \"benchmarks\" array (is it Google Benchmark's JSON, "
            "--benchmark_out_format=json?)";
    return false;
  }
  std::string Device = "unknown device";
  std::string Backend;
  if (Data.contains("context") && Data["context"].is_object()) {
    const auto &Context = Data["context"];
    if (Context.contains("device") && Context["device"].is_string())
      Device = Context["device"].get<std::string>();
    if (Context.contains("backend") && Context["backend"].is_string())
      Backend = Context["backend"].get<std::string>();
  }
  bool HaveAggregates = false;
  for (const auto &Row : Data["benchmarks"])
    if (Row.is_object() && Row.value("run_type", "") == "aggregate")
      HaveAggregates = true;
  std::map<std::string, Series> ByOperation;
  for (const auto &Row : Data["benchmarks"]) {
    if (!Row.is_object() || Row.value("error_occurred", false))
      continue;
    if (HaveAggregates && Row.value("aggregate_name", "") != "median")
      continue;
    const std::string Name = Row.value("run_name", Row.value("name", ""));
    const size_t First = Name.find('/');
    const size_t Second = First == std::string::npos ? First : Name.find('/', First + 1);
    if (Second == std::string::npos)
      continue;
    const std::string Operation = Name.substr(0, First);
    const std::string Implementation = Name.substr(First + 1, Second - First - 1);
    if (std::find(std::begin(Operations), std::end(Operations), Operation) ==
            std::end(Operations) ||
        std::find(std::begin(Implementations), std::end(Implementations), Implementation) ==
            std::end(Implementations))
      continue;
    double Bytes = 0;
    try {
      Bytes = std::stod(Name.substr(Second + 1));
    } catch (const std::exception &) {
      continue;
    }
    const auto Median = Row.find("median_us");
    if (Bytes <= 0 || Median == Row.end() || !Median->is_number() || Median->get<double>() <= 0)
      continue;
    ByOperation[Operation][Implementation][Bytes] = Median->get<double>();
  }
  if (ByOperation.empty()) {
    Error = "'" + Input.Name +
            "' has no Write/Read rows of dglink, raw_pageable or raw_pinned "
            "with a median_us counter (is it dglink_bench_device_global's --benchmark_out?)";
    return false;
  }
  const std::string Label = Backend.empty() ? Device : Device + " (" + Backend + ")";
  for (const char *Operation : Operations)
    if (ByOperation.count(Operation) != 0)
      Panels.push_back({Label + ": " + (std::string(Operation) == "Write" ? "write" : "read") +
                            " (blocking, median µs)",
                        ByOperation[Operation]});
  return true;
}

void drawPanel(std::ostringstream &Svg, const Panel &P, double Left, double Top) {
  constexpr double Width = 400;
  constexpr double Height = 260;
  double MinX = 1e300, MaxX = 0, MinY = 1e300, MaxY = 0;
  for (const auto &[Implementation, Points] : P.Lines)
    for (const auto &[Bytes, Micros] : Points) {
      MinX = std::min(MinX, Bytes);
      MaxX = std::max(MaxX, Bytes);
      MinY = std::min(MinY, Micros);
      MaxY = std::max(MaxY, Micros);
    }
  const double X0 = std::log2(MinX);
  const double X1 = std::max(std::log2(MaxX), X0 + 1);
  const double Y0 = std::floor(std::log10(MinY));
  const double Y1 = std::max(std::ceil(std::log10(MaxY)), Y0 + 1);
  auto X = [&](double Bytes) { return Left + (std::log2(Bytes) - X0) / (X1 - X0) * Width; };
  auto Y = [&](double Micros) {
    return Top + Height - (std::log10(Micros) - Y0) / (Y1 - Y0) * Height;
  };
  char Buffer[256];
  Svg << "<text x=\"" << Left << "\" y=\"" << Top - 12 << "\" font-size=\"13\">" << escape(P.Title)
      << "</text>\n";
  std::snprintf(Buffer, sizeof(Buffer),
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                "stroke=\"#444\"/>\n",
                Left, Top, Width, Height);
  Svg << Buffer;
  for (double Decade = Y0; Decade <= Y1 + 1e-9; Decade += 1) {
    const double Value = std::pow(10.0, Decade);
    std::snprintf(Buffer, sizeof(Buffer),
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%g</text>\n",
                  Left, Y(Value), Left + Width, Y(Value), Left - 4, Y(Value) + 4, Value);
    Svg << Buffer;
  }
  std::map<double, bool> Sizes;
  for (const auto &[Implementation, Points] : P.Lines)
    for (const auto &Point : Points)
      Sizes[Point.first] = true;
  for (const auto &Size : Sizes) {
    std::snprintf(Buffer, sizeof(Buffer),
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#eee\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
                  X(Size.first), Top, X(Size.first), Top + Height, X(Size.first), Top + Height + 15,
                  sizeLabel(Size.first).c_str());
    Svg << Buffer;
  }
  for (size_t I = 0; I < std::size(Implementations); ++I) {
    const auto Line = P.Lines.find(Implementations[I]);
    if (Line == P.Lines.end())
      continue;
    Svg << "<polyline fill=\"none\" stroke=\"" << Colours[I] << "\" stroke-width=\"2\" points=\"";
    for (const auto &[Bytes, Micros] : Line->second) {
      std::snprintf(Buffer, sizeof(Buffer), "%.1f,%.1f ", X(Bytes), Y(Micros));
      Svg << Buffer;
    }
    Svg << "\"/>\n";
    for (const auto &[Bytes, Micros] : Line->second) {
      std::snprintf(Buffer, sizeof(Buffer),
                    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>%s %s: %.2f "
                    "us</title></circle>\n",
                    X(Bytes), Y(Micros), Colours[I], Implementations[I], sizeLabel(Bytes).c_str(),
                    Micros);
      Svg << Buffer;
    }
    std::snprintf(Buffer, sizeof(Buffer),
                  "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"3\" fill=\"%s\"/>"
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%s</text>\n",
                  Left + 10, Top + 12 + 16 * static_cast<double>(I), Colours[I], Left + 26,
                  Top + 16 + 16 * static_cast<double>(I), Implementations[I]);
    Svg << Buffer;
  }
}

} // namespace

bool plotBenchmarks(const std::vector<PlotInput> &Inputs, std::string &Svg, std::string &Error) {
  std::vector<Panel> Panels;
  if (Inputs.empty()) {
    Error = "no input: name the benchmark's JSON with --from";
    return false;
  }
  for (const PlotInput &Input : Inputs)
    if (!readPanels(Input, Panels, Error))
      return false;
  constexpr double PanelWidth = 480;
  constexpr double PanelHeight = 330;
  const size_t Rows = (Panels.size() + 1) / 2;
  std::ostringstream Out;
  Out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << 2 * PanelWidth + 20
      << "\" height=\"" << Rows * PanelHeight + 20 << "\" font-family=\"sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  for (size_t I = 0; I < Panels.size(); ++I)
    drawPanel(Out, Panels[I], 60 + static_cast<double>(I % 2) * PanelWidth,
              40 + static_cast<double>(I / 2) * PanelHeight);
  Out << "</svg>\n";
  Svg = Out.str();
  return true;
}

int runPlot(const std::vector<std::string> &Files, const std::string &Output) {
  std::vector<PlotInput> Inputs;
  for (const std::string &File : Files) {
    std::ifstream In(File, std::ios::binary);
    if (!In) {
      std::cerr << "dglink bench --plot: cannot read '" << File << "'\n";
      return 1;
    }
    std::ostringstream Text;
    Text << In.rdbuf();
    Inputs.push_back({File, Text.str()});
  }
  std::string Svg;
  std::string Error;
  if (!plotBenchmarks(Inputs, Svg, Error)) {
    std::cerr << "dglink bench --plot: " << Error << "\n";
    return 1;
  }
  std::ofstream Out(Output, std::ios::binary);
  Out << Svg;
  Out.close();
  if (!Out) {
    std::cerr << "dglink bench --plot: could not write '" << Output << "'\n";
    return 1;
  }
  std::cout << "dglink bench --plot: wrote " << Output << " (" << Inputs.size() << " input"
            << (Inputs.size() == 1 ? "" : "s") << ")\n";
  return 0;
}

} // namespace dglink::tools
