// Itanium names of OpenCL builtins, parsed and written again with other address-space
// qualifiers (remangle.h).
#include "remangle.h"

#include <cctype>
#include <memory>
#include <vector>

namespace dglink::device_code {
namespace {

struct TypeNode {
  enum class Kind { Builtin, Pointer, Reference, Qualified, Vector, Named } What;
  std::string Text;               // Builtin: its code; Vector: its count; Named: "<len><name>"
  std::vector<std::string> Quals; // Qualified: "U3AS1", "r", "V", "K", in order
  std::shared_ptr<const TypeNode> Inner;
};
using Node = std::shared_ptr<const TypeNode>;

class Parser {
public:
  explicit Parser(std::string_view Name) : Text(Name) {}

  // "_Z" <source-name> <parameter types>; false for anything else.
  bool parse(std::string &FunctionName, std::vector<Node> &Parameters) {
    if (Text.substr(0, 2) != "_Z")
      return false;
    At = 2;
    if (!sourceName(FunctionName))
      return false;
    while (At < Text.size()) {
      Node Parameter = type();
      if (!Parameter)
        return false;
      Parameters.push_back(std::move(Parameter));
    }
    return !Parameters.empty();
  }

private:
  bool sourceName(std::string &Out) {
    size_t Length = 0;
    const size_t Start = At;
    while (At < Text.size() && std::isdigit(static_cast<unsigned char>(Text[At])) != 0) {
      Length = Length * 10 + static_cast<size_t>(Text[At] - '0');
      if (Length > Text.size())
        return false;
      ++At;
    }
    if (At == Start || Length == 0 || Length > Text.size() - At)
      return false;
    Out = std::string(Text.substr(Start, At - Start + Length));
    At += Length;
    return true;
  }

  Node candidate(TypeNode Made) {
    Node Result = std::make_shared<const TypeNode>(std::move(Made));
    Substitutions.push_back(Result);
    return Result;
  }

  Node substitution() {
    ++At; // 'S'
    size_t Index = 0;
    if (At < Text.size() && Text[At] != '_') {
      size_t Sequence = 0;
      while (At < Text.size() && Text[At] != '_') {
        const char C = Text[At++];
        if (C >= '0' && C <= '9')
          Sequence = Sequence * 36 + static_cast<size_t>(C - '0');
        else if (C >= 'A' && C <= 'Z')
          Sequence = Sequence * 36 + static_cast<size_t>(C - 'A' + 10);
        else
          return nullptr; // St, Sa, ...: not in a builtin's name
        if (Sequence > Text.size())
          return nullptr;
      }
      Index = Sequence + 1;
    }
    if (At >= Text.size() || Index >= Substitutions.size())
      return nullptr;
    ++At; // '_'
    return Substitutions[Index];
  }

  Node type() {
    if (At >= Text.size() || ++Depth > 64)
      return nullptr;
    struct Leave {
      int &Depth;
      ~Leave() { --Depth; }
    } Leaving{Depth};
    const char C = Text[At];
    if (C == 'S')
      return substitution();
    if (C == 'P' || C == 'R') {
      ++At;
      Node Inner = type();
      if (!Inner)
        return nullptr;
      return candidate({C == 'P' ? TypeNode::Kind::Pointer : TypeNode::Kind::Reference,
                        "",
                        {},
                        std::move(Inner)});
    }
    if (C == 'U' || C == 'r' || C == 'V' || C == 'K') {
      std::vector<std::string> Quals;
      while (At < Text.size() &&
             (Text[At] == 'U' || Text[At] == 'r' || Text[At] == 'V' || Text[At] == 'K')) {
        if (Text[At] == 'U') {
          ++At;
          std::string Vendor;
          if (!sourceName(Vendor))
            return nullptr;
          Quals.push_back("U" + Vendor);
        } else {
          Quals.emplace_back(1, Text[At++]);
        }
      }
      Node Inner = type();
      if (!Inner)
        return nullptr;
      return candidate({TypeNode::Kind::Qualified, "", std::move(Quals), std::move(Inner)});
    }
    if (C == 'D') {
      if (At + 1 >= Text.size())
        return nullptr;
      const char Next = Text[At + 1];
      if (Next == 'v') {
        At += 2;
        const size_t Start = At;
        while (At < Text.size() && std::isdigit(static_cast<unsigned char>(Text[At])) != 0)
          ++At;
        if (At == Start || At >= Text.size() || Text[At] != '_')
          return nullptr;
        std::string Count(Text.substr(Start, At - Start));
        ++At;
        Node Inner = type();
        if (!Inner)
          return nullptr;
        return candidate({TypeNode::Kind::Vector, std::move(Count), {}, std::move(Inner)});
      }
      if (Next == 'h' || Next == 'a' || Next == 'n' || Next == 'u' || Next == 's' || Next == 'i') {
        At += 2;
        return std::make_shared<const TypeNode>(
            TypeNode{TypeNode::Kind::Builtin, std::string{'D', Next}, {}, nullptr});
      }
      return nullptr;
    }
    if (std::isdigit(static_cast<unsigned char>(C)) != 0) {
      std::string Name;
      if (!sourceName(Name))
        return nullptr;
      return candidate({TypeNode::Kind::Named, std::move(Name), {}, nullptr});
    }
    if (std::string_view("vwbcahstijlmxynofdegz").find(C) != std::string_view::npos) {
      ++At;
      return std::make_shared<const TypeNode>(
          TypeNode{TypeNode::Kind::Builtin, std::string(1, C), {}, nullptr});
    }
    return nullptr;
  }

