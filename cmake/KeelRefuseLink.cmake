# keel_refuse_link(TARGET forbidden...): stops the configure step when TARGET
# links any of `forbidden`, directly or through a library it links. Called at
# the end of the top-level CMakeLists, once every target exists, so that the
# production libraries can never pick up the dev kit through a new dependency.
function(keel_refuse_link target)
  set(seen "")
  set(queue ${target})
  while(queue)
    list(POP_FRONT queue current)
    if(current IN_LIST seen OR NOT TARGET ${current})
      continue()
    endif()
    list(APPEND seen ${current})
    get_target_property(imported ${current} IMPORTED)
    if(imported)
      continue()
    endif()
    get_target_property(direct ${current} LINK_LIBRARIES)
    get_target_property(usage ${current} INTERFACE_LINK_LIBRARIES)
    foreach(library IN LISTS direct usage)
      # Static libraries hand their private links on as $<LINK_ONLY:x>.
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" library "${library}")
      if(library IN_LIST ARGN)
        message(FATAL_ERROR
          "${target} links ${library} (through ${current}); "
          "${library} is for development and tests only")
      endif()
      list(APPEND queue ${library})
    endforeach()
  endwhile()
endfunction()
