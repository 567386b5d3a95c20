# Build-time steps of the conformance device code, run with `cmake -DSTEP=... -P`:
#   symbols  INPUT=<.ll> GLOBALS=<.globals or empty> OUTPUT=<.symbols>
#            the image's kernels, exports and imports; each declared device global
#            must be a variable the image defines
#   ptx      INPUT=<.ptx> SYMBOLS=<.symbols> GLOBALS=<.globals or empty> OUTPUT=<.ptx>
#            adds PTX linkage directives; checks each declared device global's
#            .visible .global definition and size
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

# Reads a .globals file (format in device_globals.globals) into DeviceGlobals, a
# list of "unique id|symbol|size|image scope|host access number" entries. An empty
# Path gives an empty list.
function(read_globals Path)
  set(Entries "")
  if(NOT Path STREQUAL "")
    read_lines("${Path}" Lines)
    set(LineNumber 0)
    foreach(Line ${Lines})
      math(EXPR LineNumber "${LineNumber} + 1")
      if(Line MATCHES "^[ \t]*(#.*)?$")
        continue()
      endif()
      if(NOT Line MATCHES "^([^ \t|]+)[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+([0-9]+)[ \t]+([01])[ \t]+(read|write|read_write|none)[ \t]*$")
        message(FATAL_ERROR "${Path}:${LineNumber}: expected '<unique id> <symbol> <size> "
                            "<image scope 0|1> <read|write|read_write|none>', got '${Line}'")
      endif()
      # The values of DPC++'s sycl-host-access (docs/property-sets.md).
      set(Access_read 0)
      set(Access_write 1)
      set(Access_read_write 2)
      set(Access_none 3)
      list(APPEND Entries "${CMAKE_MATCH_1}|${CMAKE_MATCH_2}|${CMAKE_MATCH_3}|${CMAKE_MATCH_4}|${Access_${CMAKE_MATCH_5}}")
    endforeach()
  endif()
  set(DeviceGlobals "${Entries}" PARENT_SCOPE)
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
  endforeach()
  # A declared device global the image does not define would only show up as a
  # lookup failure on a device.
  read_globals("${GLOBALS}")
  foreach(Entry ${DeviceGlobals})
    string(REPLACE "|" ";" Fields "${Entry}")
    list(GET Fields 1 Symbol)
    if(NOT Symbol IN_LIST Exports)
      message(FATAL_ERROR "${GLOBALS}: '${Symbol}' is not a program-scope variable that "
                          "${INPUT} defines")
    endif()
  endforeach()
  foreach(List Kernels Exports Imports)
    string(REPLACE ";" " " ${List} "${${List}}")
  endforeach()
  file(WRITE "${OUTPUT}" "kernels=${Kernels}\nexports=${Exports}\nimports=${Imports}\n")
endfunction()

# The size in bytes of the PTX variable Symbol, defined ".visible .global", in
# Text; -1 if there is no such definition.
function(ptx_global_size Text Symbol OutVar)
  set(Size -1)
  if(Text MATCHES "\n\\.visible[ \t]+\\.global[ \t]+(\\.align[ \t]+[0-9]+[ \t]+)?\\.[a-z]+([0-9]+)[ \t]+${Symbol}(\\[([0-9]+)\\])?[ \t]*[;=]")
    set(Bits "${CMAKE_MATCH_2}")
    set(Extent "${CMAKE_MATCH_4}") # empty for a scalar
    math(EXPR Size "${Bits} / 8")
    if(NOT Extent STREQUAL "")
      math(EXPR Size "${Size} * ${Extent}")
    endif()
  endif()
  set(${OutVar} ${Size} PARENT_SCOPE)
endfunction()

# clang's nvptx64-nvidia-nvcl target writes no linkage directives on functions, so
# an exported function would stay private to its module and an imported one would
# be an undefined local. Mark kernels and exports .visible and imports .extern
# (variables too, should a clang leave them bare). Then check that every declared
# device global is a .visible .global of the declared size: the CUDA adapter finds
# it with cuModuleGetGlobal, and a size mismatch would shrink every copy's bound.
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
      # A variable's name follows its type and is followed by its extent, an
      # initializer or the end of the statement.
      string(REGEX REPLACE "\n\\.global([^\n]*[ \t])${Name}([ \t]*[[=;])"
                           "\n${Directive} .global\\1${Name}\\2" Text "${Text}")
    endforeach()
  endforeach()
  read_globals("${GLOBALS}")
  foreach(Entry ${DeviceGlobals})
    string(REPLACE "|" ";" Fields "${Entry}")
    list(GET Fields 1 Symbol)
    list(GET Fields 2 Declared)
    ptx_global_size("${Text}" ${Symbol} Size)
    if(Size EQUAL -1)
      message(FATAL_ERROR "${INPUT}: no '.visible .global' definition of device global "
                          "'${Symbol}' (declared in ${GLOBALS})")
    elseif(NOT Size EQUAL Declared)
      message(FATAL_ERROR "${INPUT}: device global '${Symbol}' has ${Size} bytes, "
                          "${GLOBALS} declares ${Declared}")
    endif()
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
    set(GlobalsPath "")
    list(LENGTH Fields FieldCount)
    if(FieldCount GREATER 4)
      list(GET Fields 4 GlobalsPath)
    endif()
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
    read_globals("${GlobalsPath}")
    set(GlobalsArray "nullptr")
    list(LENGTH DeviceGlobals GlobalCount)
    if(GlobalCount GREATER 0)
      set(GlobalsArray "Globals${Index}")
      string(APPEND Arrays "const EmbeddedDeviceGlobal Globals${Index}[] = {\n")
      foreach(Entry ${DeviceGlobals})
        string(REPLACE "|" ";" Fields "${Entry}")
        list(GET Fields 0 UniqueId)
        list(GET Fields 1 Symbol)
        list(GET Fields 2 Size)
        list(GET Fields 3 Scope)
        list(GET Fields 4 Access)
        c_string("${UniqueId}" UniqueId)
        string(APPEND Arrays "    {${UniqueId}, \"${Symbol}\", ${Size}, ${Scope}, ${Access}},\n")
      endforeach()
      string(APPEND Arrays "};\n\n")
    endif()
    string(APPEND Table "    {\"${Name}\", \"${Format}\", Image${Index}, sizeof(Image${Index}) - 1, ${Kernels}, ${Exports}, ${Imports}, ${GlobalsArray}, ${GlobalCount}},\n")
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
// suite's device images, their symbol tables and device globals. Do not edit.
#include \"embedded_images.h\"

namespace dglink::conformance {
namespace {

${Arrays}} // namespace

// Each table ends with an empty entry so that it is never a zero-length array.
const EmbeddedImage EmbeddedImages[] = {
${Table}    {nullptr, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr, 0}};
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
