# pmix_warnings(<target>): the project's warning set; -Werror when PMIX_WERROR is ON (dev preset).
function(pmix_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(PMIX_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
