# cmake -DTEXT_FILE=abi.h -DVARIABLE=kAbiHeaderText -DTEMPLATE=embedded_text.hpp.in -DOUTPUT=abi_text.hpp -P embed_text.cmake
# Writes OUTPUT from TEMPLATE: a header defining react::lower::VARIABLE, the text of TEXT_FILE in
# a raw string literal (run by the build whenever one of them changes: src/lower/CMakeLists.txt).
# Text containing the literal's closing delimiter would end it early and embed a truncated text:
# that fails the build instead.
set(DELIMITER REACT_TEXT)
file(READ "${TEXT_FILE}" TEXT)
string(FIND "${TEXT}" ")${DELIMITER}\"" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "${TEXT_FILE} contains ')${DELIMITER}\"', the closing delimiter of the raw string literal "
                      "that embeds it (${TEMPLATE}): change the text, or DELIMITER in ${CMAKE_CURRENT_LIST_FILE}")
endif()
get_filename_component(SOURCE_NAME "${TEXT_FILE}" NAME)
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
# configure_file leaves an unchanged file as it was: touched, it is newer than its inputs and the
# build stops running this step.
file(TOUCH "${OUTPUT}")
