# Fails when a file in models/ or simulator/scenario/ includes a SimGrid header.
file(GLOB_RECURSE files ${ROOT}/models/*.hpp ${ROOT}/models/*.cpp
     ${ROOT}/simulator/scenario/*.hpp ${ROOT}/simulator/scenario/*.cpp)
set(bad "")
foreach(f ${files})
  file(STRINGS ${f} hits REGEX "#include *[<\"](simgrid|xbt)")
  if(hits)
    list(APPEND bad ${f})
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "layering broken, SimGrid included in: ${bad}")
endif()
message(STATUS "layering ok: ${CMAKE_ARGC} checked")
