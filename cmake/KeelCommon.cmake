# One INTERFACE target carries the flags every keel target shares, so that a
# rule such as "no implicit QString from const char*" cannot drift per folder.
add_library(keel_common_cfg INTERFACE)
target_compile_definitions(keel_common_cfg INTERFACE
  QT_NO_CAST_FROM_ASCII
  QT_NO_CAST_TO_ASCII
  QT_NO_CONTEXTLESS_CONNECT
  QT_NO_NARROWING_CONVERSIONS_IN_CONNECT
  QT_NO_URL_CAST_FROM_STRING
  QT_USE_QSTRINGBUILDER
  QT_NO_KEYWORDS)
target_compile_options(keel_common_cfg INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
  -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough)
if(KEEL_WERROR)
  target_compile_options(keel_common_cfg INTERFACE -Werror)
endif()
if(KEEL_SANITIZE)
  target_compile_options(keel_common_cfg INTERFACE
    -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(keel_common_cfg INTERFACE -fsanitize=address,undefined)
endif()
