# The layers' direction, checked on every build and by ctest (docs/architecture.md):
# a file in include/khun/<layer>/ or src/<layer>/ may include the headers of its own
# layer and of the layers above it, never of a layer below. Run as
#   cmake -DKHUN_ROOT=<source dir> -P cmake/check_layers.cmake
# Also refuses a source file outside the layer folders (only src/main.cpp sits above them).
# bot (`khun bot`, optional) sits on protocol; no other layer may reach into it.
set(layers rules eval search protocol tools bot)
if(NOT KHUN_ROOT)
  message(FATAL_ERROR "check_layers: pass -DKHUN_ROOT=<source dir>")
endif()
set(failures "")
file(GLOB stray RELATIVE ${KHUN_ROOT} ${KHUN_ROOT}/include/khun/*.h ${KHUN_ROOT}/src/*.h
     ${KHUN_ROOT}/src/*.cpp)
list(REMOVE_ITEM stray src/main.cpp)
foreach(file ${stray})
  list(APPEND failures "${file}: outside every layer folder")
endforeach()
list(LENGTH layers count)
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  list(GET layers ${i} layer)
  file(GLOB_RECURSE files RELATIVE ${KHUN_ROOT} ${KHUN_ROOT}/include/khun/${layer}/*
       ${KHUN_ROOT}/src/${layer}/*)
  foreach(file ${files})
    file(STRINGS ${KHUN_ROOT}/${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"khun/")
    foreach(line ${includes})
      string(REGEX MATCH "khun/([a-z_]+)/" _ "${line}")
      set(target "${CMAKE_MATCH_1}")
      list(FIND layers "${target}" j)
      if(j EQUAL -1)
        list(APPEND failures "${file}: ${line} names no layer")
      elseif(j GREATER i)
        list(APPEND failures "${file}: ${line} reaches down from ${layer} to ${target}")
      endif()
    endforeach()
  endforeach()
endforeach()
if(failures)
  list(JOIN failures "\n  " text)
  message(FATAL_ERROR "Layer check failed (docs/architecture.md, Layers):\n  ${text}")
endif()
