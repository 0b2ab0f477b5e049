# cmake -DABI_HEADER=abi.h -DTEMPLATE=abi_text.hpp.in -DOUTPUT=abi_text.hpp -P embed_abi.cmake
# Writes OUTPUT from TEMPLATE, which holds the text of ABI_HEADER in a raw string literal (run by
# the build whenever one of them changes: src/lower/CMakeLists.txt). Text containing the literal's
# closing delimiter would end it early and embed a truncated ABI: that fails the build instead.
set(DELIMITER REACT_ABI)
file(READ "${ABI_HEADER}" ABI_TEXT)
string(FIND "${ABI_TEXT}" ")${DELIMITER}\"" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "${ABI_HEADER} contains ')${DELIMITER}\"', the closing delimiter of the raw string literal "
                      "that embeds it (${TEMPLATE}): change the text, or DELIMITER in ${CMAKE_CURRENT_LIST_FILE}")
endif()
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
# configure_file leaves an unchanged file as it was: touched, it is newer than its inputs and the
# build stops running this step.
file(TOUCH "${OUTPUT}")
