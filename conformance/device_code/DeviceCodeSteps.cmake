# Build-time steps of the conformance device code, run with `cmake -DSTEP=... -P`:
#   symbols  INPUT=<.ll> OUTPUT=<.symbols>       the image's kernels, exports and imports
#   ptx      INPUT=<.ptx> SYMBOLS=<.symbols> OUTPUT=<.ptx>   adds PTX linkage directives
#   embed    MANIFEST=<file> DISABLED=<file> OUTPUT=<.cpp>   the images as C++ byte arrays
cmake_minimum_required(VERSION 3.20)

# Reads a text file into a list of lines. Semicolons (list separators in CMake)
# become commas first: no step needs them and they would split lines apart.
function(read_lines Path OutVar)
  file(READ "${Path}" Text)
  string(REPLACE ";" "," Text "${Text}")
  string(REPLACE "\n" ";" Lines "${Text}")
  set(${OutVar} "${Lines}" PARENT_SCOPE)
endfunction()

# Reads a .symbols file into Kernels, Exports and Imports (space-separated).
function(read_symbols Path)
  read_lines("${Path}" Lines)
  foreach(Kind kernels exports imports)
    set(Value "")
    foreach(Line ${Lines})
      if(Line MATCHES "^${Kind}=(.*)$")
        set(Value "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    set(Symbols_${Kind} "${Value}" PARENT_SCOPE)
  endforeach()
endfunction()

# OpenCL builtins (mangled _Z*), compiler-reserved names and LLVM intrinsics are
# resolved by the device compiler, not by another image.
function(is_linkable Name OutVar)
  if(Name MATCHES "^(_Z|__|llvm\\.)")
    set(${OutVar} FALSE PARENT_SCOPE)
  else()
    set(${OutVar} TRUE PARENT_SCOPE)
  endif()
endfunction()

# Kernels, exports (defined, externally visible, not kernels) and imports
# (declared only) of an LLVM module in text form.
function(step_symbols)
  read_lines("${INPUT}" Lines)
  set(Kernels "")
  set(Exports "")
  set(Imports "")
  foreach(Line ${Lines})
    if(Line MATCHES "^(define|declare) ([^@]*)@([A-Za-z_.$][A-Za-z0-9_.$]*)\\(")
      set(Kind "${CMAKE_MATCH_1}")
      set(Attributes " ${CMAKE_MATCH_2}")
      set(Name "${CMAKE_MATCH_3}")
      is_linkable("${Name}" Linkable)
      if(Kind STREQUAL "declare")
        if(Linkable)
          list(APPEND Imports "${Name}")
        endif()
      elseif(Attributes MATCHES " spir_kernel ")
        list(APPEND Kernels "${Name}")
      elseif(NOT Attributes MATCHES " (internal|private) " AND Linkable)
        list(APPEND Exports "${Name}")
      endif()
    elseif(Line MATCHES "^@([A-Za-z_.$][A-Za-z0-9_.$]*) = (.*)$")
      # Module-scope variables link like functions.
      set(Name "${CMAKE_MATCH_1}")
      set(Attributes " ${CMAKE_MATCH_2}")
      is_linkable("${Name}" Linkable)
      if(NOT Linkable OR Attributes MATCHES " (internal|private) " OR
         NOT Attributes MATCHES " (global|constant) ")
        continue()
      endif()
      if(Attributes MATCHES " external ")
        list(APPEND Imports "${Name}")
      else()
        list(APPEND Exports "${Name}")
      endif()
    endif()
  endforeach()
  foreach(List Kernels Exports Imports)
    list(REMOVE_DUPLICATES ${List})
    string(REPLACE ";" " " ${List} "${${List}}")
  endforeach()
  file(WRITE "${OUTPUT}" "kernels=${Kernels}\nexports=${Exports}\nimports=${Imports}\n")
endfunction()

# clang's nvptx64-nvidia-nvcl target writes no linkage directives, so an exported
# function would stay private to its module and an imported one would be an
# undefined local. Mark kernels and exports .visible and imports .extern.
function(step_ptx)
  file(READ "${INPUT}" Text)
  read_symbols("${SYMBOLS}")
  string(REGEX REPLACE "\n\\.entry " "\n.visible .entry " Text "${Text}")
  foreach(Kind exports imports)
    if(Kind STREQUAL "exports")
      set(Directive ".visible")
    else()
      set(Directive ".extern")
    endif()
    string(REPLACE " " ";" Names "${Symbols_${Kind}}")
    foreach(Name ${Names})
      if(NOT Name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
        message(FATAL_ERROR "${INPUT}: symbol '${Name}' cannot be marked in PTX")
      endif()
      # The name follows the return-value list and is followed by its parameters.
      string(REGEX REPLACE "\n\\.func([^\n]*[ \t)])${Name}([ \t]*[\n(])"
                           "\n${Directive} .func\\1${Name}\\2" Text "${Text}")
    endforeach()
  endforeach()
  file(WRITE "${OUTPUT}" "${Text}")
endfunction()

# A C string literal of Text.
function(c_string Text OutVar)
  string(REPLACE "\\" "\\\\" Text "${Text}")
  string(REPLACE "\"" "\\\"" Text "${Text}")
  set(${OutVar} "\"${Text}\"" PARENT_SCOPE)
endfunction()

function(step_embed)
  read_lines("${MANIFEST}" Entries)
  set(Arrays "")
  set(Table "")
  set(Index 0)
  # Sixteen bytes per line keeps the generated source readable in a diff.
  string(REPEAT "0x[0-9a-f][0-9a-f], " 16 SixteenBytes)
  foreach(Entry ${Entries})
    if(Entry STREQUAL "")
      continue()
    endif()
    string(REPLACE "|" ";" Fields "${Entry}")
    list(GET Fields 0 Name)
    list(GET Fields 1 Format)
    list(GET Fields 2 ImagePath)
    list(GET Fields 3 SymbolPath)
    # A NUL after the image (not counted in its size) lets a driver read a text
    # image such as PTX as a C string.
    file(READ "${ImagePath}" Hex HEX)
    string(LENGTH "${Hex}" HexLength)
    if(HexLength EQUAL 0)
      message(FATAL_ERROR "${ImagePath} is empty")
    endif()
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1, " Bytes "${Hex}")
    string(REGEX REPLACE "(${SixteenBytes})" "\\1\n    " Bytes "${Bytes}")
    string(REPLACE ", \n" ",\n" Bytes "${Bytes}")
    read_symbols("${SymbolPath}")
    string(APPEND Arrays "// ${Name} (${Format})\nalignas(8) const unsigned char Image${Index}[] = {\n    ${Bytes}0x00};\n\n")
    c_string("${Symbols_kernels}" Kernels)
    c_string("${Symbols_exports}" Exports)
    c_string("${Symbols_imports}" Imports)
    string(APPEND Table "    {\"${Name}\", \"${Format}\", Image${Index}, sizeof(Image${Index}) - 1, ${Kernels}, ${Exports}, ${Imports}},\n")
    math(EXPR Index "${Index} + 1")
  endforeach()

  read_lines("${DISABLED}" DisabledLines)
  set(Disabled "")
  foreach(Line ${DisabledLines})
    if(Line MATCHES "^([^=]+)=(.*)$")
      c_string("${CMAKE_MATCH_1}" Format)
      c_string("${CMAKE_MATCH_2}" Reason)
      string(APPEND Disabled "    {${Format}, ${Reason}},\n")
    endif()
  endforeach()

  set(Source "// Generated by conformance/device_code/DeviceCodeSteps.cmake: the conformance
// suite's device images and their symbol tables. Do not edit.
#include \"embedded_images.h\"

namespace dglink::conformance {
namespace {

${Arrays}} // namespace

// Each table ends with an empty entry so that it is never a zero-length array.
const EmbeddedImage EmbeddedImages[] = {
${Table}    {nullptr, nullptr, nullptr, 0, nullptr, nullptr, nullptr}};
const size_t NumEmbeddedImages = sizeof(EmbeddedImages) / sizeof(EmbeddedImages[0]) - 1;

const DisabledImageTarget DisabledImageTargets[] = {
${Disabled}    {nullptr, nullptr}};
const size_t NumDisabledImageTargets =
    sizeof(DisabledImageTargets) / sizeof(DisabledImageTargets[0]) - 1;

} // namespace dglink::conformance
")
  file(WRITE "${OUTPUT}" "${Source}")
endfunction()

if(STEP STREQUAL "symbols")
  step_symbols()
elseif(STEP STREQUAL "ptx")
  step_ptx()
elseif(STEP STREQUAL "embed")
  step_embed()
else()
  message(FATAL_ERROR "DeviceCodeSteps.cmake: unknown STEP '${STEP}'")
endif()