  std::string_view Text;
  size_t At = 0;
  int Depth = 0;
  std::vector<Node> Substitutions;
};

// Whether Qual is an address-space qualifier ("U3AS1": 'U', the length, "AS", a number).
bool addressSpaceOf(const std::string &Qual, unsigned &Space) {
  size_t At = 1;
  while (At < Qual.size() && std::isdigit(static_cast<unsigned char>(Qual[At])) != 0)
    ++At;
  if (Qual.empty() || Qual[0] != 'U' || At == 1 || Qual.compare(At, 2, "AS") != 0 ||
      At + 2 >= Qual.size() || Qual.size() - (At + 2) > 4)
    return false;
  Space = 0;
  for (size_t I = At + 2; I < Qual.size(); ++I) {
    if (std::isdigit(static_cast<unsigned char>(Qual[I])) == 0)
      return false;
    Space = Space * 10 + static_cast<unsigned>(Qual[I] - '0');
  }
  return true;
}

// The type with its address-space qualifiers renumbered (or dropped).
Node remap(const Node &Type, const std::map<unsigned, unsigned> &Spaces) {
  if (!Type->Inner)
    return Type;
  TypeNode Copy = *Type;
  Copy.Inner = remap(Type->Inner, Spaces);
  if (Copy.What == TypeNode::Kind::Qualified) {
    std::vector<std::string> Quals;
    for (const std::string &Qual : Type->Quals) {
      unsigned Space = 0;
      if (!addressSpaceOf(Qual, Space)) {
        Quals.push_back(Qual);
        continue;
      }
      const auto To = Spaces.find(Space);
      const unsigned New = To == Spaces.end() ? Space : To->second;
      if (New != 0)
        Quals.push_back("U" + std::to_string(2 + std::to_string(New).size()) + "AS" +
                        std::to_string(New));
    }
    Copy.Quals = std::move(Quals);
  }
  return std::make_shared<const TypeNode>(std::move(Copy));
}

// The type written out without substitutions: what two equal types share.
std::string spelled(const TypeNode &Type) {
  switch (Type.What) {
  case TypeNode::Kind::Builtin:
  case TypeNode::Kind::Named:
    return Type.Text;
  case TypeNode::Kind::Pointer:
    return "P" + spelled(*Type.Inner);
  case TypeNode::Kind::Reference:
    return "R" + spelled(*Type.Inner);
  case TypeNode::Kind::Vector:
    return "Dv" + Type.Text + "_" + spelled(*Type.Inner);
  case TypeNode::Kind::Qualified: {
    std::string Out;
    for (const std::string &Qual : Type.Quals)
      Out += Qual;
    return Out + spelled(*Type.Inner);
  }
  }
  return {};
}

class Writer {
public:
  std::string write(const TypeNode &Type) {
    if (Type.What == TypeNode::Kind::Builtin)
      return Type.Text;
    if (Type.What == TypeNode::Kind::Qualified && Type.Quals.empty())
      return write(*Type.Inner); // a qualifier that is no longer written
    const std::string Key = spelled(Type);
    for (size_t I = 0; I < Seen.size(); ++I)
      if (Seen[I] == Key)
        return I == 0 ? "S_" : "S" + base36(I - 1) + "_";
    std::string Out;
    switch (Type.What) {
    case TypeNode::Kind::Named:
      Out = Type.Text;
      break;
    case TypeNode::Kind::Pointer:
      Out = "P" + write(*Type.Inner);
      break;
    case TypeNode::Kind::Reference:
      Out = "R" + write(*Type.Inner);
      break;
    case TypeNode::Kind::Vector:
      Out = "Dv" + Type.Text + "_" + write(*Type.Inner);
      break;
    case TypeNode::Kind::Qualified:
      for (const std::string &Qual : Type.Quals)
        Out += Qual;
      Out += write(*Type.Inner);
      break;
    case TypeNode::Kind::Builtin:
      break;
    }
    Seen.push_back(Key);
    return Out;
  }

private:
  static std::string base36(size_t Value) {
    std::string Digits;
    do {
      const auto Digit = static_cast<char>(Value % 36);
      Digits.insert(Digits.begin(), Digit < 10 ? char('0' + Digit) : char('A' + Digit - 10));
      Value /= 36;
    } while (Value != 0);
    return Digits;
  }
  std::vector<std::string> Seen;
};

} // namespace

std::optional<std::string> remapAddressSpaceMangling(std::string_view Name,
                                                     const std::map<unsigned, unsigned> &Spaces) {
  std::string FunctionName;
  std::vector<Node> Parameters;
  Parser Reading(Name);
  if (!Reading.parse(FunctionName, Parameters))
    return std::nullopt;
  std::string Out = "_Z" + FunctionName;
  Writer Writing;
  for (const Node &Parameter : Parameters)
    Out += Writing.write(*remap(Parameter, Spaces));
  return Out;
}

} // namespace dglink::device_code
